"""The alpha-beta search over a board's line sets, with its record of arguments.

Values are net boxes for the player to move, counted over the boxes not yet taken.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._switch import kernel, uncounted_kernel, unowned
from .captures import forced_captures, settle
from .lines import _bit_length, _undrawn, completions, planes, popcount
from .simple import simple_components, simple_value
from .symmetry import canonical, from_canonical, to_canonical
from .table import _slot, _victim, entry_bounds, entry_move, probe, store

#: stats array slots
NODES = 0
STOP = 1  # set to 1 from outside to stop a search (it then returns garbage, and STOPPED is 1)
STOPPED = 2
STORES = 3
HISTOGRAM = 4  # stats[4 + k]: nodes searched with k lines left to draw

#: the fewest lines left at which a node first looks up its children in the table (the default)
ETC_MIN = 18


class Search(NamedTuple):
    """What a search reads besides the line set and its window: the rule, the board's arrays
    (``Geometry.arrays``, in their order), the table, the stats and the scratch rows."""

    must: bool
    full: np.int64  # the line set of every line
    etc_min: np.int64
    line_boxes: np.ndarray
    box_lines: np.ndarray
    order: np.ndarray
    lut: np.ndarray
    corners: np.ndarray
    twin: np.ndarray
    perm: np.ndarray
    inv: np.ndarray
    line_bits: np.ndarray
    dims: np.ndarray
    tt: np.ndarray
    stats: np.ndarray
    work: np.ndarray


@kernel
def search(mask, alpha, beta, s):
    """``negamax`` on a record whose arrays are views that are not reference-counted (``unowned``)."""
    return negamax(
        mask,
        alpha,
        beta,
        Search(
            s.must,
            s.full,
            s.etc_min,
            unowned(s.line_boxes),
            unowned(s.box_lines),
            unowned(s.order),
            unowned(s.lut),
            unowned(s.corners),
            unowned(s.twin),
            unowned(s.perm),
            unowned(s.inv),
            unowned(s.line_bits),
            unowned(s.dims),
            unowned(s.tt),
            unowned(s.stats),
            unowned(s.work),
        ),
    )


@uncounted_kernel  # counting references to the record's arrays would cost more than the node's work
def negamax(mask, alpha, beta, s):
    """Alpha-beta (fail-soft) value of the line set for the player to move.

    ``s`` is the search's ``Search`` record (``search`` makes its arrays views that the
    kernels called do not reference-count either); ``s.tt`` is the transposition table
    (``WORDS`` int64 words per entry: the key, then the lower and upper bound, the best
    move in the canonical frame and the bit length of the nodes its search took) in
    buckets of ``BUCKET`` entries, the smallest search overwritten first, and
    ``s.work[k, lines left]`` scratch rows (k: capture options, chain counts, loop
    counts, moves).  Forced or safe captures and chains with one way to take them are
    made first (``settle``) and their boxes added; the rest is stored under its
    canonical line set.  Moves: at a chain end that may be declined, take or decline,
    both valued from one rest (``capture_options``); otherwise, with ``s.etc_min``
    lines left or more, a child (not a sacrifice) whose stored bound already refutes
    the window; then the table's best move, then every line, those that give nothing
    away nearest the centre first, then the sacrifices.
    """
    s.stats[0] += 1
    start = s.stats[0]
    if s.stats[1] != 0:
        s.stats[2] = 1
        return 0
    bufs = s.work[0]
    mask, gained, count, s2, s3, s4 = settle(
        mask, s.must, s.full, s.line_boxes, s.box_lines, s.line_bits, s.dims, bufs
    )
    if mask == s.full:
        return gained
    undrawn = _undrawn(mask, s.full)
    s.stats[4 + undrawn] += 1
    a = alpha - gained
    b = beta - gained
    left = popcount(s.dims[3] & ~s4)
    lo = -left
    hi = left
    key, sym, swapped = canonical(mask, s.lut, s.corners)
    slot = _slot(s.tt, key)
    hit = probe(s.tt, key)
    hint = -1
    if hit >= 0:
        lo, hi = entry_bounds(s.tt, hit)
        stored = entry_move(s.tt, hit)
        if stored >= 0:
            hint = from_canonical(stored, sym, swapped, s.inv, s.corners)
    buf = bufs[undrawn]  # one row per depth: lines drawn only grow along a path
    if not s.must and count == 2 and buf[1] < 0 and lo < 0:
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
        chains = s.work[1, undrawn]
        loops = s.work[2, undrawn]
        if simple_components(mask, s.line_boxes, s.box_lines, s.dims, s2, s4, chains, loops):
            best = simple_value(chains, loops, s.must)
            a0 = -left - 1  # exact: stored as both bounds
            b = left + 1
            done = True
    if not s.must and count == 2 and buf[1] < 0:
        # Take or decline: both leave the same rest (every box of the chain taken),
        # with the taker to move after taking and the other player after declining.
        take = buf[0]
        decline = -buf[1] - 1
        stake = completions(s.line_bits, s3, take)
        rest = mask | (np.int64(1) << take)
        _, r3, _ = planes(rest, s.dims)
        stake += completions(s.line_bits, r3, decline)
        rest, more, _, _, _ = forced_captures(
            rest | (np.int64(1) << decline), s.must, s.line_boxes, s.box_lines, s.dims
        )
        stake += more
        best = stake + negamax(rest, a - stake, b - stake, s)
        best_line = take
        if best > a:
            a = best
        if a < b:
            v = -stake - negamax(rest, -b - stake, -a - stake, s)
            if v > best:
                best = v
                best_line = decline
        done = True
    if not done and count == 0 and undrawn >= s.etc_min:
        # Enhanced transposition cut-off: a child whose stored bound already refutes
        # the window ends the node before any child is searched.
        for k in range(s.order.shape[0]):
            line = s.order[k]
            if (mask >> line) & 1:
                continue
            if s.twin[line] >= 0 and not (mask >> s.twin[line]) & 1:
                continue
            if (s2 & s.line_bits[line]) != 0:
                continue  # a sacrifice: seldom the refutation, and its settling follows chains
            child = mask | (np.int64(1) << line)
            child, cg, _, _, _, _ = settle(
                child, s.must, s.full, s.line_boxes, s.box_lines, s.line_bits, s.dims, bufs
            )
            if child == s.full:
                v = -cg
            else:
                ckey, _, _ = canonical(child, s.lut, s.corners)
                h = probe(s.tt, ckey)
                if h < 0:
                    continue
                chi = entry_bounds(s.tt, h)[1]
                v = -(chi + cg)
            if v >= b:
                best = v
                best_line = line
                done = True
                break
    if not done:
        # The moves in the order tried; a take (the mover plays again) is written -(line + 1).
        moves = s.work[3, undrawn]
        n = 0
        for k in range(count):  # several chain ends: take at one of them
            moves[n] = -(buf[k] + 1)
            n += 1
        if count == 0 and hint >= 0 and not (mask >> hint) & 1:
            moves[n] = hint
            n += 1
        for sacrifices in range(2 if count == 0 else 0):
            for k in range(s.order.shape[0]):
                line = s.order[k]
                if (mask >> line) & 1 or line == hint:
                    continue
                if s.twin[line] >= 0 and not (mask >> s.twin[line]) & 1:
                    continue  # the other outer side of a free corner box gives the same position
                if ((s2 & s.line_bits[line]) != 0) != (sacrifices == 1):
                    continue  # written out: a call with an array costs a reference count per line
                moves[n] = line
                n += 1
        for i in range(n):
            line = moves[i]
            if line >= 0:
                v = -negamax(mask | (np.int64(1) << line), -b, -a, s)
            else:
                line = -line - 1
                v = 1 + negamax(mask | (np.int64(1) << line), a - 1, b - 1, s)
            if v > best:
                best = v
                best_line = line
                if v > a:
                    a = v
                    if a >= b:
                        break
    if s.stats[2] != 0:
        return best + gained
    if hit < 0:
        hit = _victim(s.tt, slot)
    if best <= a0:
        hi = best
    elif best >= b:
        lo = best
    else:
        lo = best
        hi = best
    move = to_canonical(best_line, sym, swapped, s.perm, s.corners) if best_line >= 0 else -1
    store(s.tt, hit, key, lo, hi, move, min(127, _bit_length(s.stats[0] - start + 1)))
    s.stats[3] += 1
    return best + gained
