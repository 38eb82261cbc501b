"""Engine speed: canonical forms and children per second on positions from random games.

Prints one row per game size (10, 20 and 30 spots): how many positions were sampled
(every position of a few random games), exact canonical forms per second from cold
(the land cache emptied before every position, so each form is computed in full) and
in game order (the cache emptied once before the pass: successive positions share the
lands no move touched), reduced forms per second in game order, and children per
second (a fixed sample of distinct moves, each child's reduced lands made as the solver
makes them: ``reduce.reduced_lands_after``, the move, cleaning, split and codes in one
compiled call).  The compiled kernels are on from the start.  Times are process times,
the best of ``REPEATS`` passes, so that other work on the machine counts as little as
possible.
Goals: 20,000 canonical forms per second on 10-spot positions, one core (issue 2);
60,000 from cold (issue 11).
The recorded figures are in ``docs/performance.md`` ("Canonical forms").
"""

from __future__ import annotations

import gc
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table

from sprouts_cli.engine import Position
from sprouts_cli.engine.aot import kernel_path
from sprouts_cli.engine.backend import prepare_compiled_kernels
from sprouts_cli.engine.canonical import clear_land_cache
from sprouts_cli.engine.moves import Move, apply_move, random_move, representative_moves
from sprouts_cli.engine.reduce import reduced_lands_after

REPEATS = 3
#: Children timed per row (a fixed random sample of all the distinct moves).
CHILDREN_SAMPLE = 20_000


def sample_positions(spots: int, games: int, seed: int) -> list[Position]:
    """Every position of ``games`` random games from the ``spots``-spot start."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        p = Position.start(spots)
        while True:
            out.append(p)
            m = random_move(p, rng)
            if m is None:
                break
            p = apply_move(p, m)
    return out


def fresh(p: Position) -> Position:
    """The same position without its cached names, so that timing measures the work."""
    return Position.trusted(p.regions, p.lives, p.heaps)


def rate(fn: Callable[[object], object], items: list, cold: bool = False) -> float:
    """Items per second of process time, best of ``REPEATS`` passes.

    The land cache is emptied before each pass, and before each item when ``cold``.
    """
    best = 0.0
    for _ in range(REPEATS):
        clear_land_cache()
        t = time.process_time()
        for it in items:
            if cold:
                clear_land_cache()
            fn(it)
        best = max(best, len(items) / max(time.process_time() - t, 1e-9))
    return best


def child_sample(positions: list[Position], seed: int) -> list[tuple[Position, Move]]:
    """Up to ``CHILDREN_SAMPLE`` (position, move) pairs, in game order."""
    kids = [(p, m) for p in positions for m in representative_moves(p)]
    if len(kids) <= CHILDREN_SAMPLE:
        return kids
    keep = sorted(random.Random(seed).sample(range(len(kids)), CHILDREN_SAMPLE))
    return [kids[i] for i in keep]


def machine_speed() -> float:
    """CPU seconds of a plain-Python loop of 10^7 additions, best of three: the figures above
    compare across machines (and days of a shared one) only together with this."""
    best = float("inf")
    for _ in range(3):
        t = time.process_time()
        total = 0
        for i in range(10_000_000):
            total += i
        best = min(best, time.process_time() - t)
    return best


def main() -> None:
    prepare_compiled_kernels()  # on from the start (a command switches them on after 400 lands)
    table = Table(title="engine: canonical forms and children per second (one core, process time)")
    for col in ("spots", "positions", "cold/s", "exact/s", "reduced/s", "moves/pos", "children/s"):
        table.add_column(col, justify="right")
    for spots, games in ((10, 20), (20, 6), (30, 3)):
        positions = sample_positions(spots, games, seed=spots)
        kids = child_sample(positions, seed=spots)
        gc.collect()
        gc.freeze()  # the samples live on: collections need not walk them again and again
        cold = rate(lambda p: fresh(p).canonical(), positions, cold=True)
        exact = rate(lambda p: fresh(p).canonical(), positions)
        reduced = rate(lambda p: fresh(p).reduced(), positions)
        moves = sum(len(representative_moves(p)) for p in positions) / len(positions)
        children = rate(lambda pm: reduced_lands_after(pm[0], pm[1]), kids)
        gc.unfreeze()
        table.add_row(
            str(spots),
            str(len(positions)),
            f"{cold:,.0f}",
            f"{exact:,.0f}",
            f"{reduced:,.0f}",
            f"{moves:.1f}",
            f"{children:,.0f}",
        )
    Console().print(table)
    print(f"kernels: {kernel_path()}; machine: 10^7 Python additions in {machine_speed():.2f} CPU s")


if __name__ == "__main__":
    main()
