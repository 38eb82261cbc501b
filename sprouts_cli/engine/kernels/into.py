"""The entry points Python calls: each ``*_into`` kernel writes its results into the
caller's buffers (``OutBuffers``) and returns one number, ``TOO_SMALL`` when the
buffers must grow, ``NOT_CODED`` when the land cannot be coded.
"""

from __future__ import annotations

# ``kernel``: numba.njit(cache=True), plain Python, or the ahead-of-time build (aot.py);
# ``@kernel(export=SIGNATURE)`` marks an entry point, a kernel called from Python.
from ..aot import kernel
from .children import child_lands_kernel
from .land_code import land_code_kernel
from .land_text import list_moves_kernel, parse_land_kernel
from .position_lands import position_lands_kernel
from .reduced import reduced_land_kernel


@kernel(export="int64(int64[::1], int64[::1], uint8[::1])")
def reduced_land_into(flat, words, chars):  # type: ignore[no-untyped-def]
    """``reduced_land_kernel`` into the buffers: the text's length; or ``NOT_CODED``, or
    ``TOO_SMALL``."""
    text = reduced_land_kernel(flat)
    n = text.shape[0]
    if n == 0:
        return NOT_CODED
    if n > chars.shape[0]:
        return _too_small(words, 2, n)
    chars[:n] = text
    return n


# ------------------------------------------------------------------ results into the caller's buffers
#
# A kernel called from Python that returns arrays pays for each one: an allocation that
# the caller's numpy object then owns, and in the ahead-of-time build an unpickling of
# ``numpy.ndarray`` per array boxed (numba.pycc's wrapper does not cache it: ~7,000
# instructions, 5% of a 10-spot position's canonical form and 7% of a whole ``0*9``
# solve, by valgrind).  So the hot entry points write their results into two buffers
# the caller keeps (``OUT``) and return one number.  A buffer that is too small is
# never written past: the kernel stores the sizes it needs in ``words[0]`` and
# ``words[1]`` and returns ``TOO_SMALL``; the caller grows the buffers and calls again.

#: ``*_into`` kernels: the buffers were too small (``words[:2]`` hold the sizes needed).
TOO_SMALL = -2
#: ``*_into`` kernels: a land that cannot be coded (the Python path explains why).
NOT_CODED = -1


@kernel
def _too_small(words, nwords, nchars):  # type: ignore[no-untyped-def]
    """Store the sizes needed in ``words[:2]`` and return ``TOO_SMALL``."""
    words[0] = nwords
    words[1] = nchars
    return TOO_SMALL


@kernel(export="int64(int64[::1], int64[::1], uint8[::1])")
def position_lands_into(packed, words, chars):  # type: ignore[no-untyped-def]
    """``position_lands_kernel`` with its text written to ``chars``: the text's length, or
    ``NOT_CODED``, or ``TOO_SMALL``."""
    text, ok = position_lands_kernel(packed)
    if not ok:
        return NOT_CODED
    n = text.shape[0]
    if n > chars.shape[0]:
        return _too_small(words, 2, n)
    chars[:n] = text
    return n


@kernel(export="int64(int64[::1], boolean, int64[::1], uint8[::1])")
def land_code_into(flat, write, words, chars):  # type: ignore[no-untyped-def]
    """``land_code_kernel`` with the code then the text written to ``chars``: the code's
    length, the text's in ``words[0]``; or ``NOT_CODED``, or ``TOO_SMALL``."""
    code, text = land_code_kernel(flat, write)
    nc = code.shape[0]
    if nc == 0:
        return NOT_CODED
    nt = text.shape[0]
    if nc + nt > chars.shape[0]:
        return _too_small(words, 2, nc + nt)
    chars[:nc] = code
    chars[nc : nc + nt] = text
    words[0] = nt
    return nc


@kernel(
    export="int64(int64[::1], int64[::1], int64, int64, int64, int64, int64, int64, int64[::1], uint8[::1])"
)
def child_lands_into(pflat, lives, region, bi, ci, bj, cj, inside_mask, words, chars):  # type: ignore[no-untyped-def]
    """``child_lands_kernel`` into the buffers: returns the number of lands n; ``words`` holds
    the n + 1 land offsets, the n + 1 code offsets, then the lands' flat forms; ``chars``
    the codes.  Or ``TOO_SMALL``."""
    flat, land_off, keys, key_off = child_lands_kernel(pflat, lives, region, bi, ci, bj, cj, inside_mask)
    n = land_off.shape[0] - 1
    nwords = 2 * (n + 1) + flat.shape[0]
    if nwords > words.shape[0] or keys.shape[0] > chars.shape[0]:
        return _too_small(words, nwords, keys.shape[0])
    words[: n + 1] = land_off
    words[n + 1 : 2 * n + 2] = key_off
    words[2 * n + 2 : nwords] = flat
    chars[: keys.shape[0]] = keys
    return n


@kernel(export="int64(uint8[::1], int64[::1], uint8[::1])")
def parse_land_into(text, words, chars):  # type: ignore[no-untyped-def]
    """``parse_land_kernel`` into the buffers: returns the length n of ``flat`` (0 for a string
    it cannot read); ``words`` holds the length of ``lives``, ``flat``, then ``lives``.  Or
    ``TOO_SMALL``."""
    flat, lives = parse_land_kernel(text)
    n, nl = flat.shape[0], lives.shape[0]
    if 1 + n + nl > words.shape[0]:
        return _too_small(words, 1 + n + nl, 0)
    words[0] = nl
    words[1 : 1 + n] = flat
    words[1 + n : 1 + n + nl] = lives
    return n


@kernel(export="int64(int64[::1], int64[::1], int64[::1], uint8[::1])")
def list_moves_into(pflat, lives, words, chars):  # type: ignore[no-untyped-def]
    """``list_moves_kernel`` into ``words``: the number of moves, or ``NOT_CODED`` when a move
    does not fit the packing, or ``TOO_SMALL``."""
    moves, fits = list_moves_kernel(pflat, lives)
    if not fits:
        return NOT_CODED
    n = moves.shape[0]
    if n > words.shape[0]:
        return _too_small(words, n, 0)
    words[:n] = moves
    return n
