"""The Dots-and-Boxes table: its default size from the board and the free memory, made of
fresh zeroed pages, said in ``dots solve --json``; and the status line of a long solve."""

from __future__ import annotations

import io
import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from rich.console import Console

from sprouts_cli import memory
from sprouts_cli.cli import main
from sprouts_cli.cli.dots import SolveProgress
from sprouts_cli.dots import Board, DotsPosition, Solver
from sprouts_cli.dots import solver as dots_solver
from sprouts_cli.dots.solver import ENTRY_BYTES, TABLE_BITS, default_table_bits, table_bytes
from sprouts_cli.errors import LimitError

GB = 2**30


def run(*args: str, **kwargs):
    return CliRunner().invoke(main, list(args), catch_exceptions=False, **kwargs)


def test_the_default_grows_with_the_board_while_memory_allows() -> None:
    plenty = 1 << 50
    sizes = {
        name: default_table_bits(Board.parse(name), plenty) for name in ("1x1", "3x3", "3x4", "4x4", "4x5")
    }
    assert sizes == {"1x1": 16, "3x3": 16, "3x4": 22, "4x4": 31, "4x5": 32}
    board = Board.parse("4x4")
    for free in (0, 1, 10**6, GB, 5 * GB, 16 * GB, 22 * GB, 100 * GB):
        bits = default_table_bits(board, free)
        assert TABLE_BITS[0] <= 16 <= bits <= TABLE_BITS[1]
        if bits > 16:  # a quarter of the free memory holds it, and not the next size up
            assert table_bytes(bits) <= free / 4 < table_bytes(bits + 1)
    assert default_table_bits(board, 16 * GB) == 28  # 4 GB of 16
    assert default_table_bits(board, 16 * GB - 1) == 27
    assert default_table_bits(board, 0) == 16  # never below 1 MB
    assert default_table_bits(Board.parse("3x4"), 16 * GB) == 22  # the board, not the memory


def test_a_fresh_table_is_zeroed_aligned_and_empty() -> None:
    table = dots_solver._table(10)
    assert table.dtype == np.int64 and table.nbytes == table_bytes(10) == ENTRY_BYTES << 10
    assert table.ctypes.data % 64 == 0 and not table.any() and table.flags.writeable
    board = Board.parse("2x2")
    solver = Solver(board, table_bits=10)
    assert solver.value(DotsPosition(board)) == 2
    used = np.count_nonzero(solver.table[0::2])
    assert 0 < used < 1 << 10  # entries written, the rest still zeros (empty)
    keys = ~solver.table[0::2][solver.table[0::2] != 0]  # stored complemented: every key a line set
    assert (keys >= 0).all() and (keys <= board.full).all()


def test_the_solver_sizes_its_table_from_the_free_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory, "free_memory", lambda: GB)
    board = Board.parse("4x4")
    assert Solver(board).table_bits == 24  # 256 MB, a quarter of 1 GB
    assert Solver(board, table_bits=25).table_bits == 25  # given: kept, half the free memory
    with pytest.raises(LimitError, match=r"2\*\*27 entries \(2.0 GB\) does not fit in memory \(1.0 GB free"):
        Solver(board, table_bits=27)


def test_dots_solve_json_says_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory, "free_memory", lambda: 64 * 2**20)
    r = run("dots", "solve", "3x3", "2x2:111111000000", "--json", "-q")
    objs = [json.loads(line) for line in r.output.splitlines()]
    assert r.exit_code == 0 and [o["table_bits"] for o in objs] == [16, 16]
    r = run("dots", "solve", "3x3", "--json", "--table-bits", "12")
    assert json.loads(r.output)["table_bits"] == 12 and json.loads(r.output)["value"] == -3
    r = run("dots", "solve", "4x4", "--time-limit", "0.2", "--json")
    obj = json.loads(r.output)
    assert r.exit_code == 1 and obj["value"] is None and obj["table_bits"] == 20  # 16 MB of 64
    r = run("dots", "solve", "2x2", "--table-bits", "23")  # 128 MB
    assert r.exit_code == 2 and r.output.count("\n") == 1 and "Traceback" not in r.output
    assert r.output.strip() == "error: a table of 2**23 entries (128 MB) does not fit in memory (64 MB free)"


def test_free_memory_reads_the_machine_and_the_control_group(tmp_path: Path, monkeypatch) -> None:
    free = memory.free_memory()
    assert isinstance(free, int) and free >= 0
    assert memory._cgroup_room(tmp_path) is None  # no files: no limit
    (tmp_path / "memory.max").write_text("max\n")
    assert memory._cgroup_room(tmp_path) is None
    (tmp_path / "memory.max").write_text(f"{4 * GB}\n")
    (tmp_path / "memory.current").write_text(f"{GB}\n")
    assert memory._cgroup_room(tmp_path) == 3 * GB
    (tmp_path / "memory.current").write_text(f"{5 * GB}\n")
    assert memory._cgroup_room(tmp_path) == 0
    v1 = tmp_path / "v1"
    (v1 / "memory").mkdir(parents=True)
    (v1 / "memory" / "memory.limit_in_bytes").write_text(str(2**63 - 4096))
    (v1 / "memory" / "memory.usage_in_bytes").write_text(str(GB))
    assert memory._cgroup_room(v1) is None  # v1's "no limit"
    (v1 / "memory" / "memory.limit_in_bytes").write_text(str(2 * GB))
    assert memory._cgroup_room(v1) == GB
    monkeypatch.setattr(memory, "_available", lambda: 8 * GB)
    monkeypatch.setattr(memory, "_cgroup_room", lambda: 3 * GB)
    assert memory.free_memory() == 3 * GB
    monkeypatch.setattr(memory, "_cgroup_room", lambda: None)
    assert memory.free_memory() == 8 * GB
    monkeypatch.setattr(memory, "_available", lambda: None)
    assert memory.free_memory() == memory.UNKNOWN_FREE


class _Searching:
    """A stand-in for a solver whose kernel runs: its node count and bounds, read from outside."""

    def __init__(self) -> None:
        self.stats = np.zeros(4, dtype=np.int64)
        self.bounds = (-9, 9)


def test_a_long_solve_shows_its_status_line_and_a_short_one_nothing(monkeypatch) -> None:
    monkeypatch.setattr(SolveProgress, "DELAY", 0.0)
    monkeypatch.setattr(SolveProgress, "EVERY", 0.01)
    shown = io.StringIO()
    progress = SolveProgress(Console(file=shown, force_terminal=True, width=200), enabled=True)
    solver, position = _Searching(), DotsPosition.parse("3x3")
    with progress.watching(solver, position):
        solver.stats[0] = 12345
        solver.bounds = (-3, 5)
        deadline = time.monotonic() + 10
        while "12,345 nodes" not in shown.getvalue() and time.monotonic() < deadline:
            time.sleep(0.01)
    assert "solving 3x3: 12,345 nodes, the value is in [-3, 5]" in shown.getvalue()
    assert not [t for t in threading.enumerate() if t.name == "dots-progress"]  # the watcher ended

    monkeypatch.setattr(SolveProgress, "DELAY", 60.0)
    quick = io.StringIO()
    with SolveProgress(Console(file=quick, force_terminal=True), enabled=True).watching(solver, position):
        pass  # answered before the delay: no line at all
    assert quick.getvalue() == ""
    off = io.StringIO()
    monkeypatch.setattr(SolveProgress, "DELAY", 0.0)
    with SolveProgress(Console(file=off, force_terminal=True), enabled=False).watching(solver, position):
        time.sleep(0.05)
    assert off.getvalue() == ""


def test_dots_solve_prints_no_status_into_a_pipe_and_takes_quiet() -> None:
    for args in (("3x3",), ("3x3", "-q"), ("3x3", "--quiet", "--json")):
        r = run("dots", "solve", *args)
        assert r.exit_code == 0 and "solving" not in r.output and "-3" in r.output


def test_the_benchmark_compares_the_default_with_given_sizes(capsys, monkeypatch) -> None:
    import importlib.util
    import sys

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_dots.py"
    spec = importlib.util.spec_from_file_location("bench_dots", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    monkeypatch.setattr(
        sys, "argv", ["bench_dots.py", "--boards", "2x2", "--rules", "free", "--compare", "8", "16"]
    )
    assert bench.main() == 0
    rows = capsys.readouterr().out.splitlines()
    assert [r.split()[2:4] for r in rows[2:4]] == [["2**16", "default"], ["2**8", "given"]]
    assert all(r.split()[4] == "2" for r in rows[2:4])  # 2x2 is worth +2 with either table
    assert rows[4].split()[:2] == ["free", "best"] and "the default (2**16, 1 MB)" in rows[4]
