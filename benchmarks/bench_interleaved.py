"""How two (or more) threads of the compiled search share the work, measured without the noise.

Real threads' node counts vary twofold from run to run (the order in which they meet each
other's marks depends on the machine's load), so a change to how threads spread cannot be
judged by a few runs.  Here the threads' searches take turns of ``Q`` nodes each in one OS
thread (``CompiledNormalSolver(interleave=Q)``): the same shared arrays and virtual proof
numbers, the same nodes on every run.  Turns of one node are closest to two threads on two
idle cores.  The table prints one thread's nodes, all threads' nodes together, the busiest
thread's, and the speed-up the threads would give if a node cost the same whatever the
number of threads (one thread's nodes over the busiest's).

    python benchmarks/bench_interleaved.py                 # 0*12 0*13, turns of 1, 4 and 16 nodes
    python benchmarks/bench_interleaved.py --starts 0*14 --turns 1 --threads 2
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sprouts_cli.solve.compiled import CompiledNormalSolver


def solve(start: str, threads: int, turns: int) -> tuple[bool, list[int], float]:
    solver = CompiledNormalSolver(None, threads=threads, interleave=turns, compile_lives=0)
    cpu = time.process_time()
    win = solver.outcome(start)
    return win, solver.thread_nodes(), time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--starts", nargs="+", default=["0*12", "0*13"], help="positions to solve")
    ap.add_argument("--turns", type=int, nargs="+", default=[1, 4, 16], help="nodes a thread takes per turn")
    ap.add_argument("--threads", type=int, default=2, help="threads taking turns")
    a = ap.parse_args(argv)
    head = ["start", "turn", "outcome", "1 thread", f"{a.threads} threads", "busiest", "speed-up", "CPU s"]
    print("  ".join(f"{h:>10}" for h in head))
    ok = True
    for start in a.starts:
        one_win, one, _ = solve(start, 1, 0)
        for turns in a.turns:
            win, nodes, cpu = solve(start, a.threads, turns)
            ok = ok and win == one_win
            outcome = ("win" if win else "loss") + ("" if win == one_win else " (DIFFER)")
            speed_up = f"{one[0] / max(nodes):.2f}x"
            counts = [f"{one[0]:,}", f"{sum(nodes):,}", f"{max(nodes):,}"]
            cells = [start, str(turns), outcome, *counts, speed_up, f"{cpu:.1f}"]
            print("  ".join(f"{c:>10}" for c in cells), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
