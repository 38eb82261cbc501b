"""The TCP transport of network play (Alfeld §6), and the terminal that plays over it.

A :class:`Channel` carries one :class:`~.net_protocol.Protocol`'s messages over an
asyncio TCP stream, one sealed JSON line each (``net_messages.Sealer``).  The host
listens (on the loopback address unless asked for another with ``--bind``); the
guest dials.  A connection counts only once its first line is sealed with the
room code's secret: a peer that cannot prove it knows the secret gets one
``denied`` line and is closed, and the game's channel is left as it was.

Heartbeats go every few seconds; a channel on which nothing has arrived for
``silence`` seconds is closed and rebuilt (the guest dials again and the host
takes the new connection), and the game resumes where it was: the
unacknowledged action is sent again and nothing is lost.  Every wait is bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import socket
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import NetError
from .net_messages import MAX_LINE, Sealer, code_address, encode_denied, is_denied, room_code
from .net_protocol import Protocol, View

if TYPE_CHECKING:  # pragma: no cover
    from ..log import LogWriter
    from .game import Game
    from .net_protocol import Draws

#: Seconds between heartbeats, and of silence after which a channel is rebuilt (Alfeld §6).
HEARTBEAT = 3.0
SILENCE = 10.0
#: How long the guest keeps dialling before it gives up, and the host waits for a guest.
WAIT = 120.0


class Channel:
    """One side's connection: the protocol's outbox sealed and written, lines read, opened and fed in."""

    def __init__(
        self,
        protocol: Protocol,
        secret: str,
        silence: float = SILENCE,
        wait: float = WAIT,
        on_change: Callable[[], None] | None = None,
        guard: contextlib.AbstractContextManager[Any] | None = None,
    ) -> None:
        self.protocol = protocol
        self.guard = guard if guard is not None else contextlib.nullcontext()
        self.sealer = Sealer(secret, protocol.role)
        self.silence = silence
        self.wait = wait
        self.on_change = on_change or (lambda: None)
        self.writer: asyncio.StreamWriter | None = None
        self.connected = asyncio.Event()
        self.finished = asyncio.Event()
        self.busy = asyncio.Lock()
        self.refused = 0  # connections refused for want of the secret

    @property
    def say(self) -> Callable[[str], None]:
        return self.protocol.say

    # ------------------------------------------------------------------ running the protocol
    async def call(self, fn: Callable[[], object], in_thread: bool = False) -> object:
        """Run one step of the protocol (one at a time), then send what it produced."""

        def guarded() -> object:
            with self.guard:
                return fn()

        async with self.busy:
            try:
                result = await asyncio.to_thread(guarded) if in_thread else guarded()
            except NetError as e:
                self.protocol.fail(e)
                result = None
            await self.flush()
        return result

    async def flush(self) -> None:
        with self.guard:
            outbox = self.protocol.take_outbox()
        for message in outbox:
            await self.send(message)
        if self.protocol.finished:
            self.finished.set()
        self.on_change()

    async def send(self, message: dict[str, Any]) -> None:
        w = self.writer
        if w is None or w.is_closing():
            return
        try:
            w.write(self.sealer.seal(message))
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
                self.say(f"… {why}; the channel is being rebuilt (the game is kept)")

    # ------------------------------------------------------------------ connections
    async def _first_line(self, reader: asyncio.StreamReader) -> bytes | None:
        try:
            return await asyncio.wait_for(reader.readline(), timeout=self.silence)
        except (OSError, ValueError, ConnectionError, asyncio.TimeoutError):
            return None

    async def accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """The host's side of a new connection: it replaces the channel only once it proves the secret."""
        line = await self._first_line(reader)
        message = self.sealer.open(line) if line else None
        if message is None or message.get("type") != "hello":
            self.refused += 1
            if line:
                self.say("… a connection without this room's secret was refused")
                with contextlib.suppress(Exception):
                    writer.write(encode_denied())
                    await asyncio.wait_for(writer.drain(), timeout=2.0)
            with contextlib.suppress(Exception):
                writer.close()
            return
        await self.serve(reader, writer, first=message)

    async def serve(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, first: dict[str, Any] | None = None
    ) -> None:
        """Read messages until the channel closes or stays silent too long."""
        old = self.writer
        if old is not None and old is not writer:
            self._drop(old, "a new connection replaces the old one")
        self.writer = writer
        self.connected.set()
        await self.call(lambda: self.protocol.send(self.protocol.hello()))
        if first is not None:
            await self.call(lambda: self.protocol.receive(first), in_thread=True)
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
                if self.protocol.role == "guest" and is_denied(line):
                    self.protocol.fail(
                        NetError("the host refused this room code: its secret is not the host's")
                    )
                    self.finished.set()
                    return
                message = self.sealer.open(line)
                if message is not None:
                    await self.call(functools.partial(self.protocol.receive, message), in_thread=True)
        finally:
            finished.cancel()
            if writer is self.writer and self.finished.is_set():
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(writer.drain(), timeout=1.0)

    async def beat(self, every: float) -> None:
        while not self.finished.is_set():
            await asyncio.sleep(every)
            if self.connected.is_set():
                await self.send(self.protocol.beat())

    def close(self) -> None:
        if self.writer is not None:
            with contextlib.suppress(Exception):
                self.writer.close()


async def listen(channel: Channel, bind: str, port: int) -> tuple[asyncio.AbstractServer, int]:
    family = socket.AF_INET6 if ":" in bind else socket.AF_INET
    server = await asyncio.start_server(channel.accept, bind, port, limit=MAX_LINE, family=family)
    return server, server.sockets[0].getsockname()[1]


async def wait_for_guest(channel: Channel) -> bool:
    """Until a guest proves the secret (True) or the game ends first, the host having left (False)."""
    waited = asyncio.ensure_future(channel.connected.wait())
    ended = asyncio.ensure_future(channel.finished.wait())
    done, _ = await asyncio.wait({waited, ended}, timeout=channel.wait, return_when=asyncio.FIRST_COMPLETED)
    waited.cancel()
    ended.cancel()
    if not done:
        raise NetError(f"no guest joined within {channel.wait:g} s")
    return channel.connected.is_set()


async def until_finished(channel: Channel) -> None:
    """Wait for the end; a host whose guest stays away too long gives up (bounded)."""
    away_since: float | None = None
    while not channel.finished.is_set():
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(channel.finished.wait(), timeout=0.5)
        if channel.connected.is_set():
            away_since = None
        elif away_since is None:
            away_since = time.monotonic()
        elif time.monotonic() - away_since > channel.wait:
            raise NetError(f"the guest has been away for {channel.wait:g} s; the game is given up")


async def dial_and_serve(channel: Channel, host: str, port: int, again: Callable[[], None]) -> None:
    """The guest: dial the host (again after every lost channel) until the game ends."""
    first = True
    while not channel.finished.is_set():
        reader, writer = await _dial(channel, host, port)
        if not first:
            again()
        first = False
        await channel.serve(reader, writer)


async def _dial(
    channel: Channel, host: str, port: int
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    deadline = time.monotonic() + channel.wait
    delay = 0.1
    while True:
        try:
            return await asyncio.wait_for(asyncio.open_connection(host, port, limit=MAX_LINE), timeout=5.0)
        except (OSError, asyncio.TimeoutError) as e:
            if time.monotonic() + delay > deadline:
                raise NetError(f"cannot reach the host at {host}:{port}: {e}") from None
            await asyncio.sleep(delay)
            delay = min(delay * 2, 1.0)


# ---------------------------------------------------------------------- the terminal


class TerminalView(View):
    """The game in words at the terminal: the position, and on our turn the moves and a prompt."""

    def __init__(self, say: Callable[[str], None] | None = None) -> None:
        super().__init__(say or (lambda text: print(text, flush=True)))
        self.prompted_at: int | None = None
        self.over_said = False

    def prompt(self, text: str) -> None:
        print(text, end="", flush=True)

    def refused(self, play: Protocol) -> None:
        self.prompted_at = None
        self.turn(play)

    def turn(self, play: Protocol) -> None:
        from .human import describe_position, list_moves

        g = play.game
        if g is None or play.finished:
            return
        if g.is_over():
            if not self.over_said:
                self.over_said = True
                winner = g.winner()
                assert winner is not None  # a game that is over has a winner
                self.say(f"Game over after {g.moves_made} moves: {play.label(winner)} wins.")
                self.prompt("the game is over (undo, quit): ")
            return
        self.over_said = False
        if self.prompted_at == g.moves_made:
            return
        self.prompted_at = g.moves_made
        self.say("")
        for line in describe_position(g):
            self.say(line)
        if g.to_move == play.me:
            moves = g.named_moves()
            self.say(f"Moves ({len(moves)}):")
            for line in list_moves(moves):
                self.say(line)
            self.prompt(f"{play.label(play.me)}, your move (number or words; undo, quit, help): ")
        else:
            self.say(f"waiting for {play.label(g.to_move)} (you may type undo or quit)")


def typed_line(play: Protocol, view: TerminalView, text: str | None) -> None:
    """One line typed at the terminal, as an action of the protocol (or a word said back)."""
    from .human import HELP, Terminal, list_moves, read_answer

    g = play.game
    if text is None or text.strip().lower() in ("quit", "q", "exit"):
        play.leave(f"quit by player {play.me}")
        return
    word = text.strip().lower()
    if not word:
        return
    if word in ("help", "h", "?"):
        play.say(HELP)
        return
    why = play.can_act()
    if why is not None or g is None:
        play.say(f"{why}…")
        return
    if word in ("undo", "u", "back"):
        why = play.act_undo()
    elif g.is_over():
        why = "the game is over: undo or quit"
    elif g.to_move != play.me:
        why = f"it is {play.label(g.to_move)}'s turn (you may type undo or quit)"
    else:
        moves = g.named_moves()
        if word in ("moves", "list", "m"):
            for line in list_moves(moves):
                play.say(line)
            return
        answer = read_answer(g, moves, text.strip(), Terminal(say=play.say))
        if answer is None:
            view.prompt(f"{play.label(play.me)}, your move: ")
            return
        if answer.action == "quit":
            play.leave(f"quit by player {play.me}")
            return
        if answer.action == "undo":
            why = play.act_undo()
        else:
            assert answer.move is not None
            why = play.act_move(answer.move, answer.words)
            if why is not None:
                why = f"{why[0].upper()}{why[1:]}; choose another"
                view.prompted_at = None
    if why is not None:
        play.say(why)
        view.turn(play)


def _stdin_lines(loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[str | None]) -> threading.Thread:
    """Lines typed at the terminal, passed to the event loop (a thread: reading blocks)."""

    def run() -> None:
        while True:
            line = sys.stdin.readline()
            loop.call_soon_threadsafe(queue.put_nowait, line if line else None)
            if not line:
                return

    t = threading.Thread(target=run, name="stdin", daemon=True)
    t.start()
    return t


def _failed(play: Protocol, task: asyncio.Task[Any]) -> None:
    """A task of the session whose failure ends the session (it is not lost in the loop)."""
    error = None if task.cancelled() else task.exception()
    if error is not None:
        play.fail(error)


def play_over_network(
    role: str,
    game: Game | None,
    code: str | None = None,
    port: int = 0,
    bind: str = "127.0.0.1",
    secret: str | None = None,
    log: LogWriter | None = None,
    drawer: Draws | None = None,
    heartbeat: float = HEARTBEAT,
    silence: float = SILENCE,
    wait: float = WAIT,
    say: Callable[[str], None] | None = None,
    announce: Callable[[str], None] | None = None,
) -> Protocol:
    """Run one side of a network game at the terminal to its end; returns the protocol (game, result)."""
    from .net_messages import new_secret, parse_code

    async def main() -> Protocol:
        view = TerminalView(say)
        play = Protocol(role, game, view, log, drawer, heartbeat)
        if role == "host":
            key = secret or new_secret()
        else:
            assert code is not None
            host, dial_port, key = parse_code(code)
        channel = Channel(play, key, silence, wait)
        lines: asyncio.Queue[str | None] = asyncio.Queue()
        _stdin_lines(asyncio.get_running_loop(), lines)

        async def read_input() -> None:
            while not channel.finished.is_set():
                line = await lines.get()
                await channel.call(functools.partial(typed_line, play, view, line), in_thread=True)

        tasks = [asyncio.create_task(channel.beat(heartbeat)), asyncio.create_task(read_input())]
        for t in tasks:
            t.add_done_callback(functools.partial(_failed, play))
        server = None
        try:
            if role == "host":
                server, bound = await listen(channel, bind, port)
                (announce or view.say)(room_code(code_address(bind), bound, key))
                play.new_log_game()
                if await wait_for_guest(channel):
                    view.say("A guest joined: you are player 1.")
                    view.turn(play)
                await until_finished(channel)
            else:

                def again() -> None:
                    view.say(f"… connected again; the game goes on at move {play.k}")

                await dial_and_serve(channel, host, dial_port, again)
        finally:
            for t in tasks:
                t.cancel()
            channel.close()
            if server is not None:
                server.close()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(server.wait_closed(), timeout=2.0)
        if play.error is not None:
            error = play.error
            raise error if isinstance(error, NetError) else NetError(f"the game stops: {error}")
        return play

    return asyncio.run(main())


__all__ = ["HEARTBEAT", "SILENCE", "WAIT", "Channel", "TerminalView", "play_over_network", "typed_line"]
