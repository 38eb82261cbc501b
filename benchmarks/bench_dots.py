"""Time and nodes of the Dots-and-Boxes solver on empty boards, in both rules.

For each board and rule: the value found (or the bounds proved when the time limit
stops the search), wall-clock and CPU seconds, nodes searched and nodes per second.
A fresh solver (and table) per run, so nothing is carried from one run to the next.
Boards whose search is stopped get a projection: the nodes of the finished runs grow
by a steady factor per line of the board, and that factor and the measured node rate
give a projected time (a rough guide: the growth is not truly steady).

    python benchmarks/bench_dots.py                        # 3x3, 3x4, 4x4, 60 s each at most
    python benchmarks/bench_dots.py --time-limit 1800      # the 30-minute goal for 4x4
    python benchmarks/bench_dots.py --boards 4x5 --time-limit 600   # the moonshot
    python benchmarks/bench_dots.py --boards 4x4 --table-bits 28    # a 4 GB table
    python benchmarks/bench_dots.py --boards 3x4 --compare 16 19 22 26   # the default against these

``--compare BITS…`` runs each board and rule with the default table (sized from the
board and the free memory: ``default_table_bits``) and then with each table size
given, and prints one table of them: wall and CPU seconds, nodes, the table's entries
used, each run's CPU time against the default's, and the best run of each board and
rule with the default's CPU time against it.

The recorded figures are in ``docs/performance.md`` ("Dots-and-Boxes").
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sprouts_cli.dots import Board, DotsPosition, OutOfTime, Solver
from sprouts_cli.dots.solver import default_table_bits, table_bytes
from sprouts_cli.memory import free_memory


def run(board: Board, must: bool, limit: float, bits: int | None) -> dict:
    solver = Solver(board, must, table_bits=bits)
    solver.value(DotsPosition(board, board.full & ~1))  # one line left: compiles (or loads) the kernels
    solver.nodes = 0
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        value: object = solver.value(DotsPosition(board), time_limit=limit)
        done = True
    except OutOfTime as e:
        value = f"in [{e.bounds[0]}, {e.bounds[1]}]"
        done = False
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {
        "board": board,
        "must": must,
        "value": value,
        "done": done,
        "wall": wall,
        "cpu": cpu,
        "nodes": solver.nodes,
        "bits": solver.table_bits,
        "steps": list(solver.steps),
        "touched": int(np.count_nonzero(solver.table[0::2])),
    }


def compare(args: argparse.Namespace) -> int:
    """The default table against the sizes of ``--compare``, board by board and rule by rule.

    The default runs first; each row is printed as its run ends, with its CPU time
    against the default's, and each board and rule ends with the best run and the
    default's CPU time against it.
    """
    free = free_memory()
    print(
        f"Dots-and-Boxes, empty boards, one core, {args.time_limit:g} s at most per run; "
        f"free memory {free / 2**30:.1f} GB"
    )
    print(
        f"{'board':<6} {'rule':<14} {'table':<16} {'value':>12} {'wall s':>8} {'cpu s':>8} "
        f"{'nodes':>13} {'entries used':>13} {'/ default':>9}"
    )
    for name in args.boards:
        board = Board.parse(name)
        default = default_table_bits(board, free)
        sizes: list[int | None] = [None, *(b for b in args.compare if b != default)]
        for rule in args.rules:
            rows = []
            for bits in sizes:
                r = run(board, rule == "must-complete", args.time_limit, bits)
                rows.append(r)
                base = rows[0]
                label = f"2**{r['bits']} " + ("default" if bits is None else "given")
                ratio = f"{r['cpu'] / base['cpu']:9.2f}" if r["done"] and base["done"] else f"{'-':>9}"
                print(
                    f"{name:<6} {rule:<14} {label:<16} {r['value']!s:>12} {r['wall']:8.2f} {r['cpu']:8.2f} "
                    f"{r['nodes']:13,d} {r['touched']:13,d} {ratio}",
                    flush=True,
                )
            finished = [r for r in rows if r["done"]]
            if finished and rows[0]["done"]:
                best = min(finished, key=lambda r: r["cpu"])
                print(
                    f"{'':<6} {rule:<14} best 2**{best['bits']}; the default (2**{default}, "
                    f"{table_bytes(default) / 2**20:,.0f} MB) takes x{rows[0]['cpu'] / best['cpu']:.2f} "
                    "its CPU time",
                    flush=True,
                )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", nargs="+", default=["3x3", "3x4", "4x4"])
    parser.add_argument(
        "--rules", nargs="+", choices=("free", "must-complete"), default=["free", "must-complete"]
    )
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per run (default 60)")
    parser.add_argument(
        "--table-bits", type=int, help="table of 2**bits entries of 16 bytes (default: by board)"
    )
    parser.add_argument(
        "--steps", action="store_true", help="a line per null-window search of MTD(f): its answer and cost"
    )
    parser.add_argument(
        "--compare",
        type=int,
        nargs="+",
        metavar="BITS",
        help="the default table against tables of 2**BITS entries: one table of every run",
    )
    args = parser.parse_args()
    if args.compare:
        return compare(args)
    print(
        f"Dots-and-Boxes, empty boards, one core, {args.time_limit:g} s at most per run, "
        f"table 2**{args.table_bits or 'auto'}"
    )
    print(
        f"{'board':<6} {'rule':<14} {'value':>12} {'wall s':>8} {'cpu s':>8} {'nodes':>13} {'nodes/s':>10} "
        "table"
    )
    results = []
    for name in args.boards:
        board = Board.parse(name)
        for rule in args.rules:
            r = run(board, rule == "must-complete", args.time_limit, args.table_bits)
            results.append(r)
            rate = r["nodes"] / r["cpu"] if r["cpu"] > 0 else 0
            print(
                f"{name:<6} {rule:<14} {r['value']!s:>12} {r['wall']:8.2f} {r['cpu']:8.2f} "
                f"{r['nodes']:13,d} {rate:10,.0f} 2**{r['bits']}",
                flush=True,
            )
            if args.steps:
                for step in r["steps"]:
                    answer = (
                        "stopped"
                        if step.value is None
                        else f">= {step.value}"
                        if step.value >= step.beta
                        else f"<= {step.value}"
                    )
                    print(
                        f"{'':<6} value >= {step.beta:>3}? {answer:>10} {'':>8} {step.cpu:8.2f} "
                        f"{step.nodes:13,d}",
                        flush=True,
                    )
    for rule in args.rules:
        mine = [r for r in results if r["must"] == (rule == "must-complete")]
        finished = [r for r in mine if r["done"] and r["nodes"] > 1000]
        stopped = [r for r in mine if not r["done"]]
        if len(finished) < 2 or not stopped:
            continue
        a, b = finished[-2], finished[-1]
        lines = b["board"].num_lines - a["board"].num_lines
        if lines <= 0:
            continue
        growth = (b["nodes"] / a["nodes"]) ** (1 / lines)
        rate = b["nodes"] / b["cpu"]
        for r in stopped:
            nodes = b["nodes"] * growth ** (r["board"].num_lines - b["board"].num_lines)
            seconds = nodes / rate
            print(
                f"projection ({rule}): {r['board']} about {nodes:.1e} nodes, {_duration(seconds)} at "
                f"{rate:,.0f} nodes/s (growth x{growth:.2f} per line from {a['board']} to {b['board']}; "
                f"stopped after {r['nodes']:,d} nodes)"
            )
    return 0


def _duration(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "forever"
    for unit, size in (("years", 365 * 86400), ("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= 2 * size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.0f} s"


if __name__ == "__main__":
    raise SystemExit(main())
