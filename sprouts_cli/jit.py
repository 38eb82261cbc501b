"""numba for the package's numeric kernels, with a plain-Python way out.

One switch for every compiled kernel of the package (the engine's, the picture
layer's, Dots-and-Boxes'): with ``SPROUTS_PURE_PYTHON=1``, or when numba is missing,
kernels are left as plain Python, so the same source is the reference the tests
compare against; otherwise they are compiled by ``numba.njit(cache=True, nogil=True)``
(numba's cache keeps the compiled code beside the source, so a second run loads it).
Either way a kernel has ``.py_func``, its plain-Python source, as numba's kernels do.
The engine's kernels may also come from the ahead-of-time build (``engine/aot.py``),
which builds on this switch.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

#: Plain Python asked for: ``SPROUTS_PURE_PYTHON`` set to anything but ``0``.
PURE_PYTHON = os.environ.get("SPROUTS_PURE_PYTHON", "") not in ("", "0")


def numba_present() -> bool:
    """Can numba be imported (it is a dependency; this is only a guard)?"""
    return importlib.util.find_spec("numba") is not None


def plain(fn: F) -> F:
    """``fn`` as it is, with ``.py_func`` naming it, as a compiled kernel has."""
    fn.py_func = fn  # type: ignore[attr-defined]
    return fn


def kernel(fn: F, *, pure: bool = False, refcounts: bool = True) -> F:
    """``fn`` compiled by ``numba.njit(cache=True, nogil=True)``, or as plain Python when it
    is asked for (``SPROUTS_PURE_PYTHON``, ``pure``) or numba is missing.

    ``refcounts=False`` compiles it without numba's reference counts (its ``_nrt``
    option): for a hot kernel that allocates nothing and whose arrays outlive the call
    (numba refuses to compile an allocation there); each array it touches then costs no
    count calls.
    """
    if pure or PURE_PYTHON or not numba_present():
        return plain(fn)
    import numba

    if refcounts:
        return numba.njit(cache=True, nogil=True)(fn)  # type: ignore[return-value]  # a Dispatcher, called as fn
    return numba.njit(cache=True, nogil=True, _nrt=False)(fn)  # type: ignore[call-overload]  # not in the stubs


__all__ = ["PURE_PYTHON", "kernel", "numba_present", "plain"]
