"""Misère play: the n-spot starts solved by canonical trees and proof-number search, cold.

One solver, no table (cold), n = 1, 2, … in turn, as ``sprouts solve --misere`` would
with ``--no-db``.  One row per n: the outcome (and whether it agrees with the
published value, Lemoine and Viennot arXiv:0908.4407 / OEIS A164950), CPU and wall
seconds, positions solved so far (searched states proved and lands whose trees were
built), distinct trees in the store, peak memory (max RSS), and where the time went:
the share spent by the engine making children (move surgery and reduced forms).

Goal (issue 3): n = 1..9 in under 10 minutes in all on the 2-core machine; issue 11:
``0*12`` in under 10 minutes.

Measured 2026-12-01 (issue 11), each n alone in a fresh solver (``--first n``), one
process, CPU seconds and peak memory (max RSS, numba included), on the 2-core machine
shared with 5 engineers (load 5-9: ±30% on CPU seconds).  "before" is main at 09c9441
(eager best-first proof-number search, every child of a state made at once); "after"
is the lazy df-pn (``--method dfpn``, the default):

    n   outcome  before CPU s  before MB  after CPU s  after MB  canonical forms after
    9   L            9.2          262          5.3        264       71,603
   10   W           19.2          305         14.3        314      142,306
   11   W           30.0          363         21.4        360      213,184
   12   W          332.4        1,558        352.6        762    2,023,893

At ``0*12`` the lazy search makes 2.0 M canonical forms, opens 1.1 M states and
439,000 lands, for 88,700 facts proved: most opened states are given up after one
child (df-pn prices an opened state by its listed moves, so its siblings are opened
in turn).  Forms and move listings are ~80% of the time.

    python benchmarks/bench_misere.py            # n = 1..9
    python benchmarks/bench_misere.py 11 --budget 1800
    python benchmarks/bench_misere.py 9 --profile   # cProfile summary on stderr
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table

from sprouts_cli.engine.position import Position
from sprouts_cli.errors import OutOfTime
from sprouts_cli.solve.misere import MisereSolver

#: Lemoine and Viennot (arXiv:0908.4407, figure 1), OEIS A164950: W = the first player wins.
PUBLISHED = "WLLLWWLLLWWWLLLWWWLL"


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("last", nargs="?", type=int, default=9, help="largest n (default 9)")
    ap.add_argument("--first", type=int, default=1, help="smallest n (default 1)")
    ap.add_argument("--budget", type=float, default=1200.0, help="wall seconds for all n (default 1200)")
    ap.add_argument("--tree-lives", type=int, default=None, help="land size that gets a tree at once")
    ap.add_argument("--method", choices=("dfpn", "pns", "dfs"), default="dfpn")
    ap.add_argument("--profile", action="store_true", help="print a cProfile summary on stderr")
    args = ap.parse_args()

    extra = {} if args.tree_lives is None else {"tree_lives": args.tree_lives}
    solver = MisereSolver(method=args.method, **extra)
    table = Table(title=f"misère n-spot starts, cold ({args.method}, tree_lives={solver.tree_lives})")
    for col in ("n", "outcome", "published", "cpu s", "wall s", "positions", "trees", "peak MB", "engine %"):
        table.add_column(col, justify="right")
    prof = cProfile.Profile() if args.profile else None
    start = time.perf_counter()
    deadline = time.monotonic() + args.budget
    failed = False
    total_cpu = 0.0
    for n in range(args.first, args.last + 1):
        cpu0, wall0, eng0 = time.process_time(), time.perf_counter(), solver.timing["children"]
        if prof:
            prof.enable()
        try:
            win = solver.outcome(Position.start(n), deadline=deadline)
            result = "W" if win else "L"
        except OutOfTime:
            result = "timeout"
        finally:
            if prof:
                prof.disable()
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        total_cpu += cpu
        published = PUBLISHED[n - 1] if n <= len(PUBLISHED) else "?"
        if result in "WL" and published in "WL" and result != published:
            failed = True
        table.add_row(
            str(n),
            result,
            published,
            f"{cpu:.2f}",
            f"{wall:.2f}",
            f"{solver.positions_solved:,}",
            f"{len(solver.store):,}",
            f"{peak_mb():.0f}",
            f"{100 * (solver.timing['children'] - eng0) / max(cpu, 1e-9):.0f}",
        )
        print(f"n={n}: {result} in {cpu:.1f} s cpu", file=sys.stderr, flush=True)
        if result == "timeout":
            break
    Console().print(table)
    print(
        f"total: {total_cpu:.1f} s cpu, {time.perf_counter() - start:.1f} s wall; "
        f"states searched {solver.stats['states_searched']:,}, "
        f"lands with trees {solver.stats['lands_with_trees']:,}"
    )
    if prof:
        pstats.Stats(prof, stream=sys.stderr).sort_stats("tottime").print_stats(20)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
