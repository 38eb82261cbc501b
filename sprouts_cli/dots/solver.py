"""Solving Dots-and-Boxes positions: MTD(f) over a fail-soft alpha-beta with a transposition table.

The value of a position is the net number of the boxes not yet taken that the
player to move gets with best play (a box taken adds one for its taker; drawing a
line that completes a box gives another move).  Two rules: the free form (a player
may decline a box) and the must-complete form (Holladay 1966: a player who can
complete a box must).

The search (``_kernels.negamax``, compiled by numba):

* captures that cannot be wrong are made at once: under the must-complete rule all
  of them (they are forced and their result does not depend on the order); in the
  free form a box whose last side does not open a further box, and a chain end with
  nothing worth declining;
* at the end of a chain or an opened loop, the free form tries only taking the box
  and the all-but-two / all-but-four decline, both valued from the one rest they leave;
* the transposition table keeps a lower and an upper bound per line set, keyed by
  the smallest image of the line set under the board's 4 (or 8) symmetries, in
  buckets of four where the smallest search gives way; a node with many lines left
  first looks its children up (enhanced transposition cut-off);
* moves are tried nearest the centre first, those that give no box away before the
  sacrifices; MTD(f) narrows the value by null-window searches that share the table.

The brute-force ``retrograde`` analysis (every line set, every legal move, no
pruning) is the reference the tests compare it with.
"""

from __future__ import annotations

import contextlib
import importlib.util
import mmap
import sys
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import ModuleType

import numpy as np

from .. import memory
from ..errors import LimitError, OutOfTime
from ..procs import run_stoppable
from . import _kernels
from .board import Board, DotsPosition


@dataclass(frozen=True)
class Geometry:
    """The board as the arrays the kernels read."""

    board: Board
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

    @property
    def arrays(self) -> tuple:
        """What the search kernel reads, in its order."""
        return (
            self.line_boxes,
            self.box_lines,
            self.order,
            self.lut,
            self.corners,
            self.twin,
            self.perm,
            self.inv,
            self.line_bits,
            self.dims,
        )

    @property
    def shape(self) -> tuple:
        """What the capture and chain kernels read: (line_boxes, box_lines, dims)."""
        return (self.line_boxes, self.box_lines, self.dims)

    @classmethod
    def of(cls, board: Board) -> Geometry:
        return _geometry(board)


@cache
def _geometry(board: Board) -> Geometry:
    n = board.num_lines
    line_boxes = np.full((n, 2), -1, dtype=np.int64)
    for line, boxes in enumerate(board.line_boxes):
        line_boxes[line, : len(boxes)] = boxes
    box_lines = np.array([board.box_lines(b) for b in range(board.num_boxes)], dtype=np.int64)
    order = np.array(board.centre_first, dtype=np.int64)
    chunks = (n + 7) // 8
    lut = np.zeros((len(board.symmetries), chunks, 256), dtype=np.int64)
    perm: tuple[int, ...] | np.ndarray  # one symmetry in the loop, then all of them as one array
    for s, perm in enumerate(board.symmetries):
        for k in range(chunks):
            for byte in range(256):
                image = 0
                for bit in range(8):
                    line = 8 * k + bit
                    if byte >> bit & 1 and line < n:
                        image |= 1 << perm[line]
                lut[s, k, byte] = image
    corners = np.array(board.corner_pairs, dtype=np.int64).reshape(-1, 2)
    twin = np.full(n, -1, dtype=np.int64)
    for a, b in board.corner_pairs:
        twin[b] = a
    perm = np.array(board.symmetries, dtype=np.int64)
    inv = np.argsort(perm, axis=1).astype(np.int64)
    line_bits = np.array([sum(1 << b for b in boxes) for boxes in board.line_boxes], dtype=np.int64)
    dims = np.array(
        [board.rows, board.cols, board.num_horizontal, (1 << board.num_boxes) - 1], dtype=np.int64
    )
    return Geometry(board, line_boxes, box_lines, order, lut, corners, twin, perm, inv, line_bits, dims)


def pure_kernels():
    """A second copy of the ``_kernels`` package, run as plain Python (the reference for the compiled one)."""
    return _pure_kernels()


@cache
def _pure_kernels():
    name = "sprouts_cli.dots._kernels_pure"
    path = Path(_kernels.__file__)
    spec = importlib.util.spec_from_file_location(name, path, submodule_search_locations=[str(path.parent)])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    module.FORCE_PURE = True
    sys.modules[name] = module  # its modules import each other by relative imports
    spec.loader.exec_module(module)
    return module


@dataclass(frozen=True)
class Step:
    """One null-window search of MTD(f): is the value at least ``beta``?

    ``value`` is the fail-soft answer (at least ``beta``: a lower bound; below it: an
    upper bound), None when the search was stopped; ``nodes`` and ``cpu`` its cost
    (CPU seconds of the whole process).
    """

    beta: int
    value: int | None
    nodes: int
    cpu: float


@dataclass
class Result:
    """A solved position: its value, the moves achieving it (when asked), and the cost."""

    position: DotsPosition
    must_complete: bool
    value: int
    best_moves: list[int] | None
    seconds: float
    nodes: int


#: bytes per entry of the transposition table: the key, then bounds, best line and search size in one word
ENTRY_BYTES = 8 * _kernels.WORDS
#: the table sizes allowed, as powers of two (16 entries to 2**32, 64 GB)
TABLE_BITS = (4, 32)
#: the default table is never smaller than this (2**16 entries: 1 MB)
DEFAULT_LEAST_BITS = 16
#: the default table is 2**(lines - BOARD_LINES_OVER) entries at most: the search is fastest
#: with a table some 5 to 20 times the entries it fills, and a larger one only costs the pages
#: it touches (``bench_dots.py --compare``)
BOARD_LINES_OVER = 9
#: the share of the free memory the default table may take (the rest: the process, the others)
MEMORY_SHARE = 0.25


def default_table_bits(board: Board, free_memory: int) -> int:
    """The table's default size, as a power of two: grown with the board (2**(lines - 9)
    entries) while it fits in a quarter of ``free_memory`` (bytes), never below 2**16.

    The search slows down as the table fills (positions searched again), and a table
    much larger than the search needs costs the pages it touches; so 3x3 gets 2**16
    entries (1 MB), 3x4 2**22 (64 MB), and 4x4 as much as a quarter of the free memory
    holds, up to 2**31 (2**28, 4 GB, from 16 GB free).
    """
    by_board = board.num_lines - BOARD_LINES_OVER
    by_memory = (int(free_memory * MEMORY_SHARE) // ENTRY_BYTES).bit_length() - 1
    return max(DEFAULT_LEAST_BITS, min(by_board, by_memory, TABLE_BITS[1]))


def table_bytes(bits: int) -> int:
    """The memory a table of 2**bits entries takes."""
    return ENTRY_BYTES << bits


def _size(size: int) -> str:
    """A size of memory for people: MB below a GB, else GB."""
    return f"{size / 2**20:.0f} MB" if size < 2**30 else f"{size / 2**30:.1f} GB"


def _table(bits: int, free_memory: int | None = None) -> np.ndarray:
    """A transposition table of 2**bits entries, all empty; ``LimitError`` for a size out of
    range, past ``free_memory`` (bytes, when given), or refused by the system.

    ``_kernels.WORDS`` int64 words per entry, starting on a page boundary so that each
    bucket of ``_kernels.BUCKET`` entries is one 64-byte cache line.  An entry of zeros is
    empty (the kernels store the key complemented), so the table is fresh zeroed memory
    from the system (``_zeroed``): nothing is written to make it, and only the pages the
    search touches are ever given to the process.
    """
    low, high = TABLE_BITS
    if not isinstance(bits, int) or not low <= bits <= high:
        raise LimitError(f"a table of 2**{bits} entries: the size must be 2**{low} to 2**{high}")
    if free_memory is not None and table_bytes(bits) > free_memory:
        raise LimitError(
            f"a table of 2**{bits} entries ({_size(table_bytes(bits))}) does not fit in memory "
            f"({_size(free_memory)} free)"
        )
    try:
        return _zeroed(table_bytes(bits))
    except (MemoryError, OSError, OverflowError):
        raise LimitError(
            f"a table of 2**{bits} entries ({_size(table_bytes(bits))}) does not fit in memory"
        ) from None


def _zeroed(size: int) -> np.ndarray:
    """``size`` bytes of zeros as int64 words: an anonymous mapping, its pages given by the
    system as they are first touched, asked to be huge pages (a first touch of a 4 KB page
    costs tens of microseconds in a virtual machine, and a search touches them at random)."""
    buf = mmap.mmap(-1, size)
    with contextlib.suppress(AttributeError, OSError):  # no madvise, or no huge pages here
        buf.madvise(mmap.MADV_HUGEPAGE)
    return np.frombuffer(buf, dtype=np.int64)


@dataclass
class Solver:
    """A solver for one board and rule, keeping its transposition table between questions.

    ``table_bits`` sets the table to 2**bits entries of 16 bytes (``TABLE_BITS`` is the
    range allowed; ``LimitError`` out of it or past the free memory); by default it is
    sized from the board and the free memory (``default_table_bits``), as the search
    depends on it once the table is full.  ``pure`` runs
    the plain-Python copy of the kernels instead of the compiled one.  ``etc_min``:
    the fewest lines left at which a node looks its children up in the table first
    (enhanced transposition cut-off).
    """

    board: Board
    must_complete: bool = False
    table_bits: int | None = None
    pure: bool = False
    etc_min: int = _kernels.ETC_MIN
    nodes: int = 0
    steps: list[Step] = field(default_factory=list)  # the null-window searches of the last ``value``
    #: what the last ``value`` proved so far: the value lies in [lo, hi] (kept when it is interrupted)
    bounds: tuple[int, int] | None = None
    _k: ModuleType = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.geometry = Geometry.of(self.board)
        free = memory.free_memory()
        if self.table_bits is None:
            self.table_bits = default_table_bits(self.board, free)
        self.table = _table(self.table_bits, free)
        self.stats = np.zeros(4 + 64, dtype=np.int64)
        rows, width = self.board.num_lines + 1, self.board.num_lines + 1
        self.work = np.zeros((4, rows, width), dtype=np.int64)
        self._k = pure_kernels() if self.pure else _kernels

    # ------------------------------------------------------------ the kernel

    def _search(self, lines: int, alpha: int, beta: int, deadline: float | None = None) -> int:
        """One null-window search; stopped at ``deadline`` (``time.monotonic``) if given, and at
        once by Ctrl-C or SIGTERM (``procs.run_stoppable``: the search polls its stop flag)."""
        record = self._k.Search(
            self.must_complete,
            np.int64(self.board.full),
            np.int64(self.etc_min),
            *self.geometry.arrays,
            self.table,
            self.stats,
            self.work,
        )
        args = (np.int64(lines), np.int64(alpha), np.int64(beta), record)
        if self.pure and deadline is None:  # plain Python: a signal raises where it lands
            return int(self._k.search(*args))
        return int(run_stoppable(lambda: self._k.search(*args), self._stop, deadline))

    def _stop(self) -> None:
        self.stats[_kernels.STOP] = 1

    # ------------------------------------------------------------ questions

    def value(self, position: DotsPosition, time_limit: float | None = None) -> int:
        """The value by MTD(f); raises ``OutOfTime`` with the bounds proved when the limit is hit."""
        self._check(position)
        left = position.boxes_left
        lo, hi = -left, left
        start_nodes = int(self.stats[0])
        started = time.monotonic()
        deadline = None if time_limit is None else started + time_limit
        guess = 0
        self.steps = []
        self.bounds = (lo, hi)
        while lo < hi:
            beta = max(guess, lo + 1)
            step_nodes, step_cpu = int(self.stats[0]), time.process_time()
            self.stats[_kernels.STOP] = self.stats[_kernels.STOPPED] = 0
            v = self._search(position.lines, beta - 1, beta, deadline)
            self.steps.append(
                Step(
                    beta,
                    v if not self.stats[_kernels.STOPPED] else None,
                    int(self.stats[0]) - step_nodes,
                    time.process_time() - step_cpu,
                )
            )
            if self.stats[_kernels.STOPPED]:
                self.nodes += int(self.stats[0]) - start_nodes
                nodes, seconds = int(self.stats[0]) - start_nodes, time.monotonic() - started
                raise OutOfTime(
                    f"out of time after {seconds:.1f} s and {nodes} nodes; the value is in [{lo}, {hi}]",
                    (lo, hi),
                    nodes,
                    seconds,
                )
            assert v is not None
            guess = v
            if v < beta:
                hi = v
            else:
                lo = v
            self.bounds = (lo, hi)
        self.nodes += int(self.stats[0]) - start_nodes
        return lo

    def move_value_at_least(self, position: DotsPosition, line: int, target: int) -> bool:
        """Does drawing ``line`` give the mover at least ``target``?"""
        child, gained = position.play(line)
        if gained:
            need = target - gained
            return self._search(child.lines, need - 1, need) >= need
        return self._search(child.lines, -target, -target + 1) <= -target

    def best_moves(self, position: DotsPosition, value: int) -> list[int]:
        """Every legal line whose value is ``value`` (the position's value)."""
        self.stats[_kernels.STOP] = self.stats[_kernels.STOPPED] = 0
        before = int(self.stats[0])
        moves = [
            line
            for line in position.legal_lines(self.must_complete)
            if self.move_value_at_least(position, line, value)
        ]
        self.nodes += int(self.stats[0]) - before
        return moves

    def solve(self, position: DotsPosition, moves: bool = False, time_limit: float | None = None) -> Result:
        started = time.perf_counter()
        before = self.nodes
        value = self.value(position, time_limit)
        best = self.best_moves(position, value) if moves else None
        return Result(
            position, self.must_complete, value, best, time.perf_counter() - started, self.nodes - before
        )

    def _check(self, position: DotsPosition) -> None:
        if position.board != self.board:
            raise ValueError(f"this solver is for {self.board} boards, not {position.board}")


def retrograde(board: Board, must_complete: bool = False, pure: bool = False) -> np.ndarray:
    """Brute force: the value of every line set of a small board (an int8 array indexed by the set)."""
    if board.num_lines > 26:
        raise ValueError(f"the brute-force table of a {board} board would have 2**{board.num_lines} entries")
    g = Geometry.of(board)
    k = pure_kernels() if pure else _kernels
    return k.retrograde(np.int64(board.num_lines), must_complete, g.line_boxes, g.box_lines)


def solve(position: DotsPosition, must_complete: bool = False, moves: bool = False) -> Result:
    """One position, with a fresh solver."""
    return Solver(position.board, must_complete).solve(position, moves)
