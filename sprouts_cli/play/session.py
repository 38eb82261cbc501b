"""The game loop: players take turns, every move is logged, drawn and shown (Alfeld §5, §7.3).

A computer player thinks on the position alone, its reasoning goes to the log, and
its move is then played and drawn; a person answers at the terminal.  Computer
against computer runs unattended.  The log gets a line per event, flushed at once,
so a crashed game leaves a usable log.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import PlayError
from ..log import LogWriter, move_fields, undo_fields
from ..players import make_player
from ..players.base import Player, Settings
from .game import Game
from .human import Terminal, ask_move

if TYPE_CHECKING:  # pragma: no cover
    from ..engine.moves import Move
    from ..players.base import Choice
    from .drawing import Drawer

HUMAN = "human"


@dataclass
class Outcome:
    """How a session ended: the winner (None if it was left), the moves and why."""

    winner: int | None
    moves: int
    reason: str
    game: Game


class Session:
    """One game between two or three players (``human`` or a computer player's name)."""

    def __init__(
        self,
        game: Game,
        kinds: tuple[str, ...],
        settings: Settings | None = None,
        seed: int | None = None,
        log: LogWriter | None = None,
        drawer: Drawer | None = None,
        terminal: Terminal | None = None,
        log_fields: list[tuple[str, object]] | None = None,
        quiet: bool = False,
    ) -> None:
        if len(kinds) != game.rules.players:
            raise PlayError(f"{game.rules.describe()} needs {game.rules.players} players, not {len(kinds)}")
        self.game = game
        self.kinds = kinds
        self.settings = settings or Settings()
        self.seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
        self.rng = random.Random(self.seed)
        self.log = log
        self.drawer = drawer
        self.term = terminal or Terminal()
        self.quiet = quiet
        self.players: dict[int, Player | None] = {
            i + 1: None if k == HUMAN else make_player(k, self.settings, len(kinds))
            for i, k in enumerate(kinds)
        }
        self.number = 0
        self.log_fields = log_fields or []

    # ------------------------------------------------------------------ helpers
    def _thinking_time(self, player: Player) -> str:
        """" (2 s)" for a player that thinks until its time is up; nothing for one that does not."""
        if player.name == "random" or (player.name == "montecarlo" and self.settings.games):
            return ""  # random answers at once; Monte Carlo with --games plays a fixed number of games
        if player.name == "parity" and self.settings.depth:
            return f" (up to {self.settings.seconds:g} s)"
        return f" ({self.settings.seconds:g} s)"

    def label(self, player: int) -> str:
        return f"player {player} ({self.kinds[player - 1]})"

    def say(self, text: str = "") -> None:
        if not self.quiet:
            self.term.say(text)

    def _record(self, kind: str, number: int, fields: Iterable[tuple[str, object]]) -> None:
        if self.log is not None:
            self.log.record(kind, number, fields)

    # ------------------------------------------------------------------ the game
    def run(self) -> Outcome:
        g = self.game
        if self.log is not None:
            s = self.settings
            self.number = self.log.new_game(
                g.start,
                [
                    ("rules", g.rules.value),
                    ("first", self.kinds[0]),
                    ("second", self.kinds[1]),
                    *([("third", self.kinds[2])] if len(self.kinds) > 2 else []),
                    ("seed", self.seed),
                    ("time", f"{s.seconds:g}"),
                    ("area", self._area()),
                    ("to-move", g.first_to_move),
                    *self.log_fields,
                ],
            )
        self.say(
            f"Sprouts, {g.rules.describe()}: "
            + " against ".join(self.label(i) for i in range(1, len(self.kinds) + 1))
            + f"; seed {self.seed}; "
            f"start {g.start.canonical()}"
        )
        if self.drawer is not None:
            self.drawer.draw(g)
        try:
            return self._loop()
        except KeyboardInterrupt:
            self._end(None, "interrupted")
            raise
        except PlayError as e:
            self._end(None, f"stopped: {e}")
            raise
        finally:
            for p in self.players.values():
                if p is not None:
                    p.close()

    def _area(self) -> str:
        if self.drawer is None:
            return "none"
        return f"{self.drawer.width:g}x{self.drawer.height:g}"

    def _loop(self) -> Outcome:
        g = self.game
        while not g.is_over():
            who = g.to_move
            player = self.players[who]
            if player is None:
                answer = ask_move(g, self.term, self.label(who))
                if answer.action == "quit":
                    return self._end(None, f"quit by player {who}")
                if answer.action == "undo":
                    self._undo()
                    continue
                assert answer.move is not None
                self._play(answer.move, HUMAN, answer.words, None)
            else:
                if HUMAN in self.kinds and not self.quiet:
                    self.term.status(f"{self.label(who)} is thinking{self._thinking_time(player)}…")
                t0 = time.monotonic()
                choice = player.choose(g.position, g.rules, self.rng)
                self._think(player, choice, time.monotonic() - t0)
                self._play(choice.move, player.name, None, choice.summary)
        winner = g.winner()
        assert winner is not None
        stuck = g.to_move
        if g.rules.players == 3:
            reason = f"player {stuck} cannot move, player {winner} made the last move (three players)"
        elif g.rules.stuck_player_wins:
            reason = f"player {stuck} cannot move and wins (misère play)"
        else:
            reason = f"player {stuck} cannot move and loses (normal play)"
        return self._end(winner, "no move left: " + reason)

    def _think(self, player: Player, choice: Choice, seconds: float) -> None:
        k = self.game.moves_made + 1
        if self.log is None:
            return
        fields = [("player", self.game.to_move), ("by", player.name), *choice.fields]
        if not any(key == "seconds" for key, _ in fields):
            fields.append(("seconds", f"{seconds:.2f}"))
        self.log.record("think", k, fields)
        from ..engine.naming import move_words

        p = self.game.position
        for move, value in choice.candidates[:MAX_LOGGED_CANDIDATES]:
            self.log.record("think", k, [("candidate", move_words(p, move)), ("value", value)])

    def _play(self, move: Move, by: str, words: str | None, summary: str | None) -> None:
        g = self.game
        before = g.position
        prefer = getattr(self.drawer, "prefer", None)
        if prefer is not None and words is None:  # the computer's move: the drawing picks its boundaries
            move = prefer(before, move)
        if words is None:  # the move its words will name (the same position up to spot names)
            from ..engine.naming import named_move

            move = named_move(before, move)
        step = g.play(move, by, words)
        k = g.moves_made
        self._record(
            "move",
            k,
            [
                ("player", step.player),
                ("by", by),
                *move_fields(before, step.after, step.words, step.effect, g.complete),
            ],
        )
        note = f" — {summary}" if summary else ""
        self.say(f"{k:>3}. {self.label(step.player)}: {step.words}{note}")
        if self.drawer is not None:
            try:
                self.drawer.draw(g, title=f"move {k}: {step.words}")
            except PlayError as e:
                self._record("note", k, [("drawing", str(e))])
                raise
            how = getattr(self.drawer, "drawn_by", None)  # a drawer that says how it drew
            drawn = [("drawn", f"{self.drawer.seconds:.2f} s"), ("drawn-by", how)]
            smaller = getattr(self.drawer, "smaller", ())
            if smaller:
                drawn.append(("smaller", ", ".join(str(s + 1) for s in smaller)))
            for line in getattr(self.drawer, "layouts", []):  # Z ran: each layout's outcome, why it failed
                self._record("note", k, [("layout", line)])
            self._record("note", k, drawn)

    def _undo(self) -> None:
        g = self.game
        if not g.played:
            self.term.say("There is no move to take back.")
            return
        while True:
            step = g.undo()
            after = g.position
            self._record("undo", g.moves_made + 1, undo_fields(step.player, after))
            self.say(f"     took back move {g.moves_made + 1} ({step.words})")
            if not g.played or self.players[g.to_move] is None:
                break
        if self.drawer is not None:
            self.drawer.draw(g)

    def _end(self, winner: int | None, reason: str) -> Outcome:
        g = self.game
        self._record(
            "end",
            self.number,
            [
                ("moves", g.moves_made),
                ("winner", winner if winner is not None else "none"),
                ("reason", reason),
            ],
        )
        if winner is not None:
            self.say(f"{self.label(winner)} wins after {g.moves_made} moves ({reason}).")
        else:
            self.say(f"Game left after {g.moves_made} moves ({reason}).")
        return Outcome(winner, g.moves_made, reason, g)


#: The best few candidates of each computer move are written to the log.
MAX_LOGGED_CANDIDATES = 12
