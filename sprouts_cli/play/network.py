"""Two computers (Alfeld §6): two people, each at a terminal of their own, play over TCP.

One side hosts (``sprouts play --host``): it listens on the loopback address and
prints a room code (host and port); the other joins (``sprouts play --join CODE``).
The host is player 1 and alone starts the game.  Only people play over the network.

**What travels.**  Only topological moves, never pictures: a move is its two end
spots, the spots it encloses on one side (for a move within one boundary), and the
key of the position it gives and of that position's mirror image (the other side
may draw it either way round).  Spot numbers agree on both sides (both start from
the same numbered position and every move adds the next spot).  The receiver finds
the move among its own legal moves (the words' reading, ``naming.moves_from_words``)
by the key, plays it, draws it if it keeps a picture, and acknowledges it; if it
cannot, it refuses and the sender takes the move back.

**The protocol.**  JSON objects, one per line, over an asyncio TCP stream.  Every
message carries ``k``, the number of moves made so far (for an action: before it).
The types are ``hello`` (with the program and protocol version), ``game`` (the
start), ``move``, ``undo``, ``ack``, ``refuse``, ``resend``, ``heartbeat`` and ``bye``.

* After an action (a move, or an undo of the last move, which either player may
  ask for) the actor waits until the other side acknowledges it; meanwhile it
  accepts no other action.  Every action has an id, so one that arrives twice
  (after a reconnection) is acknowledged again, not played again.
* If both act at once (the same ``k``), the host's action wins: the host refuses
  the guest's, and the guest takes its own back and applies the host's.
* A message whose ``k`` is ahead of the receiver's means that something was missed:
  the receiver asks for a resend, and the sender sends its unacknowledged action
  again.
* Heartbeats every 3 seconds carry ``k`` and the key of the position, so that a
  divergence between the two computers is caught and reported (it would be a bug).
* A channel on which nothing has arrived for 10 seconds is rebuilt: the guest
  dials again and the host takes the new connection.  A dropped connection is
  rebuilt the same way, and the game resumes where it was: the unacknowledged
  action is sent again and nothing is lost.
* ``bye`` ends the game (a player quits, or the game is over and both have seen it).

Only loopback addresses are used: to play across machines, forward the port (for
example with ``ssh -L``).  Every wait is bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import hashlib
import ipaddress
import json
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .. import __version__ as VERSION
from ..engine.moves import Move, apply_move
from ..engine.naming import (
    MoveWords,
    lives_text,
    move_shape,
    moves_from_words,
    numbered_text,
    parse_lives,
    parse_numbered,
)
from ..engine.position import Position
from ..engine.rules import Rules
from ..errors import NetError, SproutsError
from .game import Game

#: The protocol's version: both sides must speak the same.
PROTOCOL = 1
#: Seconds between heartbeats, and of silence after which a channel is rebuilt (Alfeld §6).
HEARTBEAT = 3.0
SILENCE = 10.0
#: The longest line accepted (bytes); a longer one is a broken peer.
MAX_LINE = 1 << 20
#: How long the guest keeps dialling before it gives up, and the host waits for a guest.
WAIT = 120.0
TYPES = ("hello", "game", "move", "undo", "ack", "refuse", "resend", "heartbeat", "bye")
LOOPBACK = "127.0.0.1"


# ---------------------------------------------------------------------- codes and keys


def room_code(host: str, port: int) -> str:
    return f"{host}:{port}"


def parse_code(code: str) -> tuple[str, int]:
    """``HOST:PORT`` or ``PORT``; only loopback hosts (this computer) are accepted."""
    text = code.strip()
    host, sep, port_text = text.rpartition(":")
    if not sep:
        host, port_text = LOOPBACK, text
    host = host.strip("[]") or LOOPBACK
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise NetError(f"{code!r} is not a room code: write it as HOST:PORT, e.g. 127.0.0.1:40123")
    if host == "localhost":
        host = LOOPBACK
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        raise NetError(f"{host!r} in the room code {code!r} is not an IP address") from None
    if not address.is_loopback:
        raise NetError(
            f"{host} is not a loopback address: network play uses this computer only "
            "(forward the port, e.g. with ssh -L, to play across machines)"
        )
    return str(address), int(port_text)


def position_key(p: Position, mirror: bool = False) -> str:
    """A short key of the numbered position (spots as numbered in the game), or of its mirror image."""
    regions = p.regions if not mirror else tuple(tuple(b[::-1] for b in r) for r in p.regions)
    rotations = tuple(
        sorted(
            tuple(sorted(min((b[i:] + b[:i] for i in range(len(b))), default=()) for b in r)) for r in regions
        )
    )
    text = repr((rotations, p.lives, p.heaps))
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def same_position(key: str, p: Position) -> bool:
    return key in (position_key(p), position_key(p, mirror=True))


def move_message(before: Position, m: Move) -> dict:
    """A move as it travels: end spots, spots enclosed on one side, keys of the result (1-based spots)."""
    after = apply_move(before, m, check=False)
    shape = move_shape(before, m)
    enclosed = sorted(s + 1 for s in shape.side_a.spots) if shape.side_a is not None else []
    return {
        "ends": [shape.x + 1, shape.y + 1],
        "enclosed": enclosed,
        "key": position_key(after),
        "mirror": position_key(after, mirror=True),
    }


def find_move(p: Position, data: dict) -> Move | None:
    """The legal move of ``p`` with these end spots and enclosed spots that gives the position keyed."""
    try:
        a, b = (int(s) - 1 for s in data["ends"])
        enclosed = frozenset(int(s) - 1 for s in data.get("enclosed", []))
        keys = {str(data["key"]), str(data.get("mirror", data["key"]))}
    except (KeyError, TypeError, ValueError):
        return None
    try:
        fits = moves_from_words(p, MoveWords(a, b, enclosed, None))
    except SproutsError:
        return None
    for m in fits:
        after = apply_move(p, m, check=False)
        if position_key(after) in keys or position_key(after, mirror=True) in keys:
            return m
    return None


def encode(message: dict) -> bytes:
    return (json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8")


def decode(line: bytes) -> dict | None:
    """A message, or None when the line is not one (it is then ignored)."""
    try:
        message = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(message, dict) or message.get("type") not in TYPES:
        return None
    if not isinstance(message.get("k"), int) or message["k"] < 0:
        return None
    return message


def start_message(game: Game, game_id: str) -> dict:
    p = game.start
    return {
        "type": "game",
        "k": 0,
        "id": game_id,
        "rules": game.rules.value,
        "first": game.first_to_move,
        "numbered": numbered_text(p),
        "lives": lives_text(p),
    }


def game_from_message(message: dict) -> tuple[Game, str]:
    try:
        start = parse_numbered(str(message["numbered"]), parse_lives(str(message["lives"])))
        rules = Rules(str(message["rules"]))
        first = int(message.get("first", 1))
    except (KeyError, ValueError, SproutsError) as e:
        raise NetError(f"the host's game cannot be read: {e}") from None
    if rules.players != 2:
        raise NetError("network play is for two players")
    return Game(start, rules, first_to_move=first), str(message["id"])


# ---------------------------------------------------------------------- the session


@dataclass
class Pending:
    """Our action waiting for the other side's acknowledgement, and how to take it back."""

    id: str
    message: dict
    revert: Callable[[], None]
    sent_at: float = field(default_factory=time.monotonic)


class Ui:
    """Where the game is shown and answered: printing, and lines typed at the terminal."""

    def __init__(self, say: Callable[[str], None] | None = None) -> None:
        self._say = say or (lambda text: print(text, flush=True))

    def say(self, text: str = "") -> None:
        self._say(text)

    def prompt(self, text: str) -> None:
        print(text, end="", flush=True)


class NetPlay:
    """One side of a network game: the state machine of Alfeld §6 and its connection."""

    def __init__(
        self,
        role: str,
        game: Game | None,
        ui: Ui,
        log=None,
        drawer=None,
        heartbeat: float = HEARTBEAT,
        silence: float = SILENCE,
        wait: float = WAIT,
    ) -> None:
        assert role in ("host", "guest")
        self.role = role
        self.me = 1 if role == "host" else 2
        self.game = game
        self.game_id = f"{int(time.time() * 1000):x}" if role == "host" else None
        self.ui = ui
        self.log = log
        self.log_number = 0
        self.drawer = drawer
        self.heartbeat = heartbeat
        self.silence = silence
        self.wait = wait
        self.pending: Pending | None = None
        self.applied: dict[str, dict] = {}  # the peer's action ids already applied → our ack
        self.counter = 0
        self.writer: asyncio.StreamWriter | None = None
        self.connected = asyncio.Event()
        self.finished = asyncio.Event()
        self.result = ""
        self.reported: set[tuple[int, str]] = set()
        self.last_resend_ask = 0.0
        self.lines: asyncio.Queue[str | None] = asyncio.Queue()
        self.prompted_at: int | None = None
        self.over_said = False
        self.peer_said_bye = False
        self.error: BaseException | None = None
        self.busy = asyncio.Lock()

    # ------------------------------------------------------------------ helpers
    @property
    def k(self) -> int:
        return self.game.moves_made if self.game is not None else 0

    def label(self, player: int) -> str:
        who = "you" if player == self.me else "the other player"
        return f"player {player} ({who})"

    def next_id(self) -> str:
        self.counter += 1
        return f"{self.role}-{self.counter}"

    async def send(self, message: dict) -> None:
        w = self.writer
        if w is None or w.is_closing():
            return
        try:
            w.write(encode(message))
            await asyncio.wait_for(w.drain(), timeout=self.silence)
        except (OSError, asyncio.TimeoutError, ConnectionError):
            self._drop(w, "the connection was lost while sending")

    def _drop(self, w: asyncio.StreamWriter | None, why: str) -> None:
        if w is not None and w is self.writer:
            self.writer = None
            self.connected.clear()
            with contextlib.suppress(Exception):
                w.close()
            if not self.finished.is_set():
                self.ui.say(f"… {why}; the channel is being rebuilt (the game is kept)")

    def _record(self, kind: str, number: int, fields) -> None:
        if self.log is not None:
            self.log.record(kind, number, fields)

    # ------------------------------------------------------------------ the game shown
    def show_turn(self) -> None:
        """The position and, on our turn, the moves and the prompt (once per position)."""
        from .human import describe_position, list_moves

        g = self.game
        if g is None or self.finished.is_set():
            return
        if g.is_over():
            if not self.over_said:
                self.over_said = True
                winner = g.winner()
                assert winner is not None  # a game that is over has a winner
                self.ui.say(f"Game over after {g.moves_made} moves: {self.label(winner)} wins.")
                self.ui.prompt("the game is over (undo, quit): ")
            return
        self.over_said = False
        if self.prompted_at == g.moves_made:
            return
        self.prompted_at = g.moves_made
        self.ui.say("")
        for line in describe_position(g):
            self.ui.say(line)
        if g.to_move == self.me:
            moves = g.named_moves()
            self.ui.say(f"Moves ({len(moves)}):")
            for line in list_moves(moves):
                self.ui.say(line)
            self.ui.prompt(f"{self.label(self.me)}, your move (number or words; undo, quit, help): ")
        else:
            self.ui.say(f"waiting for {self.label(g.to_move)} (you may type undo or quit)")

    def _applied_move(self, step, by_me: bool) -> None:
        """A move made here or received: logged and shown (after it was drawn, if pictures are kept)."""
        g = self.game
        assert g is not None
        self._record_move(step)
        who = "you" if by_me else "the other player"
        self.ui.say(f"{g.moves_made:>3}. player {step.player} ({who}): {step.words}")

    def _draw(self) -> None:
        """Draw the position into this side's picture (``--save``/``--svg``); PlayError if it cannot be."""
        if self.drawer is not None and self.game is not None:
            self.drawer.draw(self.game)

    async def _draw_move(self) -> None:
        """Draw a new move in a thread, so that heartbeats go on while the router works."""
        if self.drawer is None or self.game is None:
            return
        snapshot = copy.copy(self.game)
        snapshot.played = list(self.game.played)
        await asyncio.to_thread(self.drawer.draw, snapshot)

    def _redraw(self) -> None:
        """After an undo: the earlier picture is kept, so this does not fail; if it does, say so."""
        try:
            self._draw()
        except SproutsError as e:
            self.ui.say(f"     (the picture could not follow: {e})")

    def _undone(self, step, by_me: bool) -> None:
        g = self.game
        assert g is not None
        self._record(
            "undo",
            g.moves_made + 1,
            [
                ("player", step.player),
                ("position", g.position.canonical()),
                ("numbered", numbered_text(g.position)),
            ],
        )
        who = "you" if by_me else "the other player"
        self.ui.say(f"     took back move {g.moves_made + 1} ({step.words}), asked by {who}")
        self._redraw()

    # ------------------------------------------------------------------ our actions
    async def on_line(self, text: str | None) -> None:
        async with self.busy:
            await self._on_line(text)

    async def _on_line(self, text: str | None) -> None:
        from .human import HELP, Terminal, list_moves, read_answer

        g = self.game
        if text is None or text.strip().lower() in ("quit", "q", "exit"):
            await self.leave(f"quit by player {self.me}")
            return
        word = text.strip().lower()
        if not word:
            return
        if g is None:
            self.ui.say("the game has not started yet")
            return
        if self.pending is not None:
            self.ui.say("waiting for the other side to confirm the last action…")
            return
        if word in ("undo", "u", "back"):
            await self.act_undo()
            return
        if word in ("help", "h", "?"):
            self.ui.say(HELP)
            return
        if g.is_over():
            self.ui.say("the game is over: undo or quit")
            return
        if g.to_move != self.me:
            self.ui.say(f"it is {self.label(g.to_move)}'s turn (you may type undo or quit)")
            return
        moves = g.named_moves()
        if word in ("moves", "list", "m"):
            for line in list_moves(moves):
                self.ui.say(line)
            return
        answer = read_answer(g, moves, text.strip(), Terminal(say=self.ui.say))
        if answer is None:
            self.ui.prompt(f"{self.label(self.me)}, your move: ")
            return
        if answer.action == "quit":
            await self.leave(f"quit by player {self.me}")
        elif answer.action == "undo":
            await self.act_undo()
        else:
            assert answer.move is not None
            await self.act_move(answer.move, answer.words)

    async def act_move(self, move: Move, words: str | None) -> None:
        g = self.game
        assert g is not None
        k = g.moves_made
        data = move_message(g.position, move)
        step = g.play(move, "human", words)
        try:
            await self._draw_move()
        except SproutsError as e:
            g.undo()
            self.ui.say(f"That move cannot be drawn here ({e}); choose another.")
            self.prompted_at = None
            self.show_turn()
            return

        def revert() -> None:
            if g.played and g.played[-1] is step:
                g.undo()
                self._undone(step, by_me=True)

        action = self._pending_action("move", k, revert, data)
        self._applied_move(step, by_me=True)
        self.ui.say("     (waiting for the other side to draw it…)")
        await self.send(action)

    async def act_undo(self) -> None:
        g = self.game
        assert g is not None
        if not g.played:
            self.ui.say("There is no move to take back.")
            return
        k = g.moves_made
        step = g.undo()

        def revert() -> None:
            g.played.append(step)
            self.ui.say(f"     move {k} ({step.words}) is back")
            self._record_move(step)
            self._redraw()

        action = self._pending_action("undo", k, revert)
        self._undone(step, by_me=True)
        await self.send(action)

    def _pending_action(
        self, kind: str, k: int, revert: Callable[[], None], data: dict | None = None
    ) -> dict:
        """Our action ``kind`` at move ``k``, kept (with how to take it back) until the other side answers."""
        action_id = self.next_id()
        action = {"type": kind, "k": k, "id": action_id, **(data or {})}
        self.pending = Pending(action_id, action, revert)
        return action

    def _record_move(self, step) -> None:
        """Log ``step``, the last move of the game."""
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

    async def leave(self, reason: str) -> None:
        await self.send({"type": "bye", "k": self.k, "reason": reason})
        self.end(reason)

    def fail(self, error: BaseException) -> None:
        """Something went wrong on this side (a peer speaking another protocol, a bug): stop, say why."""
        if self.error is None and not self.finished.is_set():
            self.error = error
            self.end(f"stopped: {error}")

    def watch(self, task: asyncio.Task) -> asyncio.Task:
        """A task of the session whose failure ends the session (it is not lost in the loop)."""

        def done(t: asyncio.Task) -> None:
            error = None if t.cancelled() else t.exception()
            if error is not None:
                self.fail(error)

        task.add_done_callback(done)
        return task

    def end(self, reason: str) -> None:
        if self.finished.is_set():
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
        self.finished.set()

    # ------------------------------------------------------------------ their messages
    async def on_message(self, m: dict) -> None:
        """One message from the other side; one message or typed line changes the game at a time."""
        async with self.busy:
            await getattr(self, "on_" + m["type"])(m)

    async def on_hello(self, m: dict) -> None:
        if m.get("protocol") != PROTOCOL:
            await self.send({"type": "refuse", "k": self.k, "reason": f"protocol {PROTOCOL} here"})
            raise NetError(
                f"the other side speaks protocol {m.get('protocol')} (sprouts {m.get('version')}); "
                f"this side speaks {PROTOCOL} (sprouts {VERSION})"
            )
        if self.role == "host" and self.game is not None and m.get("game") != self.game_id:
            await self.send(start_message(self.game, self.game_id or ""))
        if self.pending is not None:  # the channel was rebuilt: our action again
            await self.send(self.pending.message)

    async def on_game(self, m: dict) -> None:
        if self.role != "guest":
            return
        if self.game is not None and m.get("id") == self.game_id:
            return
        self.game, self.game_id = game_from_message(m)
        if self.log is not None:
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
        self.ui.say(f"The host started a game from {self.game.start.canonical()}; you are player 2.")
        await self.send({"type": "ack", "k": 0, "of": "game", "id": self.game_id})
        self.show_turn()

    async def _clash(self, m: dict) -> bool:
        """Both acted at the same k: True when the message is to be ignored (the host's action wins)."""
        if self.pending is None or self.pending.message["k"] != m["k"]:
            return False
        if self.role == "host":
            await self._refuse(m, "the host acted at the same time")
            return True
        self.ui.say("     the host acted at the same time: its action wins, yours is taken back")
        pending, self.pending = self.pending, None
        pending.revert()
        return False

    async def _seen(self, m: dict) -> bool:
        """An action already applied (sent again after a reconnection): acknowledge it again."""
        ack = self.applied.get(str(m.get("id")))
        if ack is not None:
            await self.send(ack)
            return True
        return False

    async def _current(self, m: dict) -> bool:
        """Is the peer's action for the position we are at?  (Duplicates, clashes, gaps dealt with.)"""
        if await self._seen(m):
            return False
        if await self._clash(m):
            return False
        if m["k"] > self.k:  # ahead of us: something was missed
            await self.ask_resend()
            return False
        return m["k"] == self.k  # behind us: overtaken by another action, ignored

    async def ask_resend(self) -> None:
        now = time.monotonic()
        if now - self.last_resend_ask >= min(1.0, self.heartbeat):
            self.last_resend_ask = now
            await self.send({"type": "resend", "k": self.k})

    async def on_move(self, m: dict) -> None:
        g = self.game
        if g is None or not await self._current(m):
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
                await self._draw_move()
                self._applied_move(step, by_me=False)
            except SproutsError as e:  # it cannot be drawn here
                g.undo()
                reason = f"it cannot be drawn here: {e}"
        if reason is not None:
            await self._refuse(m, reason)
            return
        await self._acknowledge(m, "move")

    async def on_undo(self, m: dict) -> None:
        g = self.game
        if g is None or not await self._current(m):
            return
        if not g.played:
            await self._refuse(m, "no move to take back")
            return
        step = g.undo()
        self._undone(step, by_me=False)
        await self._acknowledge(m, "undo")

    async def _acknowledge(self, m: dict, of: str) -> None:
        """The other side's action ``of`` ("move", "undo") is applied here: say so (again if asked)."""
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
        await self.send(ack)
        self.show_turn()

    async def _refuse(self, m: dict, reason: str) -> None:
        """The other side's action is not applied here, for ``reason``."""
        await self.send({"type": "refuse", "k": m["k"], "id": m["id"], "reason": reason})

    async def on_ack(self, m: dict) -> None:
        if self.pending is not None and m.get("id") == self.pending.id:
            self.pending = None
            # the key of the position the action gave, compared if nothing has happened since
            g = self.game
            if (
                g is not None
                and m.get("after") == self.k
                and not same_position(str(m.get("key")), g.position)
            ):
                self.report(self.k, str(m.get("key")))
            self.show_turn()
        if self.role == "host" and m.get("of") == "game":
            self.show_turn()

    async def on_refuse(self, m: dict) -> None:
        if self.pending is not None and m.get("id") == self.pending.id:
            pending, self.pending = self.pending, None
            self.ui.say(f"     the other side refused it ({m.get('reason', 'no reason given')}); taken back")
            pending.revert()
            self.prompted_at = None
            self.show_turn()

    async def on_resend(self, m: dict) -> None:
        if self.pending is not None:
            await self.send(self.pending.message)
        elif self.role == "host" and self.game is not None and m["k"] == 0 and self.game_id:
            await self.send(start_message(self.game, self.game_id))

    async def on_heartbeat(self, m: dict) -> None:
        g = self.game
        if g is None:
            if self.role == "guest":
                await self.ask_resend()
            return
        if m.get("pending") or self.pending is not None:
            if m["k"] != self.k and m.get("pending"):
                await self.ask_resend()
            return
        if m["k"] > self.k:
            await self.ask_resend()
            return
        if m["k"] == self.k and not same_position(str(m.get("key")), g.position):
            self.report(self.k, str(m.get("key")))

    def report(self, k: int, key: str) -> None:
        if (k, key) in self.reported:
            return
        self.reported.add((k, key))
        self.ui.say(
            f"!! divergence at move {k}: the other computer's position has the key {key}, this one "
            f"{position_key(self.game.position) if self.game else '?'} — the two computers disagree (a bug)"
        )

    async def on_bye(self, m: dict) -> None:
        self.peer_said_bye = True
        reason = m.get("reason") or "left"
        self.ui.say(f"The other player left ({reason}).")
        self.end(f"the other player left ({reason})")

    # ------------------------------------------------------------------ the connection
    def hello(self) -> dict:
        return {
            "type": "hello",
            "k": self.k,
            "protocol": PROTOCOL,
            "version": VERSION,
            "role": self.role,
            "game": self.game_id,
            "key": position_key(self.game.position) if self.game else None,
        }

    async def serve_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Read messages until the channel closes or stays silent too long."""
        old = self.writer
        if old is not None and old is not writer:
            self._drop(old, "a new connection replaces the old one")
        self.writer = writer
        self.connected.set()
        await self.send(self.hello())
        finished = asyncio.ensure_future(self.finished.wait())
        try:
            while not self.finished.is_set():
                read = asyncio.ensure_future(reader.readline())
                done, _ = await asyncio.wait(
                    {read, finished}, timeout=self.silence, return_when=asyncio.FIRST_COMPLETED
                )
                if read not in done:
                    read.cancel()
                    if finished in done:
                        return
                    self._drop(writer, f"nothing arrived for {self.silence:g} s")
                    return
                try:
                    line = read.result()
                except (OSError, ValueError, ConnectionError):
                    self._drop(writer, "the connection was lost")
                    return
                if not line:
                    self._drop(writer, "the connection was closed")
                    return
                if writer is not self.writer:
                    return
                message = decode(line)
                if message is not None:
                    try:
                        await self.on_message(message)
                    except NetError as e:
                        self.fail(e)
                        return
        finally:
            finished.cancel()
            if writer is self.writer and self.finished.is_set():
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(writer.drain(), timeout=1.0)

    async def beat(self) -> None:
        while not self.finished.is_set():
            await asyncio.sleep(self.heartbeat)
            if self.connected.is_set():
                await self.send(
                    {
                        "type": "heartbeat",
                        "k": self.k,
                        "key": position_key(self.game.position) if self.game else None,
                        "pending": self.pending is not None,
                    }
                )

    async def read_input(self) -> None:
        while not self.finished.is_set():
            line = await self.lines.get()
            await self.on_line(line)


def _stdin_reader(loop: asyncio.AbstractEventLoop, queue: asyncio.Queue) -> threading.Thread:
    """Lines typed at the terminal, passed to the event loop (a thread: input() blocks)."""

    def run() -> None:
        while True:
            line = sys.stdin.readline()
            loop.call_soon_threadsafe(queue.put_nowait, line if line else None)
            if not line:
                return

    t = threading.Thread(target=run, name="stdin", daemon=True)
    t.start()
    return t


async def run_host(play: NetPlay, port: int, announce: Callable[[str], None]) -> str:
    """Listen on the loopback address, print the room code, and play until the game ends."""
    server = await asyncio.start_server(
        play.serve_connection, LOOPBACK, port, limit=MAX_LINE, family=socket.AF_INET
    )
    bound = server.sockets[0].getsockname()[1]
    announce(room_code(LOOPBACK, bound))
    if play.log is not None and play.game is not None:
        play.log_number = play.log.new_game(
            play.game.start,
            [
                ("rules", play.game.rules.value),
                ("first", "human"),
                ("second", "human"),
                ("seed", 0),
                ("time", "0"),
                ("area", "none"),
                ("to-move", play.game.first_to_move),
            ],
        )
    tasks = [play.watch(asyncio.create_task(play.beat())), play.watch(asyncio.create_task(play.read_input()))]
    try:
        waited = asyncio.create_task(play.connected.wait())
        done, _ = await asyncio.wait(
            {waited, asyncio.create_task(play.finished.wait())},
            timeout=play.wait,
            return_when=asyncio.FIRST_COMPLETED,
        )
        if not done:
            raise NetError(f"no guest joined within {play.wait:g} s")
        play.ui.say("A guest joined: you are player 1.")
        play.show_turn()
        await _until_finished(play)
    finally:
        for t in tasks:
            t.cancel()
        server.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(server.wait_closed(), timeout=2.0)
    return play.result


async def run_guest(play: NetPlay, host: str, port: int) -> str:
    """Dial the host (again after every lost channel) and play until the game ends."""
    tasks = [play.watch(asyncio.create_task(play.beat())), play.watch(asyncio.create_task(play.read_input()))]
    try:
        first = True
        while not play.finished.is_set():
            reader, writer = await _dial(play, host, port)
            if not first:
                play.ui.say(f"… connected again; the game goes on at move {play.k}")
            first = False
            await play.serve_connection(reader, writer)
    finally:
        for t in tasks:
            t.cancel()
        if play.writer is not None:
            with contextlib.suppress(Exception):
                play.writer.close()
    return play.result


async def _dial(play: NetPlay, host: str, port: int):
    deadline = time.monotonic() + play.wait
    delay = 0.1
    while True:
        try:
            return await asyncio.wait_for(asyncio.open_connection(host, port, limit=MAX_LINE), timeout=5.0)
        except (OSError, asyncio.TimeoutError) as e:
            if time.monotonic() + delay > deadline:
                raise NetError(f"cannot reach the host at {room_code(host, port)}: {e}") from None
            await asyncio.sleep(delay)
            delay = min(delay * 2, 1.0)


async def _until_finished(play: NetPlay) -> None:
    """Wait for the end; a host whose guest stays away too long gives up (bounded)."""
    away_since: float | None = None
    while not play.finished.is_set():
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(play.finished.wait(), timeout=0.5)
        if play.connected.is_set():
            away_since = None
        elif away_since is None:
            away_since = time.monotonic()
        elif time.monotonic() - away_since > play.wait:
            raise NetError(f"the guest has been away for {play.wait:g} s; the game is given up")


def play_over_network(
    role: str,
    game: Game | None,
    code: str | None = None,
    port: int = 0,
    log=None,
    drawer=None,
    heartbeat: float = HEARTBEAT,
    silence: float = SILENCE,
    wait: float = WAIT,
    say: Callable[[str], None] | None = None,
    announce: Callable[[str], None] | None = None,
) -> NetPlay:
    """Run one side of a network game to its end; returns the session (its game and result)."""

    async def main() -> NetPlay:
        ui = Ui(say)
        play = NetPlay(role, game, ui, log, drawer, heartbeat, silence, wait)
        _stdin_reader(asyncio.get_running_loop(), play.lines)
        if role == "host":
            await run_host(play, port, announce or ui.say)
        else:
            assert code is not None
            host, p = parse_code(code)
            await run_guest(play, host, p)
        if play.error is not None:
            error = play.error
            raise error if isinstance(error, NetError) else NetError(f"the game stops: {error}")
        return play

    return asyncio.run(main())


__all__ = [
    "HEARTBEAT",
    "PROTOCOL",
    "SILENCE",
    "NetError",
    "NetPlay",
    "decode",
    "encode",
    "find_move",
    "move_message",
    "parse_code",
    "play_over_network",
    "position_key",
    "room_code",
]
