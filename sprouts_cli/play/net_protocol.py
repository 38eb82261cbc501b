"""The protocol of two computers (Alfeld §6) as a state machine without I/O.

A :class:`Protocol` is one side of a network game.  It is fed the other side's
messages (:meth:`Protocol.receive`) and this side's actions (:meth:`act_move`,
:meth:`act_undo`, :meth:`leave`), and it answers by putting messages in its
``outbox`` and telling its :class:`View` what happened; it never touches a socket,
a clock it was not given, or the terminal, so it is tested by passing messages by
hand.  The transports (``net_tcp.py``) carry the outbox and the view shows it.

The rules:

* Every message carries ``k``, the number of moves made so far (for an action:
  before it).  The types are ``hello``, ``game`` (the start), ``move``, ``undo``,
  ``ack``, ``refuse``, ``resend``, ``heartbeat`` and ``bye``.
* After an action (a move, or an undo of the last move, which either player may
  ask for) the actor waits until the other side acknowledges it; meanwhile it
  takes no other action.  Every action has an id, so one that arrives twice
  (after a reconnection) is acknowledged again, not played again.
* If both act at once (the same ``k``), the host's action wins: the host refuses
  the guest's, and the guest takes its own back and applies the host's.
* A message whose ``k`` is ahead of the receiver's means that something was
  missed: the receiver asks for a resend, and the sender sends its
  unacknowledged action again.
* Heartbeats carry ``k`` and the key of the position, so that a divergence
  between the two computers is caught and reported (it would be a bug).
* The receiver of a move finds it among its own legal moves by its spots and the
  key of its result, plays it and draws it (``drawer``); if it cannot, it refuses
  and the sender takes the move back.
* ``bye`` ends the game.
"""

from __future__ import annotations

import time
import typing
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import __version__ as VERSION
from ..engine.moves import Move
from ..errors import NetError, SproutsError
from .game import Game, Played
from .net_messages import (
    PROTOCOL,
    find_move,
    game_from_message,
    move_message,
    position_key,
    same_position,
    start_message,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..log import LogWriter


class Draws(typing.Protocol):
    """What draws the game after each change: a terminal's ``drawing.Drawer``, or the web page's game."""

    def draw(self, game: Game) -> object: ...


@dataclass
class Pending:
    """Our action waiting for the other side's acknowledgement, and how to take it back."""

    id: str
    message: dict[str, Any]
    revert: Callable[[], None]
    sent_at: float = field(default_factory=time.monotonic)


class View:
    """Where one side's game is shown: lines said, and the turn shown again after a change."""

    def __init__(self, say: Callable[[str], None] | None = None) -> None:
        self._say = say or (lambda text: None)

    def say(self, text: str = "") -> None:
        self._say(text)

    def turn(self, play: Protocol) -> None:
        """The game changed (or an action was answered): show whose turn it is."""

    def refused(self, play: Protocol) -> None:
        """Our action was refused and taken back: show the turn again."""
        self.turn(play)


class Protocol:
    """One side of a network game: the state machine of Alfeld §6."""

    def __init__(
        self,
        role: str,
        game: Game | None,
        view: View | None = None,
        log: LogWriter | None = None,
        drawer: Draws | None = None,
        heartbeat: float = 3.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if role not in ("host", "guest"):
            raise ValueError(f"role {role!r}")
        self.role = role
        self.me = 1 if role == "host" else 2
        self.game = game
        self.game_id = f"{int(time.time() * 1000):x}" if role == "host" else None
        self.view = view or View()
        self.log = log
        self.log_number = 0
        self.drawer = drawer
        self.heartbeat = heartbeat
        self.clock = clock
        self.pending: Pending | None = None
        self.applied: dict[str, dict[str, Any]] = {}  # the peer's action ids already applied → our ack
        self.counter = 0
        self.outbox: list[dict[str, Any]] = []
        self.finished = False
        self.result = ""
        self.reported: set[tuple[int, str]] = set()
        self.last_resend_ask = -1e9
        self.peer_said_bye = False
        self.error: BaseException | None = None

    # ------------------------------------------------------------------ helpers
    @property
    def k(self) -> int:
        return self.game.moves_made if self.game is not None else 0

    def label(self, player: int) -> str:
        who = "you" if player == self.me else "the other player"
        return f"player {player} ({who})"

    def send(self, message: dict[str, Any]) -> None:
        self.outbox.append(message)

    def take_outbox(self) -> list[dict[str, Any]]:
        out, self.outbox = self.outbox, []
        return out

    def next_id(self) -> str:
        self.counter += 1
        return f"{self.role}-{self.counter}"

    def say(self, text: str) -> None:
        self.view.say(text)

    def _record(self, kind: str, number: int, fields: Iterable[tuple[str, object]]) -> None:
        if self.log is not None:
            self.log.record(kind, number, fields)

    def new_log_game(self) -> None:
        if self.log is not None and self.game is not None:
            self.log_number = self.log.new_game(
                self.game.start,
                [
                    ("rules", self.game.rules.value),
                    ("first", "human"),
                    ("second", "human"),
                    ("seed", 0),
                    ("time", "0"),
                    ("area", "none"),
                    ("to-move", self.game.first_to_move),
                ],
            )

    def _draw(self) -> None:
        """Draw the position into this side's picture; SproutsError if it cannot be."""
        if self.drawer is not None and self.game is not None:
            self.drawer.draw(self.game)

    def _redraw(self) -> None:
        """After an undo: the earlier picture is kept, so this does not fail; if it does, say so."""
        try:
            self._draw()
        except SproutsError as e:
            self.say(f"     (the picture could not follow: {e})")

    def _record_move(self, step: Played) -> None:
        from ..log import move_fields

        g = self.game
        assert g is not None
        before = g.played[-2].after if len(g.played) > 1 else g.start
        self._record(
            "move",
            g.moves_made,
            [
                ("player", step.player),
                ("by", "human"),
                *move_fields(before, step.after, step.words, step.effect, g.complete),
            ],
        )

    def _applied_move(self, step: Played, by_me: bool) -> None:
        g = self.game
        assert g is not None
        self._record_move(step)
        who = "you" if by_me else "the other player"
        self.say(f"{g.moves_made:>3}. player {step.player} ({who}): {step.words}")

    def _undone(self, step: Played, by_me: bool) -> None:
        g = self.game
        assert g is not None
        from ..log import undo_fields

        self._record("undo", g.moves_made + 1, undo_fields(step.player, g.position))
        who = "you" if by_me else "the other player"
        self.say(f"     took back move {g.moves_made + 1} ({step.words}), asked by {who}")
        self._redraw()

    # ------------------------------------------------------------------ our actions
    def can_act(self) -> str | None:
        """Why this side may not act now (None when it may)."""
        if self.finished:
            return "the game has ended"
        if self.game is None:
            return "the game has not started yet"
        if self.pending is not None:
            return "waiting for the other side to confirm the last action"
        return None

    def act_move(self, move: Move, words: str | None = None, drawn: bool = False) -> str | None:
        """Play and send our move; the reason it was not played, or None.

        ``drawn``: the caller has drawn it already (the page draws a person's move
        itself, stroke and all); otherwise the drawer draws it here.
        """
        why = self.can_act()
        g = self.game
        if why is None and g is not None and g.to_move != self.me:
            why = f"it is {self.label(g.to_move)}'s turn"
        if why is not None or g is None:
            return why
        k = g.moves_made
        data = move_message(g.position, move)
        step = g.play(move, "human", words)
        if not drawn:
            try:
                self._draw()
            except SproutsError as e:
                g.undo()
                return f"that move cannot be drawn here ({e})"

        def revert() -> None:
            if g.played and g.played[-1] is step:
                g.undo()
                self._undone(step, by_me=True)

        action = self._pending_action("move", k, revert, data)
        self._applied_move(step, by_me=True)
        self.say("     (waiting for the other side to draw it…)")
        self.send(action)
        return None

    def act_undo(self, undone: Played | None = None) -> str | None:
        """Take back the last move (either player may) and send the undo; why not, or None.

        ``undone``: the caller has taken the move back already (and its picture).
        """
        why = self.can_act()
        g = self.game
        if why is None and g is not None and not g.played and undone is None:
            why = "there is no move to take back"
        if why is not None or g is None:
            return why
        step = undone if undone is not None else g.undo()
        k = g.moves_made + 1

        def revert() -> None:
            g.played.append(step)
            self.say(f"     move {k} ({step.words}) is back")
            self._record_move(step)
            self._redraw()

        action = self._pending_action("undo", k, revert)
        self._undone(step, by_me=True)
        self.send(action)
        return None

    def _pending_action(
        self, kind: str, k: int, revert: Callable[[], None], data: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        action_id = self.next_id()
        action = {"type": kind, "k": k, "id": action_id, **(data or {})}
        self.pending = Pending(action_id, action, revert, self.clock())
        return action

    def leave(self, reason: str) -> None:
        self.send({"type": "bye", "k": self.k, "reason": reason})
        self.end(reason)

    def fail(self, error: BaseException) -> None:
        """Something went wrong on this side (a peer speaking another protocol, a bug): stop, say why."""
        if self.error is None and not self.finished:
            self.error = error
            self.end(f"stopped: {error}")

    def end(self, reason: str) -> None:
        if self.finished:
            return
        self.result = reason
        g = self.game
        if g is not None:
            winner = g.winner()
            outcome = "wins (misère play)" if g.rules.stuck_player_wins else "loses (normal play)"
            why = f"no move left: player {g.to_move} cannot move and {outcome}" if winner else reason
            self._record(
                "end",
                self.log_number,
                [("moves", g.moves_made), ("winner", winner or "none"), ("reason", why)],
            )
        self.finished = True

    # ------------------------------------------------------------------ messages out
    def hello(self) -> dict[str, Any]:
        return {
            "type": "hello",
            "k": self.k,
            "protocol": PROTOCOL,
            "version": VERSION,
            "role": self.role,
            "game": self.game_id,
            "key": position_key(self.game.position) if self.game else None,
        }

    def beat(self) -> dict[str, Any]:
        return {
            "type": "heartbeat",
            "k": self.k,
            "key": position_key(self.game.position) if self.game else None,
            "pending": self.pending is not None,
        }

    # ------------------------------------------------------------------ messages in
    def receive(self, m: dict[str, Any]) -> None:
        """One message of the other side (already checked: a known type and a ``k``).

        A malformed field makes the message ignored: it never changes the game.
        NetError when the other side speaks another protocol.
        """
        if self.finished:
            return
        handler = getattr(self, "on_" + str(m.get("type")), None)
        if handler is None:
            return
        try:
            handler(m)
        except NetError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError):
            return  # a message with a field of the wrong kind: ignored

    def on_hello(self, m: dict[str, Any]) -> None:
        if m.get("protocol") != PROTOCOL:
            self.send({"type": "refuse", "k": self.k, "reason": f"protocol {PROTOCOL} here"})
            raise NetError(
                f"the other side speaks protocol {m.get('protocol')} (sprouts {m.get('version')}); "
                f"this side speaks {PROTOCOL} (sprouts {VERSION})"
            )
        if self.role == "host" and self.game is not None and m.get("game") != self.game_id:
            self.send(start_message(self.game, self.game_id or ""))
        if self.pending is not None:  # the channel was rebuilt: our action again
            self.send(self.pending.message)

    def on_game(self, m: dict[str, Any]) -> None:
        if self.role != "guest":
            return
        if self.game is not None and m.get("id") == self.game_id:
            return
        if self.game is not None:
            return  # a second game while one is being played is not taken
        self.game, self.game_id = game_from_message(m)
        self.new_log_game()
        self.say(f"The host started a game from {self.game.start.canonical()}; you are player 2.")
        self._redraw()
        self.send({"type": "ack", "k": 0, "of": "game", "id": self.game_id})
        self.view.turn(self)

    def _clash(self, m: dict[str, Any]) -> bool:
        """Both acted at the same k: True when the message is to be ignored (the host's action wins)."""
        if self.pending is None or self.pending.message["k"] != m["k"]:
            return False
        if self.role == "host":
            self._refuse(m, "the host acted at the same time")
            return True
        self.say("     the host acted at the same time: its action wins, yours is taken back")
        pending, self.pending = self.pending, None
        pending.revert()
        return False

    def _current(self, m: dict[str, Any]) -> bool:
        """Is the peer's action for the position we are at?  (Duplicates, clashes, gaps dealt with.)"""
        if not isinstance(m.get("id"), str):
            return False
        ack = self.applied.get(m["id"])
        if ack is not None:  # sent again after a reconnection: acknowledged again
            self.send(ack)
            return False
        if self._clash(m):
            return False
        if m["k"] > self.k:  # ahead of us: something was missed
            self.ask_resend()
            return False
        return bool(m["k"] == self.k)  # behind us: overtaken by another action, ignored

    def ask_resend(self) -> None:
        now = self.clock()
        if now - self.last_resend_ask >= min(1.0, self.heartbeat):
            self.last_resend_ask = now
            self.send({"type": "resend", "k": self.k})

    def on_move(self, m: dict[str, Any]) -> None:
        g = self.game
        if g is None or not self._current(m):
            return
        reason = None
        if g.to_move == self.me:
            reason = f"it is player {self.me}'s turn"
        move = find_move(g.position, m) if reason is None else None
        if reason is None and move is None:
            reason = "no legal move here has these spots and gives that position"
        if reason is None:
            assert move is not None
            step = g.play(move, "human")
            try:
                self._draw()
                self._applied_move(step, by_me=False)
            except SproutsError as e:  # it cannot be drawn here
                g.undo()
                reason = f"it cannot be drawn here: {e}"
        if reason is not None:
            self._refuse(m, reason)
            return
        self._acknowledge(m, "move")

    def on_undo(self, m: dict[str, Any]) -> None:
        g = self.game
        if g is None or not self._current(m):
            return
        if not g.played:
            self._refuse(m, "no move to take back")
            return
        step = g.undo()
        self._undone(step, by_me=False)
        self._acknowledge(m, "undo")

    def _acknowledge(self, m: dict[str, Any], of: str) -> None:
        assert self.game is not None
        ack = {
            "type": "ack",
            "k": m["k"],
            "of": of,
            "id": m["id"],
            "after": self.k,
            "key": position_key(self.game.position),
        }
        self.applied[str(m["id"])] = ack
        self.send(ack)
        self.view.turn(self)

    def _refuse(self, m: dict[str, Any], reason: str) -> None:
        self.send({"type": "refuse", "k": m["k"], "id": m.get("id"), "reason": reason})

    def on_ack(self, m: dict[str, Any]) -> None:
        if self.pending is not None and m.get("id") == self.pending.id:
            self.pending = None
            g = self.game
            if (
                g is not None
                and m.get("after") == self.k
                and not same_position(str(m.get("key")), g.position)
            ):
                self.report(self.k, str(m.get("key")))
            self.view.turn(self)
        if self.role == "host" and m.get("of") == "game":
            self.view.turn(self)

    def on_refuse(self, m: dict[str, Any]) -> None:
        if self.pending is not None and m.get("id") == self.pending.id:
            pending, self.pending = self.pending, None
            why = str(m.get("reason", "no reason given"))[:200]
            self.say(f"     the other side refused it ({why}); taken back")
            pending.revert()
            self.view.refused(self)

    def on_resend(self, m: dict[str, Any]) -> None:
        if self.pending is not None:
            self.send(self.pending.message)
        elif self.role == "host" and self.game is not None and m["k"] == 0 and self.game_id:
            self.send(start_message(self.game, self.game_id))

    def on_heartbeat(self, m: dict[str, Any]) -> None:
        g = self.game
        if g is None:
            if self.role == "guest":
                self.ask_resend()
            return
        if m.get("pending") or self.pending is not None:
            if m["k"] != self.k and m.get("pending"):
                self.ask_resend()
            return
        if m["k"] > self.k:
            self.ask_resend()
            return
        if m["k"] == self.k and not same_position(str(m.get("key")), g.position):
            self.report(self.k, str(m.get("key")))

    def report(self, k: int, key: str) -> None:
        if (k, key) in self.reported:
            return
        self.reported.add((k, key))
        here = position_key(self.game.position) if self.game else "?"
        self.say(
            f"!! divergence at move {k}: the other computer's position has the key {key[:40]}, this one "
            f"{here} — the two computers disagree (a bug)"
        )

    def on_bye(self, m: dict[str, Any]) -> None:
        self.peer_said_bye = True
        reason = str(m.get("reason") or "left")[:200]
        self.say(f"The other player left ({reason}).")
        self.end(f"the other player left ({reason})")


__all__ = ["Pending", "Protocol", "View"]
