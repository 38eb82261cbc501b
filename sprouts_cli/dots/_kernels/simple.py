"""Positions of separate chains and loops only: their components and exact value."""

from __future__ import annotations

import numpy as np

from ._switch import kernel
from .lines import across, first_missing, planes


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
