"""Time of the bounds and of the exact longest and shortest games (Alfeld §5.5).

Positions come from random games (the Random player's rule) of 10, 20 and 30 spots,
taken at several stages of the game.  For each group the table gives the time of the
two bounds, the time of the exact longest and shortest games with a budget per
position (a fresh table for each game, so that nothing is learned from the other
games, but shared along one game, as a player would use it), how many were proved in
time, and how often the upper bound is the longest game.

``python benchmarks/bench_bounds.py --budget 10 --games 4`` changes the defaults.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sprouts_cli.engine import Position
from sprouts_cli.engine.bounds import lower_bound, upper_bound
from sprouts_cli.engine.moves import apply_move, random_move
from sprouts_cli.solve.lengths import LengthOracle


def game_positions(spots: int, seed: int, stages: tuple[float, ...]) -> list[Position]:
    """Positions of one random game at the given fractions of its length."""
    rng = random.Random(seed)
    p = Position.start(spots)
    played = [p]
    while (m := random_move(p, rng)) is not None:
        p = apply_move(p, m)
        played.append(p)
    return [played[min(len(played) - 1, int(f * (len(played) - 1)))] for f in stages]


def fmt(seconds: list[float]) -> str:
    if not seconds:
        return "-"
    return f"{statistics.median(seconds) * 1000:8.1f} / {max(seconds) * 1000:8.1f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--budget", type=float, default=5.0, help="seconds per exact length (default 5)")
    ap.add_argument("--games", type=int, default=3, help="random games per size (default 3)")
    ap.add_argument("--sizes", type=int, nargs="*", default=[10, 20, 30])
    args = ap.parse_args()
    stages = (0.0, 0.25, 0.5, 0.75)
    print(
        f"bounds and exact lengths; {args.games} random games per size, positions at "
        f"{', '.join(f'{int(s * 100)}%' for s in stages)} of each game; budget {args.budget:g} s"
    )
    print("times are median / max in ms over the positions; 'proved' counts answers within the budget")
    header = (
        f"{'spots':>5} {'stage':>5} {'pos':>4} {'bounds (ms)':>19} {'longest (ms)':>19} {'proved':>7}"
        f" {'shortest (ms)':>19} {'proved':>7} {'M==longest':>10} {'mean M-m':>8}"
    )
    print(header)
    print("-" * len(header))
    for spots in args.sizes:
        rows: dict[float, list[tuple]] = {s: [] for s in stages}
        for g in range(args.games):
            oracle = LengthOracle()
            for stage, p in zip(stages, game_positions(spots, 1000 * spots + g, stages), strict=True):
                t = time.perf_counter()
                up, low = upper_bound(p), lower_bound(p, stumps_known=True)
                t_bounds = time.perf_counter() - t
                t = time.perf_counter()
                longest = oracle.longest(p, time.monotonic() + args.budget)
                t_long = time.perf_counter() - t
                t = time.perf_counter()
                shortest = oracle.shortest(p, time.monotonic() + args.budget)
                t_short = time.perf_counter() - t
                rows[stage].append((t_bounds, t_long, longest, t_short, shortest, up, low))
        for stage in stages:
            r = rows[stage]
            proved_long = [x for x in r if x[2] is not None]
            proved_short = [x for x in r if x[4] is not None]
            exact = sum(1 for x in proved_long if x[5] == x[2])
            print(
                f"{spots:>5} {int(stage * 100):>4}% {len(r):>4} {fmt([x[0] for x in r]):>19}"
                f" {fmt([x[1] for x in r]):>19} {len(proved_long):>3}/{len(r):<3}"
                f" {fmt([x[3] for x in r]):>19} {len(proved_short):>3}/{len(r):<3}"
                f" {exact:>4}/{len(proved_long):<5} {statistics.mean(x[5] - x[6] for x in r):>8.1f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
