"""``sprouts play --batch N``: many computer games in parallel, a CSV row per game and a plot."""

from __future__ import annotations

import random

from ..engine.rules import Rules
from ..errors import SproutsError
from .common import err, fail, out


def run_batch(
    count: int,
    kinds: tuple[str, ...],
    rules: Rules,
    spots: int | None,
    start: str | None,
    seconds: float,
    games: int | None,
    depth: int | None,
    sharp: bool,
    seed: int | None,
    jobs: int,
    stats: str | None,
    plot_path: str | None,
) -> None:
    """Play the batch, write the CSV (and the plot) and print a summary."""
    from ..play.stats import BatchSpec, play_batch, plot, win_rates, write_csv

    if start is not None or spots is None:
        fail("--batch plays from the n-spot start: give --spots N (and no START)")
    if "human" in kinds:
        fail("--batch is for computer players; a person cannot play a batch of games")
    from ..files import check_output
    from ..procs import interrupted_exit_code, sigterm_as_interrupt

    for path, ends in ((stats, (".csv",)), (plot_path, (".png", ".svg", ".pdf"))):
        if path is not None:
            try:
                check_output(path, ends)
            except SproutsError as e:
                fail(str(e))
    assert spots is not None
    base = seed if seed is not None else random.SystemRandom().randrange(2**31)
    spec = BatchSpec(kinds, rules, spots, seconds, games, depth, sharp)
    rows = []
    live = err.is_terminal

    def progress(done: int, total: int) -> None:
        if live:
            err.print(f"\r{done}/{total} games", end="", markup=False)

    try:
        with sigterm_as_interrupt():
            for row in play_batch(spec, count, base, jobs, progress):
                rows.append(row)
    except KeyboardInterrupt as e:
        err.print(f"\ninterrupted after {len(rows)} of {count} games", markup=False)
        if stats and rows:
            write_csv(stats, rows, kinds)
            err.print(f"wrote the {len(rows)} finished games to {stats}", markup=False)
        raise SystemExit(interrupted_exit_code(e)) from None
    if live:
        err.print("", markup=False)
    if stats:
        write_csv(stats, rows, kinds)
    if plot_path:
        plot(plot_path, rows, spec)
    lengths = [r.length for r in rows]
    out.print(
        f"{len(rows)} games from {spots} spots, {rules.describe()}, seeds {base}–{base + count - 1}; "
        f"lengths {min(lengths)}–{max(lengths)}, mean {sum(lengths) / len(lengths):.1f} "
        f"(bounds {2 * spots}–{3 * spots - 1})",
        markup=False,
    )
    for w in win_rates(rows, kinds):
        out.print(
            f"  player {w.player} ({w.kind}): {w.wins} won, {w.share:.0%} "
            f"(95% interval {w.low:.0%}–{w.high:.0%})",
            markup=False,
        )
    for path in (stats, plot_path):
        if path:
            err.print(f"wrote {path}", markup=False)


__all__ = ["run_batch"]
