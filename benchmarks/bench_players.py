"""How well the computer players play: parity search against Random from 6 spots (Alfeld §5.4).

Plays a fixed set of seeds, each as two games (parity first, and parity second), in
normal and in misère play, and prints parity's share of wins with the time per move
and the depth its searches reached.  The goal is at least 90% of 6-spot games won
against Random; the recorded figures are in ``docs/performance.md``.  With ``--depth D``
the searches stop at depth D (given time enough), so the games repeat exactly and two
versions of the code can be compared game for game, in seconds alone.

    .venv/bin/python benchmarks/bench_players.py [--spots 6] [--seeds 20] [--time 0.5] [--depth D]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sprouts_cli.engine import Position
from sprouts_cli.engine.rules import Rules
from sprouts_cli.play import Game, Session
from sprouts_cli.players import Settings


class DepthTap:
    """Collects the depth of each parity search from the session's log records."""

    def __init__(self) -> None:
        self.depths: list[int] = []
        self.games = 0

    def new_game(self, start, fields) -> int:
        self.games += 1
        return self.games

    def record(self, kind: str, number: int, fields) -> None:
        for k, v in fields:
            if kind == "think" and k == "depth":
                self.depths.append(int(v))

    def close(self) -> None:
        pass


def play(
    spots: int, seeds: range, seconds: float, misere: bool, opponent: str, depth: int | None = None
) -> tuple[int, int, list[int], float]:
    wins = 0
    games = 0
    tap = DepthTap()
    t0 = time.perf_counter()
    for seed in seeds:
        for parity_first in (True, False):
            kinds = ("parity", opponent) if parity_first else (opponent, "parity")
            game = Game(Position.start(spots), rules=Rules.of(misere))
            settings = Settings(seconds=seconds, jobs=1, depth=depth)
            out = Session(game, kinds, settings, seed=seed, log=tap, quiet=True).run()
            games += 1
            if out.winner == (1 if parity_first else 2):
                wins += 1
    return wins, games, tap.depths, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spots", type=int, default=6)
    ap.add_argument("--seeds", type=int, default=20, help="seeds 1..N, two games each (parity first, second)")
    ap.add_argument("--time", type=float, default=0.5, help="seconds per parity move")
    ap.add_argument("--opponent", default="random")
    ap.add_argument("--depth", type=int, default=None, help="the deepest parity search (games then repeat)")
    args = ap.parse_args()
    import gc

    gc.collect()
    gc.freeze()  # as `sprouts play` does: the collector leaves what the imports built alone
    seeds = range(1, args.seeds + 1)
    print(
        f"parity search against {args.opponent}, {args.spots} spots, "
        f"seeds 1-{args.seeds}, {args.time:g} s/move"
    )
    head = f"{'rules':<8} {'games':>5} {'parity won':>10} {'share':>6} {'depth (median, max)':>20}"
    print(f"{head} {'seconds':>8}")
    for misere in (False, True):
        wins, games, depths, secs = play(args.spots, seeds, args.time, misere, args.opponent, args.depth)
        med = statistics.median(depths) if depths else 0
        mx = max(depths) if depths else 0
        rules = "misère" if misere else "normal"
        print(f"{rules:<8} {games:>5} {wins:>10} {wins / games:>6.0%} {f'{med:g}, {mx}':>20} {secs:>8.1f}")


if __name__ == "__main__":
    main()
