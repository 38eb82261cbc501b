"""Engine speed: canonical forms and children per second on positions from random games.

Prints one row per game size (10, 20 and 30 spots): how many positions were sampled
(every position of a few random games), canonical forms per second (exact and
reduced), and children per second (distinct moves applied and canonicalised).
Goal (issue 2): 20,000 canonical forms per second on 10-spot positions, one core.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table

from sprouts_cli.engine import Position
from sprouts_cli.engine.moves import apply_move, random_move, representative_moves


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
    return Position._make(p.regions, p.lives, p.heaps)


def rate(fn, items) -> float:
    t = time.perf_counter()
    for it in items:
        fn(it)
    return len(items) / (time.perf_counter() - t)


def main() -> None:
    table = Table(title="engine: canonical forms and children per second (one core)")
    for col in ("spots", "positions", "exact/s", "reduced/s", "moves/pos", "children/s"):
        table.add_column(col, justify="right")
    for spots, games in ((10, 20), (20, 6), (30, 3)):
        positions = sample_positions(spots, games, seed=spots)
        exact = rate(lambda p: fresh(p).canonical(), positions)
        reduced = rate(lambda p: fresh(p).reduced(), positions)
        kids = [(p, m) for p in positions for m in representative_moves(p)]
        t = time.perf_counter()
        for p, m in kids:
            apply_move(p, m, check=False).canonical()
        children = len(kids) / (time.perf_counter() - t)
        table.add_row(
            str(spots),
            str(len(positions)),
            f"{exact:,.0f}",
            f"{reduced:,.0f}",
            f"{len(kids) / len(positions):.1f}",
            f"{children:,.0f}",
        )
    Console().print(table)


if __name__ == "__main__":
    main()
