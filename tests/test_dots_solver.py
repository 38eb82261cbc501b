"""The Dots-and-Boxes solver against brute force, in both rules.

The reference is the retrograde analysis (every line set, every legal move, no
pruning), itself checked against a plain recursive minimax on the smallest boards.
"""

from __future__ import annotations

import random
from functools import cache

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sprouts_cli.dots import Board, DotsPosition, Solver, retrograde
from sprouts_cli.dots import _kernels as K
from sprouts_cli.dots.solver import Geometry, pure_kernels

RULES = [False, True]
SMALL = ["1x1", "1x2", "2x1", "1x3", "2x2"]


def minimax(board: Board, must: bool):
    """Plain recursive minimax on positions, the rules as ``DotsPosition`` states them."""

    @cache
    def value(lines: int) -> int:
        p = DotsPosition(board, lines)
        if p.finished:
            return 0
        best = -100
        for line in p.legal_lines(must):
            child, gained = p.play(line, must)
            best = max(best, gained + value(child.lines) if gained else -value(child.lines))
        return best

    return value


@pytest.mark.parametrize("must", RULES)
@pytest.mark.parametrize("name", SMALL)
def test_retrograde_is_minimax(name: str, must: bool) -> None:
    board = Board.parse(name)
    table = retrograde(board, must)
    value = minimax(board, must)
    assert all(table[m] == value(m) for m in range(board.full + 1))


@pytest.mark.parametrize("must", RULES)
def test_compiled_and_plain_retrograde_agree(must: bool) -> None:
    board = Board(2, 2)
    assert np.array_equal(retrograde(board, must), retrograde(board, must, pure=True))


BOARDS = st.sampled_from(["1x1", "1x3", "2x2", "2x3", "3x2", "3x4", "4x4", "4x5", "5x5", "2x9"])


@given(BOARDS, st.randoms(use_true_random=False))
def test_bit_parallel_side_counts_are_the_box_by_box_counts(name: str, rng: random.Random) -> None:
    """``planes`` (compiled and plain) against counting each box's drawn sides, and ``popcount``."""
    board = Board.parse(name)
    g = Geometry.of(board)
    lines = rng.getrandbits(board.num_lines) & rng.getrandbits(board.num_lines) | rng.getrandbits(
        board.num_lines
    )
    p = DotsPosition(board, lines)
    expected = tuple(sum(1 << b for b in range(board.num_boxes) if p.sides(b) == k) for k in (2, 3, 4))
    for kernels in (K, pure_kernels()):
        assert tuple(int(x) for x in kernels.planes(np.int64(lines), g.dims)) == expected
        assert kernels.popcount(np.int64(lines)) == lines.bit_count()


def _pruning_errors(board: Board, must: bool) -> list[int]:
    g = Geometry.of(board)
    table = retrograde(board, must)
    return list(K.check_pruning(table, np.int64(board.num_lines), must, *g.shape))


@pytest.mark.parametrize("must", RULES)
@pytest.mark.parametrize("name", [*SMALL, "2x3", "1x5"])
def test_the_search_rules_lose_nothing_on_every_position(name: str, must: bool) -> None:
    """Safe/forced captures and the take-or-decline choice, one step deep, on every line set."""
    assert _pruning_errors(Board.parse(name), must) == []


@pytest.mark.slow
@pytest.mark.parametrize("must", RULES)
@pytest.mark.parametrize("name", ["3x3", "2x4"])
def test_the_search_rules_lose_nothing_on_every_position_of_larger_boards(name: str, must: bool) -> None:
    assert _pruning_errors(Board.parse(name), must) == []


def _simple_errors(board: Board, must: bool) -> tuple[int, list[int]]:
    g = Geometry.of(board)
    table = retrograde(board, must)
    found = list(K.check_simple(table, np.int64(board.num_lines), must, *g.shape))
    return -found[-1], found[:-1]


@pytest.mark.parametrize("must", RULES)
@pytest.mark.parametrize("name", ["2x2", "2x3", "1x5"])
def test_chains_and_loops_are_valued_exactly(name: str, must: bool) -> None:
    """Every position made only of separate chains and loops: the formula is the brute force."""
    count, wrong = _simple_errors(Board.parse(name), must)
    assert count > 100 and wrong == []


@pytest.mark.slow
@pytest.mark.parametrize("must", RULES)
def test_chains_and_loops_are_valued_exactly_on_3x3(must: bool) -> None:
    count, wrong = _simple_errors(Board(3, 3), must)
    assert count == 11929 and wrong == []


def _solver_agrees_everywhere(name: str, must: bool, step: int = 1) -> None:
    board = Board.parse(name)
    table = retrograde(board, must)
    solver = Solver(board, must, table_bits=16)
    wrong = [m for m in range(0, board.full + 1, step) if solver.value(DotsPosition(board, m)) != table[m]]
    assert wrong == []


@pytest.mark.parametrize("must", RULES)
@pytest.mark.parametrize("name", SMALL)
def test_solver_on_every_position_of_small_boards(name: str, must: bool) -> None:
    _solver_agrees_everywhere(name, must)


@pytest.mark.parametrize("must", RULES)
def test_solver_on_positions_of_2x3(must: bool) -> None:
    _solver_agrees_everywhere("2x3", must, step=97)


@pytest.mark.slow
@pytest.mark.parametrize("must", RULES)
@pytest.mark.parametrize("name", ["2x3", "3x2", "1x6"])
def test_solver_on_every_position_of_2x3(name: str, must: bool) -> None:
    _solver_agrees_everywhere(name, must)


@pytest.mark.parametrize("etc_min", [0, 99])
@pytest.mark.parametrize("must", RULES)
def test_the_enhanced_cut_off_everywhere_or_nowhere_changes_no_value(must: bool, etc_min: int) -> None:
    """The children looked up first at every node (0) or at none (99), on positions of 2x3 and 3x3."""
    for name, step in (("2x3", 89), ("3x3", 4_000_037)):
        board = Board.parse(name)
        table = retrograde(board, must) if name == "2x3" else None
        solver = Solver(board, must, table_bits=14, etc_min=etc_min)
        for lines in range(0, board.full + 1, step):
            p = DotsPosition(board, lines)
            if table is not None:
                assert solver.value(p) == table[lines]
            else:
                assert solver.value(p) == Solver(board, must, table_bits=14).value(p)
    empty = DotsPosition(Board(3, 3))
    assert solver.value(empty) == -3


@pytest.mark.parametrize("must", RULES)
def test_compiled_and_plain_search_agree(must: bool) -> None:
    board = Board(2, 3)
    table = retrograde(board, must)
    fast = Solver(board, must, table_bits=12)
    plain = Solver(board, must, table_bits=12, pure=True)
    rng = random.Random(7)
    for _ in range(12):
        lines = rng.getrandbits(board.num_lines) & rng.getrandbits(
            board.num_lines
        )  # mid-game: about 1/4 drawn
        p = DotsPosition(board, lines)
        assert fast.value(p) == plain.value(p) == table[lines]
    assert pure_kernels().negamax is not K.negamax


@pytest.mark.parametrize("must", RULES)
def test_best_moves_are_exactly_the_moves_achieving_the_value(must: bool) -> None:
    board = Board(2, 3)
    table = retrograde(board, must)
    solver = Solver(board, must, table_bits=16)
    rng = random.Random(3)
    for _ in range(40):
        p = DotsPosition(board, rng.getrandbits(board.num_lines) & rng.getrandbits(board.num_lines))
        if p.finished:
            continue
        v = solver.value(p)
        expected = []
        for line in p.legal_lines(must):
            child, gained = p.play(line, must)
            if (gained + table[child.lines] if gained else -table[child.lines]) == v:
                expected.append(line)
        assert solver.best_moves(p, v) == expected


# Published values of the empty boards (Wilson; Barker and Korf), player to move.
FREE = {"1x1": -1, "2x2": 2, "2x3": -2, "3x3": -3, "3x4": 0}
MUST = {"1x1": -1, "2x2": 2, "2x3": -2, "3x3": -3, "3x4": -2}


@pytest.mark.parametrize("must", RULES)
@pytest.mark.parametrize("name", ["1x1", "2x2", "2x3", "3x3"])
def test_empty_boards(name: str, must: bool) -> None:
    board = Board.parse(name)
    assert Solver(board, must).value(DotsPosition(board)) == (MUST if must else FREE)[name]
    assert (
        Solver(Board(board.cols, board.rows), must).value(DotsPosition(Board(board.cols, board.rows)))
        == (MUST if must else FREE)[name]
    )


@pytest.mark.slow
@pytest.mark.parametrize("must", RULES)
def test_empty_3x4(must: bool) -> None:
    board = Board(3, 4)
    assert Solver(board, must).value(DotsPosition(board)) == (MUST if must else FREE)["3x4"]


def test_the_rules_differ_in_mid_game() -> None:
    board = Board(2, 3)
    free, must = retrograde(board, False), retrograde(board, True)
    differ = int(np.count_nonzero(free != must))
    assert differ > 1000  # of 131,072 positions
    assert np.any(free > must) and np.any(free < must)  # either side may gain from declining


def test_a_stopped_search_raises_the_package_out_of_time_with_its_bounds() -> None:
    from sprouts_cli.errors import OutOfTime, SolveAborted

    board = Board(4, 4)
    with pytest.raises(OutOfTime) as stopped:
        Solver(board, table_bits=16).value(DotsPosition(board), time_limit=0.2)
    lo, hi = stopped.value.bounds or (1, 0)
    assert isinstance(stopped.value, SolveAborted) and -16 <= lo <= 0 <= hi <= 16
    assert stopped.value.nodes > 0 and f"[{lo}, {hi}]" in str(stopped.value)


def test_every_compiled_kernel_is_cached_under_the_stamp_of_all_the_kernel_modules() -> None:
    # a kernel holds the code of the kernels it calls, which live in the other modules
    from sprouts_cli.dots._kernels import _switch

    if _switch._PURE:
        pytest.skip("plain Python: nothing is compiled")
    stamp = _switch.package_stamp()
    assert {name for name, _, _ in stamp} >= {"search.py", "captures.py", "table.py"}
    for k in (K.search, K.negamax, K.settle, K.probe, K.retrograde, K.unowned):
        assert k._cache._impl.locator.get_source_stamp()[1] == _switch.STAMP == repr(stamp)
