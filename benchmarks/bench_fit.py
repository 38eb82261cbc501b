"""The least-squares spline fits of a game's drawing, timed alone: the compiled solve beside its reference.

A random game (the Random player's rule, as ``bench_picture_quality.py`` plays it) is
drawn move by move from a Z layout of n lone spots in a 1000×700 area; every fit the
drawing asks for is kept (its sites, points, knots and end directions, and each
knot-refinement call with its arguments).  Then each is timed again, alternating, with
``fit._solve`` (the band assembled by a numba kernel, solved by LAPACK) and with
``fit._solve_reference`` (scipy's sparse design matrix and banded Cholesky): CPU µs a
fit of the solve alone, and of the whole refinement (``refine_clamped``, the curve
evaluated and the next knot chosen each round) per fit it makes.  The largest
difference between the two solves' de Boor points is printed too.  A tree without
the reference (from before it was kept) has its ``_solve`` timed alone: run a copy of
this file from outside the tree, with the tree on ``PYTHONPATH``.

    python benchmarks/bench_fit.py                        # 20 spots, seed 1, its first 20 moves
    python benchmarks/bench_fit.py --spots 20 --seed 7 --moves 24 --repeats 5
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sprouts_cli.engine import Position
from sprouts_cli.engine.moves import random_move
from sprouts_cli.errors import NoRoom
from sprouts_cli.picture import fit
from sprouts_cli.picture.analyse import analyse_picture
from sprouts_cli.picture.layout import layout_position
from sprouts_cli.picture.room import draw

WIDTH, HEIGHT = 1000, 700


def collect(spots: int, seed: int, moves: int) -> tuple[list[tuple], list[tuple[tuple, dict]]]:
    """Every ``_solve`` and ``refine_clamped`` call of the game's first ``moves`` moves, and its arguments."""
    solves: list[tuple] = []
    refines: list[tuple[tuple, dict]] = []
    solve, refine = fit._solve, fit.refine_clamped

    def kept_solve(*args: Any) -> np.ndarray:
        solves.append(tuple(np.array(a, copy=True) for a in args))
        return solve(*args)

    def kept_refine(*args: Any, **kw: Any) -> Any:
        refines.append((args, kw))
        return refine(*args, **kw)

    fit._solve = kept_solve  # type: ignore[assignment]
    fit.refine_clamped = kept_refine
    try:
        rng = random.Random(seed)
        pic = layout_position(Position.start(spots), WIDTH, HEIGHT, jobs=1)
        a = analyse_picture(pic)
        for _ in range(moves):
            m = random_move(a.position, rng)
            if m is None:
                break
            try:
                r = draw(pic, m, analysis=a, layout_jobs=1)
            except NoRoom:
                break
            pic, a = r.picture, r.analysis
    finally:
        fit._solve = solve
        fit.refine_clamped = refine
    return solves, refines


def time_solves(solve: Any, solves: list[tuple]) -> float:
    """CPU seconds of one pass of ``solve`` over the kept fits."""
    c0 = time.process_time()
    for args in solves:
        solve(*args)
    return time.process_time() - c0


def time_refines(solve: Any, refines: list[tuple[tuple, dict]]) -> tuple[float, int]:
    """CPU seconds of one pass of the kept refinements with ``solve`` as the fit, and the fits they made."""
    count = 0

    def counted(*args: Any) -> np.ndarray:
        nonlocal count
        count += 1
        return solve(*args)

    kept = fit._solve
    fit._solve = counted  # type: ignore[assignment]
    try:
        c0 = time.process_time()
        for args, kw in refines:
            fit.refine_clamped(*args, **kw)
        spent = time.process_time() - c0
    finally:
        fit._solve = kept
    return spent, count


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spots", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--moves", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    if args.spots < 1 or args.moves < 1 or args.repeats < 1:
        print("bench_fit: --spots, --moves and --repeats must be positive", file=sys.stderr)
        return 2
    solves, refines = collect(args.spots, args.seed, args.moves)
    if not solves:
        print("bench_fit: the game asked for no fit")
        return 0
    sizes = np.array([len(s[0]) for s in solves])
    knots = np.array([len(s[2]) for s in solves])
    print(
        f"# {args.spots} spots seed {args.seed}, {args.moves} moves: {len(solves)} fits in {len(refines)} "
        f"refinements; sites a fit median {int(np.median(sizes))} max {sizes.max()}, "
        f"inner knots median {int(np.median(knots))} max {knots.max()}"
    )
    ways = {"_solve": fit._solve}
    reference = getattr(fit, "_solve_reference", None)
    if reference is not None:
        ways["reference"] = reference
        diff = max(
            float(np.abs(fit._solve(*s) - reference(*s)).max() / (1.0 + np.abs(s[1]).max())) for s in solves
        )
        print(f"# largest difference of the de Boor points, relative to the points' size: {diff:.1e}")
    solve_s: dict[str, list[float]] = {w: [] for w in ways}
    refine_s: dict[str, list[float]] = {w: [] for w in ways}
    for _ in range(args.repeats):
        for w, f in ways.items():
            solve_s[w].append(time_solves(f, solves))
            spent, count = time_refines(f, refines)
            refine_s[w].append(spent / max(count, 1))
    print(f"{'solve':>10} {'µs a fit (median)':>18} {'min':>8} {'refine µs a fit':>16} {'min':>8}")
    for w in ways:
        per = sorted(1e6 * t / len(solves) for t in solve_s[w])
        ref = sorted(1e6 * t for t in refine_s[w])
        print(
            f"{w:>10} {per[len(per) // 2]:>18.1f} {per[0]:>8.1f} "
            f"{ref[len(ref) // 2]:>16.1f} {ref[0]:>8.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
