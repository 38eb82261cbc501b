"""Three players: which player, if any, can force the last move from the n-spot start, and how fast.

Each start is solved with a fresh ``ThreeSolver`` (no table carried over), one
process.  ``--max N`` sets the largest start (default 6).
The recorded figures are in ``docs/performance.md`` ("Three players").
"""

from __future__ import annotations

import argparse
import time

from sprouts_cli.engine import Position
from sprouts_cli.solve.three import ThreeSolver

WHO = {0: "0 (to move)", 1: "1 (next)", 2: "2 (after)", None: "nobody"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max", type=int, default=6)
    args = ap.parse_args()
    print(f"{'n':>2}  {'forced winner':<13}  {'questions searched':>18}  {'seconds':>7}")
    for n in range(1, args.max + 1):
        t = time.perf_counter()
        result = ThreeSolver().solve(Position.start(n))
        seconds = time.perf_counter() - t
        who = WHO[result.forced_winner]
        print(f"{n:>2}  {who:<13}  {result.positions:>18,}  {seconds:>7.1f}", flush=True)


if __name__ == "__main__":
    main()
