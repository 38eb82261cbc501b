"""The solver's hot loops, compiled by numba (``cache=True``) or run as plain Python.

Everything here works on line sets as ints (bit i = line i, OpenSpiel's order) and
on small integer arrays describing the board (``solver.Geometry`` makes them):

* ``line_boxes[i]``: the one or two boxes line i is a side of (-1 pads);
* ``box_lines[b]``: the four lines of box b;
* ``order``: the lines, nearest the centre first (the move ordering);
* ``lut[s, k, byte]``: symmetry s applied to byte k of a line set, for canonical keys;
* ``line_bits[i]``: the boxes of line i as a box set (bit b = box b);
* ``dims``: (R, C, the index of the first vertical line, the set of all boxes).

Sides of boxes are counted bit-parallel (``planes``): the boxes with two, three and
four sides drawn come out as three box sets from a few shifts of the line set.

The modules, each using the ones before it: ``_switch`` (compiled or plain),
``lines`` (counting sides), ``symmetry`` (canonical keys), ``table`` (the
transposition table), ``captures`` (the captures before a branch), ``simple``
(chains and loops only), ``search`` (the alpha-beta search and its ``Search``
record), ``brute`` (the retrograde analysis and the checks against it).

The same source runs uncompiled as the reference the tests compare against: with
``SPROUTS_PURE_PYTHON=1``, or as the copy of this package ``solver.pure_kernels()``
loads (a package whose global ``FORCE_PURE`` is set before its code runs).

Values are net boxes for the player to move, counted over the boxes not yet taken.
"""

from __future__ import annotations

from ._switch import kernel, unowned
from .brute import check_pruning, retrograde
from .captures import capture_options, chain_end, forced_captures, settle
from .lines import across, completes, completions, creates_capture, first_missing, planes, popcount, sides
from .search import ETC_MIN, HISTOGRAM, NODES, STOP, STOPPED, STORES, Search, negamax, search
from .simple import check_simple, simple_components, simple_value
from .symmetry import canonical, from_canonical, to_canonical
from .table import BUCKET, WORDS, entry_bounds, entry_move, probe, store

__all__ = [
    "BUCKET",
    "ETC_MIN",
    "HISTOGRAM",
    "NODES",
    "STOP",
    "STOPPED",
    "STORES",
    "WORDS",
    "Search",
    "across",
    "canonical",
    "capture_options",
    "chain_end",
    "check_pruning",
    "check_simple",
    "completes",
    "completions",
    "creates_capture",
    "entry_bounds",
    "entry_move",
    "first_missing",
    "forced_captures",
    "from_canonical",
    "kernel",
    "negamax",
    "planes",
    "popcount",
    "probe",
    "retrograde",
    "search",
    "settle",
    "sides",
    "simple_components",
    "simple_value",
    "store",
    "to_canonical",
    "unowned",
]
