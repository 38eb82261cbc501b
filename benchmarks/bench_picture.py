"""Z layout + polish: time and least clearance for mid-game positions of 10, 20 and 30 spots.

Goal (issue 5): a 30-spot mid-game position drawn in under 10 s.  Each position
comes from a random game (the Random player's rule) stopped after about 1.3n
moves; it is laid out from its position string (realised as a planar map first),
with all cores, and read back to check that the picture gives the same position.
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sprouts_cli.engine import Position
from sprouts_cli.engine.moves import apply_move, random_move
from sprouts_cli.picture.analyse import analyse_picture
from sprouts_cli.picture.layout import layout_map
from sprouts_cli.picture.planar_map import realise

WIDTH, HEIGHT = 1000, 700


def mid_game(spots: int, seed: int) -> Position:
    rng = random.Random(seed)
    p = Position.start(spots)
    for _ in range(int(1.3 * spots)):
        m = random_move(p, rng)
        if m is None:
            break
        p = apply_move(p, m)
    return p


def main() -> int:
    jobs = os.cpu_count() or 1
    # warm up the numba kernels (compiled once, then cached on disk)
    warm = Position.from_string("0.AB|AB")
    layout_map(realise(warm), warm.canonical(), 400, 300, jobs=1, budget=0)
    print(f"Z layout + polish in a {WIDTH}×{HEIGHT} area, {jobs} worker processes")
    print(
        f"{'spots':>5} {'regions':>7} {'curves':>6} {'layouts':>7} {'seconds':>8} {'least clearance':>16}  ok"
    )
    failed = 0
    for spots in (10, 20, 30):
        p = mid_game(spots, seed=spots)
        text = p.canonical()
        t0 = time.perf_counter()
        pmap = realise(Position.from_string(text))
        tried: list[int] = []
        result = layout_map(
            pmap, text, WIDTH, HEIGHT, jobs=jobs, progress=lambda d, t, seen=tried: seen.append(d)
        )
        seconds = time.perf_counter() - t0
        a = analyse_picture(result.picture)
        ok = a.position.canonical() == text and a.min_clearance > 0
        failed += not ok
        print(
            f"{spots:>5} {len(pmap.regions):>7} {len(pmap.edges):>6} {len(tried):>7} {seconds:>8.2f} "
            f"{a.min_clearance:>13.2f} px  {'yes' if ok else 'NO'}"
        )
    print("goal: 30 spots in under 10 s")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
