"""How two (or more) threads of the compiled search share the work, measured without the noise.

Real threads' node counts vary twofold from run to run (the order in which they meet each
other's marks depends on the machine's load), so a change to how threads spread cannot be
judged by a few runs.  Here the threads' searches take turns of ``Q`` nodes each in one OS
thread (``CompiledNormalSolver(interleave=Q)``): the same shared arrays and virtual proof
numbers, the same nodes on every run.  Turns of one node are closest to two threads on two
idle cores.  The table prints, for one thread and for the threads together, the nodes
visited and the moves made (children computed: most of a search's time), the busiest
thread's moves, and the speed-up the threads would give if a move cost the same whatever
the number of threads (one thread's moves over the busiest thread's), and the same by a
cost of a move and ``--pace`` moves a node (one thread's over the costliest thread's).

With ``--ahead MODE`` the threads after the first do not search: they make children ahead for
thread 0 on the lands of its path (``CompiledNormalSolver(ahead=...)``), as many moves a turn
as thread 0's turn cost (its moves plus ``--pace`` a node); thread 0 is the critical path.

    python benchmarks/bench_interleaved.py                 # 0*12 0*13, turns of 1, 4 and 16 nodes
    python benchmarks/bench_interleaved.py --starts 0*14 --turns 1 --threads 2
    python benchmarks/bench_interleaved.py --starts 0*12 --turns 1 --ahead 1 --ahead-lost
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sprouts_cli.solve.compiled import CompiledNormalSolver


def solve(start: str, threads: int, turns: int, options: dict[str, Any]) -> tuple[bool, dict[str, list[int]]]:
    """The outcome, and each thread's nodes, moves, children priced and moves found made ahead."""
    solver = CompiledNormalSolver(None, threads=threads, interleave=turns, compile_lives=0, **options)
    win = solver.outcome(start)
    return win, {field: solver.thread_counts(field) for field in ("nodes", "moves", "priced", "hits")}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--starts", nargs="+", default=["0*12", "0*13"], help="positions to solve")
    ap.add_argument("--turns", type=int, nargs="+", default=[1, 4, 16], help="nodes a thread takes per turn")
    ap.add_argument("--threads", type=int, default=2, help="threads taking turns")
    ap.add_argument("--ahead", type=int, default=0, help="helpers make children ahead (pncore.AHEAD_*)")
    ap.add_argument("--ahead-kids", type=int, default=0, help="at most this many children a land made ahead")
    ap.add_argument("--ahead-lost", action="store_true", help="children made ahead priced: a lost one proves")
    ap.add_argument("--pace", type=float, default=1.0, help="what a node costs, in moves")
    a = ap.parse_args(argv)
    n = a.threads
    options: dict[str, Any] = {"ahead": a.ahead, "ahead_kids": a.ahead_kids, "ahead_lost": a.ahead_lost}
    options["ahead_pace"] = a.pace
    head = ["start", "turn", "outcome", "1: nodes", "1: moves", f"{n}: nodes", f"{n}: moves"]
    head += ["0: nodes", "0: moves", "busiest", "speed-up", "by cost"]
    print("  ".join(f"{h:>10}" for h in head))
    ok = True
    for start in a.starts:
        one_win, one = solve(start, 1, 0, {})
        one_cost = one["moves"][0] + a.pace * one["nodes"][0]
        for turns in a.turns:
            win, counts = solve(start, n, turns, options)
            nodes, moves = counts["nodes"], counts["moves"]
            ok = ok and win == one_win
            outcome = ("win" if win else "loss") + ("" if win == one_win else " (DIFFER)")
            cost = max(m + a.pace * x for m, x in zip(moves, nodes, strict=True))
            cells = [one["nodes"][0], one["moves"][0], sum(nodes), sum(moves), nodes[0], moves[0], max(moves)]
            speed_up = [f"{one['moves'][0] / max(moves):.2f}x", f"{one_cost / cost:.2f}x"]
            row = [start, str(turns), outcome, *(f"{c:,}" for c in cells), *speed_up]
            print("  ".join(f"{c:>10}" for c in row), flush=True)
            priced = f"priced: one thread {one['priced'][0]:,}, these {counts['priced']}"
            print(f"{'':>10}  {priced}; moves found made ahead {counts['hits']}", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
