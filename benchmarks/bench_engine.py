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

Measured (issue 11, 2026-12-02, a slower machine than the day before: 10^7 Python additions
in 1.4-1.7 CPU s): once the kernels wrote their results into the caller's buffers instead
of returning arrays, 10 spots from cold went from 38,300 to 43,400/s on the built kernels
and from 42,600 to 44,400/s on the JIT ones (best of 40 passes, old and new code in turn;
valgrind: 158,000 -> 133,000 instructions a form on the built path).  The same code had
made 57,700 and 61,400/s on 2026-12-01's machine (quiet).  That day the machine's speed
also swung within minutes (the loop took 0.45-1.7 CPU s), so only figures taken in turn
compare; the instruction counts do not move.

Measured (issue 11, 2026-12-01, the 2-core machine shared with four other sessions, load
average 5-7, so the figures move by +-30% from run to run): with a position's lands
cleaned, split, coded and written in one compiled call (``kernels.position_lands``) and
each land's scratch arrays carved from one workspace, 10 spots from cold 53,765/s
(exact 62,983/s; 20 spots 31,279/s, 30 spots 25,711/s); the same load before,
18,549/s (exact 19,744/s, 20 spots 10,200/s, 30 spots 7,999/s).  Runs of the old and
the new code in turn: 16,396 / 24,951 / 16,198 against 35,038 / 39,280 / 57,426 (2.2x
in all).  The previous session measured the old code at 33,390/s from cold on a quieter
machine.  Children per second on the solver's path: 24,539 (10 spots), 14,070 (20),
7,275 (30); most of a child is now the Python that looks its lands' reduced strings up.
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
from sprouts_cli.engine.canonical import clear_land_cache, prepare_compiled_kernels
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
