"""Many computer games at once, for statistics: how long games last and who wins.

``sprouts play --batch N`` plays N games between computer players from the n-spot
start, in worker processes (one game per task, each player on one core), without
pictures or logs.  Every game gets its own seed (``seed + i``), so a batch repeats
exactly with fixed-depth or fixed-games players.  One row per game goes to a CSV
file, and a plot shows the distribution of the game lengths against the bounds
``2n ≤ moves ≤ 3n − 1`` (a game from n spots lasts at least 2n moves, and at most
3n − 1: each move removes one life of the 3n, and at least one survives) and the
share of games each player won, with its 95% confidence interval (Wilson's score
interval, ``scipy.stats.binomtest``).
"""

from __future__ import annotations

import csv
import io
import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..engine.position import Position
from ..engine.rules import Rules
from ..players.base import Settings
from ..procs import pool_initializer
from .game import Game
from .session import Session

if TYPE_CHECKING:  # pragma: no cover
    from ..players.base import Choice, Player


@dataclass(frozen=True)
class BatchSpec:
    """What every game of a batch shares: the players, the rule, the start, the thinking time."""

    kinds: tuple[str, ...]
    rules: Rules
    spots: int
    seconds: float = 0.2
    games: int | None = None
    depth: int | None = None
    sharp: bool = False


@dataclass
class GameRow:
    """One game of a batch: its seed, who won, how long it lasted, and the time each player took."""

    game: int
    seed: int
    winner: int | None
    winner_kind: str
    length: int
    seconds_per_move: float
    player_seconds: list[float] = field(default_factory=list)  # per player: seconds per own move

    def csv_row(self, kinds: tuple[str, ...]) -> dict[str, object]:
        row: dict[str, object] = {
            "game": self.game,
            "seed": self.seed,
            "winner": self.winner if self.winner is not None else "",
            "winner_kind": self.winner_kind,
            "length": self.length,
            "seconds_per_move": f"{self.seconds_per_move:.4f}",
        }
        for i, kind in enumerate(kinds):
            row[f"player{i + 1}"] = kind
            row[f"player{i + 1}_seconds_per_move"] = f"{self.player_seconds[i]:.4f}"
        return row


def csv_columns(players: int) -> list[str]:
    cols = ["game", "seed", "winner", "winner_kind", "length", "seconds_per_move"]
    for i in range(1, players + 1):
        cols += [f"player{i}", f"player{i}_seconds_per_move"]
    return cols


def play_one(spec: BatchSpec, game: int, seed: int) -> GameRow:
    """One game between computer players from the n-spot start, nothing shown, nothing drawn."""
    settings = Settings(seconds=spec.seconds, games=spec.games, jobs=1, depth=spec.depth, sharp=spec.sharp)
    g = Game(Position.start(spec.spots), spec.rules)
    session = _TimedSession(g, spec.kinds, settings, seed, quiet=True)
    t0 = time.perf_counter()
    outcome = session.run()
    total = time.perf_counter() - t0
    moves = max(outcome.moves, 1)
    per_player = [
        session.thinking[i] / session.moves_by[i] if session.moves_by[i] else 0.0
        for i in range(len(spec.kinds))
    ]
    winner_kind = spec.kinds[outcome.winner - 1] if outcome.winner else ""
    return GameRow(game, seed, outcome.winner, winner_kind, outcome.moves, total / moves, per_player)


def _task(args: tuple[dict[str, Any], int, int]) -> GameRow:
    spec_fields, game, seed = args
    spec_fields = dict(spec_fields)
    spec_fields["rules"] = Rules(spec_fields["rules"])
    spec_fields["kinds"] = tuple(spec_fields["kinds"])
    return play_one(BatchSpec(**spec_fields), game, seed)


def play_batch(
    spec: BatchSpec,
    count: int,
    seed: int,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[GameRow]:
    """Play ``count`` games (seeds ``seed``, ``seed + 1``, …) on ``jobs`` processes; rows as they finish."""
    tasks = [(asdict(spec) | {"rules": spec.rules.value}, i + 1, seed + i) for i in range(count)]
    done = 0
    if jobs <= 1:
        for t in tasks:
            row = _task(t)
            done += 1
            if progress:
                progress(done, count)
            yield row
        return
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=pool_initializer, initargs=(os.getpid(),))
    pending: set[Future[GameRow]] = set()
    finished_cleanly = False
    try:
        todo = iter(tasks)
        for t in todo:  # a bounded number of games in flight at a time
            pending.add(pool.submit(_task, t))
            if len(pending) >= 2 * jobs:
                break
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in finished:
                done += 1
                if progress:
                    progress(done, count)
                yield f.result()
                nxt = next(todo, None)
                if nxt is not None:
                    pending.add(pool.submit(_task, nxt))
        finished_cleanly = True
    finally:
        # interrupted: the games in flight are not waited for (the workers end with this process)
        pool.shutdown(wait=finished_cleanly, cancel_futures=True)


def write_csv(path: str | os.PathLike[str], rows: list[GameRow], kinds: tuple[str, ...]) -> None:
    """The rows as CSV, written to a temporary file and renamed."""
    from ..files import write_atomic

    buffer = io.StringIO(newline="")
    w = csv.DictWriter(buffer, fieldnames=csv_columns(len(kinds)))
    w.writeheader()
    for row in sorted(rows, key=lambda r: r.game):
        w.writerow(row.csv_row(kinds))
    write_atomic(path, buffer.getvalue())


@dataclass
class WinRate:
    """How often one player won, with a 95% confidence interval."""

    player: int
    kind: str
    wins: int
    games: int
    low: float
    high: float

    @property
    def share(self) -> float:
        return self.wins / self.games if self.games else 0.0


def win_rates(rows: list[GameRow], kinds: tuple[str, ...], confidence: float = 0.95) -> list[WinRate]:
    """Each player's share of the games, with Wilson's score interval."""
    from scipy.stats import binomtest

    out = []
    n = len(rows)
    for i, kind in enumerate(kinds, start=1):
        wins = sum(1 for r in rows if r.winner == i)
        if n:
            ci = binomtest(wins, n).proportion_ci(confidence, method="wilson")
            low, high = float(ci.low), float(ci.high)
        else:
            low, high = 0.0, 1.0
        out.append(WinRate(i, kind, wins, n, low, high))
    return out


def plot(path: str | os.PathLike[str], rows: list[GameRow], spec: BatchSpec) -> None:
    """Game lengths against the bounds 2n and 3n − 1, and the win rates with their intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = spec.spots
    lo, hi = 2 * n, 3 * n - 1
    lengths = [r.length for r in rows]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4), gridspec_kw={"width_ratios": [3, 2]})
    bins = list(range(min([lo, *lengths]), max([hi, *lengths]) + 2))
    ax1.axvspan(lo - 0.5, hi + 0.5, color="#e8f1e8", label=f"2n ≤ moves ≤ 3n−1 ({lo}–{hi})")
    ax1.hist(lengths, bins=[b - 0.5 for b in bins], color="#4a78b0", edgecolor="white", label="games")
    ax1.axvline(lo - 0.5, color="#2e7d32", linestyle="--", linewidth=1)
    ax1.axvline(hi + 0.5, color="#2e7d32", linestyle="--", linewidth=1)
    ax1.set_xlabel("moves in the game")
    ax1.set_ylabel("games")
    ax1.set_title(f"Game lengths, {len(rows)} games from {n} spots")
    ax1.legend(loc="upper right", fontsize=8)
    rates = win_rates(rows, spec.kinds)
    labels = [f"player {w.player}\n{w.kind}" for w in rates]
    shares = [w.share for w in rates]
    errors = [[w.share - w.low for w in rates], [w.high - w.share for w in rates]]
    ax2.bar(labels, shares, yerr=errors, capsize=6, color=["#4a78b0", "#d9822b", "#6a9f58"][: len(rates)])
    ax2.set_ylim(0, 1.12)
    ax2.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
    ax2.set_ylabel("share of games won")
    ax2.set_title("Win rate (95% Wilson interval)")
    for i, w in enumerate(rates):
        ax2.text(i, w.high + 0.02, f"{w.wins}/{w.games}", ha="center", fontsize=9)
    fig.suptitle(f"{' vs '.join(spec.kinds)}, {spec.rules.describe()}", fontsize=10)
    fig.tight_layout()
    from ..files import write_atomic

    buffer = io.BytesIO()
    try:
        fig.savefig(buffer, format=Path(path).suffix.lower().lstrip(".") or "png", dpi=110)
    finally:
        plt.close(fig)
    write_atomic(path, buffer.getvalue())


class _TimedSession(Session):
    """A session that also adds up each player's thinking time (for the rows)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.thinking = [0.0] * len(self.kinds)
        self.moves_by = [0] * len(self.kinds)

    def _think(self, player: Player, choice: Choice, seconds: float) -> None:
        who = self.game.to_move - 1
        self.thinking[who] += seconds
        self.moves_by[who] += 1
        super()._think(player, choice, seconds)


__all__ = [
    "BatchSpec",
    "GameRow",
    "WinRate",
    "csv_columns",
    "play_batch",
    "play_one",
    "plot",
    "win_rates",
    "write_csv",
]
