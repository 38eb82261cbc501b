"""Brute force: the retrograde analysis of every line set, and the checks built on it."""

from __future__ import annotations

import numpy as np

from ._switch import kernel
from .captures import capture_options, forced_captures
from .lines import completes


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
