"""The solver's hot loops, compiled by numba (``cache=True``) or run as plain Python.

Everything here works on line sets as ints (bit i = line i, OpenSpiel's order) and
on small integer arrays describing the board (``geometry.py`` makes them):

* ``line_boxes[i]``: the one or two boxes line i is a side of (-1 pads);
* ``box_lines[b]``: the four lines of box b;
* ``order``: the lines, nearest the centre first (the move ordering);
* ``lut[s, k, byte]``: symmetry s applied to byte k of a line set, for canonical keys;
* ``line_bits[i]``: the boxes of line i as a box set (bit b = box b);
* ``dims``: (R, C, the index of the first vertical line, the set of all boxes).

Sides of boxes are counted bit-parallel (``planes``): the boxes with two, three and
four sides drawn come out as three box sets from a few shifts of the line set.

The same source runs uncompiled as the reference the tests compare against: with
``SPROUTS_PURE_PYTHON=1``, or as the copy ``solver.pure_kernels()`` loads (a module
whose global ``FORCE_PURE`` is set before its code runs).

Values are net boxes for the player to move, counted over the boxes not yet taken.
"""

from __future__ import annotations

import os

import numpy as np

from .. import jit as _jit

_PURE = os.environ.get("SPROUTS_PURE_PYTHON", "") not in ("", "0") or bool(globals().get("FORCE_PURE"))

try:  # pragma: no cover - numba is a dependency; this is only a guard
    import numba
except ImportError:  # pragma: no cover
    numba = None  # type: ignore[assignment]  # no numba: every kernel runs as plain Python
    _PURE = True


def kernel(fn):
    """The package's kernel decorator (``sprouts_cli/jit.py``), plain Python in the pure copy."""
    return _jit.kernel(fn, pure=_PURE or numba is None)


if _PURE or numba is None:

    def unowned(array):
        """The array itself (plain Python has no reference counts to save)."""
        return array

else:
    from numba.core import types
    from numba.extending import intrinsic

    @intrinsic
    def _int64_pointer(typingctx, address):
        def codegen(context, builder, signature, args):
            return builder.inttoptr(args[0], context.get_value_type(signature.return_type))

        return types.CPointer(types.int64)(address), codegen

    @numba.njit(cache=True, nogil=True)
    def unowned(array):
        """A view of an int64 array that numba does not reference-count.

        Every array handed to a compiled function, and every view of it, carries a
        count that numba raises and lowers atomically around calls; in the recursive
        search these counts were half the time of a node.  A view made from the bare
        address has none (its owner, the caller's array, stays alive for the call).
        """
        return numba.carray(_int64_pointer(array.ctypes.data), array.shape)


#: stats array slots
NODES = 0
STOP = 1  # set to 1 from outside to stop a search (it then returns garbage, and STOPPED is 1)
STOPPED = 2
STORES = 3
HISTOGRAM = 4  # stats[4 + k]: nodes searched with k lines left to draw


@kernel
def sides(mask, box_lines, b):
    """How many sides of box b are drawn."""
    n = 0
    for k in range(4):
        n += (mask >> box_lines[b, k]) & 1
    return n


@kernel
def first_missing(mask, box_lines, b, skip):
    """An undrawn side of box b other than line ``skip`` (-1 if none)."""
    for k in range(4):
        line = box_lines[b, k]
        if line != skip and not (mask >> line) & 1:
            return line
    return -1


@kernel
def across(line_boxes, line, b):
    """The box on the other side of ``line`` from box b (-1: the edge of the board)."""
    if line_boxes[line, 0] == b:
        return line_boxes[line, 1]
    return line_boxes[line, 0]


@kernel
def completes(mask, line_boxes, box_lines, line):
    """How many boxes drawing ``line`` completes."""
    n = 0
    for k in range(2):
        b = line_boxes[line, k]
        if b >= 0 and sides(mask, box_lines, b) == 3:
            n += 1
    return n


@kernel
def popcount(x):
    """The number of set bits of a non-negative int64 (SWAR, no loop)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    x += x >> 8
    x += x >> 16
    x += x >> 32
    return x & 127


@kernel
def planes(mask, dims):
    """The boxes (bit b = box b) with exactly two, exactly three and four sides drawn.

    Bit-parallel: the top sides of the boxes are the first R·C lines as they stand,
    the bottom sides the same shifted by C, the left and right sides one shift per
    row of the vertical lines; the four planes are added as bit vectors.
    ``dims`` is (R, C, index of the first vertical line, box mask).
    """
    rows = dims[0]
    cols = dims[1]
    boxes = dims[3]
    top = mask & boxes
    bottom = (mask >> cols) & boxes
    vertical = mask >> dims[2]
    row = (np.int64(1) << cols) - 1
    left = np.int64(0)
    right = np.int64(0)
    for r in range(rows):
        m = row << (r * cols)
        left |= (vertical >> r) & m
        right |= (vertical >> (r + 1)) & m
    s0 = top ^ bottom
    c0 = top & bottom
    s1 = left ^ right
    c1 = left & right
    bit0 = s0 ^ s1
    k = s0 & s1
    bit1 = c0 ^ c1 ^ k
    bit2 = (c0 & c1) | (k & (c0 | c1))
    return bit1 & ~bit0, bit0 & bit1, bit2


@kernel
def _sides_of(s2, s3, b):
    """Sides drawn of a box not yet taken, from the planes: 2, 3, or 1 for one or none."""
    if (s2 >> b) & 1:
        return 2
    if (s3 >> b) & 1:
        return 3
    return 1


@kernel
def forced_captures(mask, must, line_boxes, box_lines, dims):
    """Draw the captures that lose nothing; returns (line set, boxes gained, its planes).

    Must-complete rule: every capture is forced, and the boxes taken do not depend on
    the order (the set of boxes that become completable is the least fixed point), so
    all of them are made at once; this is the rule itself, not a pruning.

    Free form: a capturable box is taken at once when the box across its last side is
    the edge, or has not exactly two sides drawn (taking it opens no further box, and
    a box of three sides across makes a pair taken by one line).  Declining is only of
    use at the end of a chain or loop, where the box across has two sides
    (Berlekamp, *The Dots-and-Boxes Game*, ch. 3, "all but two"); those are left to
    ``capture_options``.  The tests check this against the retrograde analysis on
    every position of the small boards.  The boxes are visited in index order with
    the planes (``planes``) brought up to date after every line drawn.
    """
    s2, s3, s4 = planes(mask, dims)
    gained = 0
    changed = True
    while changed and s3 != 0:
        changed = False
        for b in range(box_lines.shape[0]):
            if (s3 >> b) & 1:
                line = first_missing(mask, box_lines, b, -1)
                o = across(line_boxes, line, b)
                so = -1
                if o >= 0:
                    so = _sides_of(s2, s3, o)
                if must or so != 2:
                    mask |= np.int64(1) << line
                    gained += 1
                    if so == 3:
                        gained += 1
                    changed = True
                    s2, s3, s4 = planes(mask, dims)
    return mask, gained, s2, s3, s4


@kernel
def chain_end(mask, line_boxes, box_lines, s2, s3, b):
    """Box b has three sides and the box across its last side has two: follow the chain.

    Returns (the line that takes b, the decline line or -1, the far end if it is a
    capturable box or -1).  The decline (Berlekamp's all-but-two and all-but-four) is
    the far side of the second box when exactly two boxes are left in a chain that
    ends at the edge or at a box of fewer than two sides (the opponent gets a pair),
    or the middle line when exactly four boxes are left between two capturable ends
    (two pairs).
    """
    take = first_missing(mask, box_lines, b, -1)
    cur = across(line_boxes, take, b)
    prev = take
    length = 2
    first_exit = -1
    while True:
        nxt_line = first_missing(mask, box_lines, cur, prev)
        if first_exit < 0:
            first_exit = nxt_line
        nxt = across(line_boxes, nxt_line, cur)
        s = -1
        if nxt >= 0:
            s = _sides_of(s2, s3, nxt)
        if s <= 1:
            if length == 2:
                return take, first_exit, -1
            return take, -1, -1
        if s == 3:
            if length + 1 == 4:
                return take, first_exit, nxt
            return take, -1, nxt
        length += 1
        prev = nxt_line
        cur = nxt


@kernel
def capture_options(mask, line_boxes, box_lines, s2, s3, buf):
    """Free form, after ``forced_captures``: the moves worth trying when a box can be taken.

    Fills ``buf`` with lines to draw, a decline written as ``-(line + 1)``, and returns
    how many (0 when no box can be taken).  A chain end with no useful decline is
    simply taken.  When every capturable chain may be declined: one chain alone gives
    take or decline; several give one take per chain end, never a decline while
    another chain can still be taken (its boxes are better taken first, and the
    decline kept for the last chain).
    """
    n = 0
    first_take = -1
    first_decline = -1
    first_far = -1
    count = 0
    if s3 == 0:
        return 0
    for b in range(box_lines.shape[0]):
        if (s3 >> b) & 1:
            take, decline, far = chain_end(mask, line_boxes, box_lines, s2, s3, b)
            if decline < 0:
                buf[0] = take
                return 1
            if count == 0:
                first_take = take
                first_decline = decline
                first_far = far
            buf[n] = take
            n += 1
            count += 1
    if count == 0:
        return 0
    if count == 1 or (count == 2 and first_far >= 0):
        buf[0] = first_take
        buf[1] = -(first_decline + 1)
        return 2
    return n


@kernel
def canonical(mask, lut, corners):
    """The smallest line set equivalent to ``mask`` under the board's symmetries and corner swaps,
    with the symmetry that gives it and the corners it swapped (bit k: corner k).

    A corner box's two outer sides both join it to the edge, so which of them is
    drawn does not matter (in Strings-and-Coins both are strings to the ground):
    ``corners[k] = (a, b)`` with a < b, and a set holding b but not a is the same
    position as the one holding a instead.  The corners are mapped onto each other
    by the symmetries, so the least image over symmetries of the corner-normalised
    set is the least of the whole class.
    """
    best = np.int64(-1)
    best_sym = 0
    best_swapped = 0
    for s in range(lut.shape[0]):
        m = np.int64(0)
        for k in range(lut.shape[1]):
            m |= lut[s, k, (mask >> (8 * k)) & 255]
        swapped = 0
        for c in range(corners.shape[0]):
            a = corners[c, 0]
            b = corners[c, 1]
            if (m >> b) & 1 and not (m >> a) & 1:
                m = (m & ~(np.int64(1) << b)) | (np.int64(1) << a)
                swapped |= 1 << c
        if best < 0 or m < best:
            best = m
            best_sym = s
            best_swapped = swapped
    return best, best_sym, best_swapped


@kernel
def _corner_swap(line, swapped, corners):
    for c in range(corners.shape[0]):
        if (swapped >> c) & 1:
            if line == corners[c, 0]:
                return corners[c, 1]
            if line == corners[c, 1]:
                return corners[c, 0]
    return line


@kernel
def to_canonical(line, sym, swapped, perm, corners):
    """Where ``line`` goes when the position is put in its canonical frame."""
    return _corner_swap(perm[sym, line], swapped, corners)


@kernel
def from_canonical(line, sym, swapped, inv, corners):
    """The line of the position that goes to ``line`` of its canonical frame."""
    return inv[sym, _corner_swap(line, swapped, corners)]


@kernel
def creates_capture(line_bits, s2, line):
    """True when drawing ``line`` (completing nothing) leaves a box with three sides."""
    return (s2 & line_bits[line]) != 0


@kernel
def completions(line_bits, s3, line):
    """How many boxes drawing ``line`` completes, from the three-sided plane."""
    return popcount(s3 & line_bits[line])


@kernel
def simple_components(mask, line_boxes, box_lines, dims, s2, s4, chains, loops):
    """If every box not taken has exactly two sides, count its chains and loops by length.

    ``chains[n]`` and ``loops[n]`` are set (zeroed first); returns False, touching
    nothing, when the position is not simple.  A chain runs between two sides on the
    edge of the board; a loop closes on itself.
    """
    if (s2 | s4) != dims[3]:
        return False
    nboxes = box_lines.shape[0]
    seen = s4
    for n in range(chains.shape[0]):
        chains[n] = 0
        loops[n] = 0
    for b in range(nboxes):
        if (seen >> b) & 1:
            continue
        start_line = -1
        for k in range(4):
            line = box_lines[b, k]
            if not (mask >> line) & 1 and across(line_boxes, line, b) < 0:
                start_line = line
                break
        if start_line < 0:
            continue  # not a chain end: left for the loops
        length = 1
        seen |= np.int64(1) << b
        cur = b
        prev = start_line
        while True:
            nl = first_missing(mask, box_lines, cur, prev)
            nxt = across(line_boxes, nl, cur)
            if nxt < 0:
                break
            seen |= np.int64(1) << nxt
            length += 1
            prev = nl
            cur = nxt
        chains[length] += 1
    for b in range(nboxes):
        if (seen >> b) & 1:
            continue
        length = 1
        seen |= np.int64(1) << b
        prev = first_missing(mask, box_lines, b, -1)
        cur = across(line_boxes, prev, b)
        while cur != b:
            seen |= np.int64(1) << cur
            length += 1
            nl = first_missing(mask, box_lines, cur, prev)
            prev = nl
            cur = across(line_boxes, nl, cur)
        loops[length] += 1
    return True


@kernel
def simple_value(chains, loops, must):
    """The value of a position made of separate chains and loops only (every box two sides).

    The player to move must open one.  Must-complete rule: the opponent takes all of
    it and moves on.  Free form: a chain of one or two boxes opened in the middle
    gives them all away (for two boxes, opening at an end would only add the
    opponent's choice to decline); a longer chain gives the opponent the choice of
    taking all and moving on (n + y) or declining the last two (n - 4 - y), wherever
    it is opened; a loop of m gives m + y or declining the last four, m - 8 - y
    (y: the value of the rest for the player to move in it).
    """
    best = -1000
    any_part = False
    for kind in range(2):
        parts = chains if kind == 0 else loops
        for n in range(1, parts.shape[0]):
            if parts[n] == 0:
                continue
            any_part = True
            parts[n] -= 1
            y = simple_value(chains, loops, must)
            parts[n] += 1
            w = n + y
            declined = -1000  # the opponent declining the last two (four of a loop); not a short chain
            if kind == 1:
                declined = n - 8 - y
            elif n >= 3:
                declined = n - 4 - y
            if not must and declined > w:
                w = declined
            if -w > best:
                best = -w
    if not any_part:
        return 0
    return best


@kernel
def check_simple(table, num_lines, must, line_boxes, box_lines, dims):
    """The simple positions (every box taken or two-sided) whose ``simple_value`` is not the table's."""
    bad = []
    size = np.int64(1) << num_lines
    nboxes = box_lines.shape[0]
    count = 0
    for mask in range(size):
        chains = np.zeros(nboxes + 1, dtype=np.int64)
        loops = np.zeros(nboxes + 1, dtype=np.int64)
        s2, _, s4 = planes(np.int64(mask), dims)
        if simple_components(np.int64(mask), line_boxes, box_lines, dims, s2, s4, chains, loops):
            count += 1
            if simple_value(chains, loops, must) != table[mask]:
                bad.append(mask)
    bad.append(-count)
    return bad


#: the fewest lines left at which a node first looks up its children in the table (the default)
ETC_MIN = 18


@kernel
def settle(mask, must, full, line_boxes, box_lines, line_bits, dims, bufs):
    """The captures a node makes before it branches: (line set, boxes gained, capture options, planes).

    ``forced_captures``, then (free form) every chain end with nothing to decline is
    taken, box after box: it has one move.  The options left (0 or at least 2) are in
    ``bufs[lines left]``; the planes (``planes``) are those of the line set returned.
    """
    mask, gained, s2, s3, s4 = forced_captures(mask, must, line_boxes, box_lines, dims)
    count = 0
    if not must:
        while mask != full:
            buf = bufs[_undrawn(mask, full)]
            count = capture_options(mask, line_boxes, box_lines, s2, s3, buf)
            if count != 1:
                break
            gained += completions(line_bits, s3, buf[0])
            mask |= np.int64(1) << buf[0]
            mask, more, s2, s3, s4 = forced_captures(mask, must, line_boxes, box_lines, dims)
            gained += more
            count = 0
    return mask, gained, count, s2, s3, s4


#: entries per bucket of the transposition table (the table size is a multiple of it)
BUCKET = 4
#: int64 words per entry: the canonical line set complemented (``~key``: a word 0 is an empty
#: entry, as no line set is -1, so a table of zeros is empty), then bounds, best line and
#: search size packed
WORDS = 2


@kernel
def _slot(tt, key):
    """The first entry of the key's bucket (a bucket is one 64-byte cache line)."""
    return ((key ^ (key >> 29)) * 0x9E3779B1) & ((tt.shape[0] >> 1) - BUCKET)


@kernel
def probe(tt, key):
    """The table entry holding ``key``, or -1."""
    slot = _slot(tt, key)
    stored = ~key
    for i in range(slot, slot + BUCKET):
        if tt[2 * i] == stored:
            return i
    return -1


@kernel
def entry_bounds(tt, i):
    """The (lower, upper) bound of entry i."""
    data = tt[2 * i + 1]
    return (data & 255) - 128, ((data >> 8) & 255) - 128


@kernel
def entry_move(tt, i):
    """The best line of entry i in the canonical frame, or -1."""
    return ((tt[2 * i + 1] >> 16) & 255) - 1


@kernel
def _entry_work(tt, i):
    return (tt[2 * i + 1] >> 24) & 255


@kernel
def store(tt, i, key, lo, hi, move, work):
    """Write entry i: the key (complemented), then the bounds, best line and search size in one word."""
    tt[2 * i] = ~key
    tt[2 * i + 1] = (lo + 128) | ((hi + 128) << 8) | ((move + 1) << 16) | (work << 24)


@kernel
def _victim(tt, slot):
    """The entry of the bucket to overwrite: the one whose search was smallest."""
    victim = slot
    for i in range(slot + 1, slot + BUCKET):
        if _entry_work(tt, i) < _entry_work(tt, victim):
            victim = i
    return victim


@kernel
def _bit_length(n):
    k = 0
    while n > 0:
        n >>= 1
        k += 1
    return k


@kernel
def search(
    mask,
    alpha,
    beta,
    must,
    full,
    etc_min,
    line_boxes,
    box_lines,
    order,
    lut,
    corners,
    twin,
    perm,
    inv,
    line_bits,
    dims,
    tt,
    stats,
    work,
):
    """``negamax`` on views of the arrays that are not reference-counted (``unowned``)."""
    return negamax(
        mask,
        alpha,
        beta,
        must,
        full,
        etc_min,
        unowned(line_boxes),
        unowned(box_lines),
        unowned(order),
        unowned(lut),
        unowned(corners),
        unowned(twin),
        unowned(perm),
        unowned(inv),
        unowned(line_bits),
        unowned(dims),
        unowned(tt),
        unowned(stats),
        unowned(work),
    )


@kernel
def negamax(
    mask,
    alpha,
    beta,
    must,
    full,
    etc_min,
    line_boxes,
    box_lines,
    order,
    lut,
    corners,
    twin,
    perm,
    inv,
    line_bits,
    dims,
    tt,
    stats,
    work,
):
    """Alpha-beta (fail-soft) value of the line set for the player to move.

    The board's arrays come one by one (``Geometry.arrays``), views that are not
    reference-counted (``search`` makes them); ``tt`` is the transposition table
    (``WORDS`` int64 words per entry: the key, then the lower and upper bound, the
    best move in the canonical frame and the bit length of the nodes its search
    took) in buckets of ``BUCKET`` entries, the smallest search overwritten first,
    and ``work[k, lines left]`` scratch rows (k: capture options, chain counts, loop
    counts, moves).  Forced or safe captures and
    chains with one way to take them are made first (``settle``) and their boxes
    added; the rest is stored under its canonical line set.  Moves: at a chain end that
    may be declined, take or decline, both valued from one rest (``capture_options``);
    otherwise, with ``etc_min`` lines left or more, a child (not a sacrifice) whose
    stored bound already refutes the window; then the table's best move, then every
    line, those that give nothing away nearest the centre first, then the sacrifices.
    """
    stats[0] += 1
    start = stats[0]
    if stats[1] != 0:
        stats[2] = 1
        return 0
    bufs = work[0]
    mask, gained, count, s2, s3, s4 = settle(mask, must, full, line_boxes, box_lines, line_bits, dims, bufs)
    if mask == full:
        return gained
    undrawn = _undrawn(mask, full)
    stats[4 + undrawn] += 1
    a = alpha - gained
    b = beta - gained
    left = popcount(dims[3] & ~s4)
    lo = -left
    hi = left
    key, sym, swapped = canonical(mask, lut, corners)
    slot = _slot(tt, key)
    hit = probe(tt, key)
    hint = -1
    if hit >= 0:
        lo, hi = entry_bounds(tt, hit)
        stored = entry_move(tt, hit)
        if stored >= 0:
            hint = from_canonical(stored, sym, swapped, inv, corners)
    buf = bufs[undrawn]  # one row per depth: lines drawn only grow along a path
    if not must and count == 2 and buf[1] < 0 and lo < 0:
        # A chain end that may be taken or declined: both leave the same lines for
        # the rest, with the other player to move, so the value is |c + y| >= 0
        # (c the boxes at stake, y the rest's value): Berlekamp's loony value.
        lo = 0
    if lo >= b or lo == hi:
        return lo + gained
    if hi <= a:
        return hi + gained
    if lo > a:
        a = lo
    if hi < b:
        b = hi
    a0 = a
    best = -left - 1
    best_line = -1
    done = False
    if count == 0:
        chains = work[1, undrawn]
        loops = work[2, undrawn]
        if simple_components(mask, line_boxes, box_lines, dims, s2, s4, chains, loops):
            best = simple_value(chains, loops, must)
            a0 = -left - 1  # exact: stored as both bounds
            b = left + 1
            done = True
    if not must and count == 2 and buf[1] < 0:
        # Take or decline: both leave the same rest (every box of the chain taken),
        # with the taker to move after taking and the other player after declining.
        take = buf[0]
        decline = -buf[1] - 1
        stake = completions(line_bits, s3, take)
        rest = mask | (np.int64(1) << take)
        _, r3, _ = planes(rest, dims)
        stake += completions(line_bits, r3, decline)
        rest, more, _, _, _ = forced_captures(
            rest | (np.int64(1) << decline), must, line_boxes, box_lines, dims
        )
        stake += more
        best = stake + negamax(
            rest,
            a - stake,
            b - stake,
            must,
            full,
            etc_min,
            line_boxes,
            box_lines,
            order,
            lut,
            corners,
            twin,
            perm,
            inv,
            line_bits,
            dims,
            tt,
            stats,
            work,
        )
        best_line = take
        if best > a:
            a = best
        if a < b:
            v = -stake - negamax(
                rest,
                -b - stake,
                -a - stake,
                must,
                full,
                etc_min,
                line_boxes,
                box_lines,
                order,
                lut,
                corners,
                twin,
                perm,
                inv,
                line_bits,
                dims,
                tt,
                stats,
                work,
            )
            if v > best:
                best = v
                best_line = decline
        done = True
    if not done and count == 0 and undrawn >= etc_min:
        # Enhanced transposition cut-off: a child whose stored bound already refutes
        # the window ends the node before any child is searched.
        for k in range(order.shape[0]):
            line = order[k]
            if (mask >> line) & 1:
                continue
            if twin[line] >= 0 and not (mask >> twin[line]) & 1:
                continue
            if (s2 & line_bits[line]) != 0:
                continue  # a sacrifice: seldom the refutation, and its settling follows chains
            child = mask | (np.int64(1) << line)
            child, cg, _, _, _, _ = settle(child, must, full, line_boxes, box_lines, line_bits, dims, bufs)
            if child == full:
                v = -cg
            else:
                ckey, _, _ = canonical(child, lut, corners)
                h = probe(tt, ckey)
                if h < 0:
                    continue
                chi = entry_bounds(tt, h)[1]
                v = -(chi + cg)
            if v >= b:
                best = v
                best_line = line
                done = True
                break
    if not done:
        # The moves in the order tried; a take (the mover plays again) is written -(line + 1).
        moves = work[3, undrawn]
        n = 0
        for k in range(count):  # several chain ends: take at one of them
            moves[n] = -(buf[k] + 1)
            n += 1
        if count == 0 and hint >= 0 and not (mask >> hint) & 1:
            moves[n] = hint
            n += 1
        for sacrifices in range(2 if count == 0 else 0):
            for k in range(order.shape[0]):
                line = order[k]
                if (mask >> line) & 1 or line == hint:
                    continue
                if twin[line] >= 0 and not (mask >> twin[line]) & 1:
                    continue  # the other outer side of a free corner box gives the same position
                if ((s2 & line_bits[line]) != 0) != (sacrifices == 1):
                    continue  # written out: a call with an array costs a reference count per line
                moves[n] = line
                n += 1
        for i in range(n):
            line = moves[i]
            if line >= 0:
                v = -negamax(
                    mask | (np.int64(1) << line),
                    -b,
                    -a,
                    must,
                    full,
                    etc_min,
                    line_boxes,
                    box_lines,
                    order,
                    lut,
                    corners,
                    twin,
                    perm,
                    inv,
                    line_bits,
                    dims,
                    tt,
                    stats,
                    work,
                )
            else:
                line = -line - 1
                v = 1 + negamax(
                    mask | (np.int64(1) << line),
                    a - 1,
                    b - 1,
                    must,
                    full,
                    etc_min,
                    line_boxes,
                    box_lines,
                    order,
                    lut,
                    corners,
                    twin,
                    perm,
                    inv,
                    line_bits,
                    dims,
                    tt,
                    stats,
                    work,
                )
            if v > best:
                best = v
                best_line = line
                if v > a:
                    a = v
                    if a >= b:
                        break
    if stats[2] != 0:
        return best + gained
    if hit < 0:
        hit = _victim(tt, slot)
    if best <= a0:
        hi = best
    elif best >= b:
        lo = best
    else:
        lo = best
        hi = best
    move = to_canonical(best_line, sym, swapped, perm, corners) if best_line >= 0 else -1
    store(tt, hit, key, lo, hi, move, min(127, _bit_length(stats[0] - start + 1)))
    stats[3] += 1
    return best + gained


@kernel
def _undrawn(mask, full):
    return popcount(full & ~mask)


@kernel
def retrograde(num_lines, must, line_boxes, box_lines):
    """Brute force: the value of every line set, from the full board back to the empty one.

    Every legal move is tried (every undrawn line; under the must-complete rule only
    completing lines when there are any), with no pruning.  Returns an int8 array
    indexed by the line set.
    """
    size = np.int64(1) << num_lines
    value = np.zeros(size, dtype=np.int8)
    for mask in range(size - 2, -1, -1):
        any_capture = False
        if must:
            for line in range(num_lines):
                if not (mask >> line) & 1 and completes(mask, line_boxes, box_lines, line) > 0:
                    any_capture = True
                    break
        best = -128
        for line in range(num_lines):
            if (mask >> line) & 1:
                continue
            k = completes(mask, line_boxes, box_lines, line)
            if any_capture and k == 0:
                continue
            child = mask | (np.int64(1) << line)
            v = k + value[child] if k > 0 else -value[child]
            if v > best:
                best = v
        value[mask] = best
    return value


@kernel
def check_pruning(table, num_lines, must, line_boxes, box_lines, dims):
    """Every line set whose value the solver's move rules get wrong, one step deep.

    For each line set: the forced/safe captures, then the moves the search tries
    (``capture_options`` or every line), each child valued by the brute-force
    ``table``.  Returns the line sets where this differs from the table's value.
    """
    bad = []
    size = np.int64(1) << num_lines
    full = size - 1
    for mask0 in range(size - 1):
        mask, gained, s2, s3, _ = forced_captures(np.int64(mask0), must, line_boxes, box_lines, dims)
        if mask == full:
            v = gained
        else:
            best = -1000
            count = 0
            buf = np.empty(box_lines.shape[0] + 1, dtype=np.int64)
            if not must:
                count = capture_options(mask, line_boxes, box_lines, s2, s3, buf)
            if count > 0:
                for k in range(count):
                    line = buf[k]
                    if line >= 0:
                        w = 1 + table[mask | (np.int64(1) << line)]
                    else:
                        w = -table[mask | (np.int64(1) << (-line - 1))]
                    if w > best:
                        best = w
            else:
                for line in range(num_lines):
                    if not (mask >> line) & 1:
                        w = -table[mask | (np.int64(1) << line)]
                        if w > best:
                            best = w
            v = gained + best
        if v != table[mask0]:
            bad.append(mask0)
    return bad
