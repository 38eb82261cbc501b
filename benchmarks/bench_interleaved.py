"""How two (or more) threads of the compiled search share the work, measured without the noise.

Real threads' node counts vary twofold from run to run (the order in which they meet each
other's marks depends on the machine's load), so a change to how threads spread cannot be
judged by a few runs.  Here the threads' searches take turns of ``Q`` nodes each in one OS
thread (``CompiledNormalSolver(interleave=Q)``): the same shared arrays and virtual proof
numbers, the same nodes on every run.  Turns of one node are closest to two threads on two
idle cores.  The table prints, for one thread and for the threads together, the nodes
visited and the moves made (children computed: most of a search's time), the busiest
thread's moves, and the speed-up the threads would give if a move cost the same whatever
the number of threads (one thread's moves over the busiest thread's).

    python benchmarks/bench_interleaved.py                 # 0*12 0*13, turns of 1, 4 and 16 nodes
    python benchmarks/bench_interleaved.py --starts 0*14 --turns 1 --threads 2
    python benchmarks/bench_interleaved.py --starts 0*14 --turns 1 --tt-entries 8388608   # no overwrites
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sprouts_cli.solve.compiled import CompiledNormalSolver


def solve(start: str, threads: int, turns: int, tt_entries: int | None) -> tuple[bool, list[int], list[int]]:
    """The outcome, and each thread's nodes and moves (``tt_entries``: the table's first size, else
    the solver's own)."""
    solver = CompiledNormalSolver(
        None, threads=threads, interleave=turns, compile_lives=0, tt_entries=tt_entries
    )
    win = solver.outcome(start)
    return win, solver.thread_counts("nodes"), solver.thread_counts("moves")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--starts", nargs="+", default=["0*12", "0*13"], help="positions to solve")
    ap.add_argument("--turns", type=int, nargs="+", default=[1, 4, 16], help="nodes a thread takes per turn")
    ap.add_argument("--threads", type=int, default=2, help="threads taking turns")
    ap.add_argument("--tt-entries", type=int, default=None, help="the table's first size (entries)")
    a = ap.parse_args(argv)
    n = a.threads
    head = ["start", "turn", "outcome", "1: nodes", "1: moves", f"{n}: nodes", f"{n}: moves"]
    head += ["busiest", "speed-up"]
    print("  ".join(f"{h:>10}" for h in head))
    ok = True
    for start in a.starts:
        one_win, one_nodes, one_moves = solve(start, 1, 0, a.tt_entries)
        for turns in a.turns:
            win, nodes, moves = solve(start, n, turns, a.tt_entries)
            ok = ok and win == one_win
            outcome = ("win" if win else "loss") + ("" if win == one_win else " (DIFFER)")
            counts = [one_nodes[0], one_moves[0], sum(nodes), sum(moves), max(moves)]
            speed_up = f"{one_moves[0] / max(moves):.2f}x"
            cells = [start, str(turns), outcome, *(f"{c:,}" for c in counts), speed_up]
            print("  ".join(f"{c:>10}" for c in cells), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
