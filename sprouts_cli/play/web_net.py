"""Network play from the page (``sprouts play --web --host`` / ``--join CODE``, Alfeld §6).

The same protocol (``net_protocol``) and TCP transport (``net_tcp``) as the
terminal's, run on an asyncio loop in a thread of their own beside the page's
server.  The page's game is the protocol's game: a move drawn by hand on the
page is drawn here first (stroke and all) and then sent; a move that arrives is
drawn into this side's picture with this side's settings (the computer's Room
boxes, Alfeld §5.9); an undo, a refusal or a clash takes the picture back with
the game.  One lock (the page's game's) keeps every change whole.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import TYPE_CHECKING

from ..errors import NetError
from .net_messages import code_address, new_secret, parse_code, room_code
from .net_protocol import Protocol, View
from .net_tcp import Channel, dial_and_serve, listen, until_finished, wait_for_guest
from .web_game import WebGame

if TYPE_CHECKING:  # pragma: no cover
    from ..engine.moves import Move
    from ..picture.model import Picture


class PageView(View):
    """The protocol's words go to the page's log; every change wakes the page."""

    def __init__(self, game: WebGame) -> None:
        super().__init__(game.say)
        self.game = game

    def turn(self, play: Protocol) -> None:
        self.game._touch()


class Remote:
    """The other computer, as the page's game sees it: our actions sent, theirs applied."""

    def __init__(
        self,
        game: WebGame,
        role: str,
        code: str | None = None,
        bind: str = "127.0.0.1",
        port: int = 0,
        heartbeat: float = 3.0,
        silence: float = 10.0,
        wait: float = 120.0,
    ) -> None:
        self.web = game
        self.role = role
        self.bind, self.port = bind, port
        self.heartbeat = heartbeat
        if role == "host":
            self.secret = new_secret()
            self.dial: tuple[str, int] | None = None
        else:
            assert code is not None
            host, dial_port, self.secret = parse_code(code)
            self.dial = (host, dial_port)
        self.protocol = Protocol(role, game.game, PageView(game), game.log, drawer=game, heartbeat=heartbeat)
        game.remote = self
        self.channel = Channel(self.protocol, self.secret, silence, wait, guard=game.lock)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, name="network", daemon=True)
        self.ready = threading.Event()
        self.code = ""
        self.error = ""

    # ------------------------------------------------------------------ the loop
    def start(self) -> None:
        self.thread.start()
        self.ready.wait(timeout=30)
        if self.error:
            raise NetError(self.error)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self._main())
        except Exception as e:
            self.error = str(e) or type(e).__name__
        finally:
            self.ready.set()
            with contextlib.suppress(Exception):
                self.loop.close()

    async def _main(self) -> None:
        beat = asyncio.ensure_future(self.channel.beat(self.heartbeat))
        server = None
        try:
            if self.role == "host":
                server, bound = await listen(self.channel, self.bind, self.port)
                self.code = room_code(code_address(self.bind), bound, self.secret)
                print(
                    f"room code {self.code}  (the other player runs: sprouts play --join {self.code})",
                    flush=True,
                )
                self.protocol.new_log_game()
                self.web.say(f"room code {self.code}: waiting for the other player…")
                self.ready.set()
                if await wait_for_guest(self.channel):
                    self.web.say("A guest joined: you are player 1.")
                await until_finished(self.channel)
            else:
                assert self.dial is not None
                self.ready.set()
                self.web.say("joining the host's game…")
                await dial_and_serve(self.channel, *self.dial, lambda: self.web.say("… connected again"))
        except NetError as e:
            self.error = str(e)
            self.web.say(f"!! {e}")
        finally:
            beat.cancel()
            self.channel.close()
            if server is not None:
                server.close()
        if self.protocol.error is not None and not self.error:
            self.error = str(self.protocol.error)
            self.web.say(f"!! {self.error}")

    def failed(self) -> str:
        return self.error

    def _flush(self) -> None:
        if self.loop.is_running():
            asyncio.run_coroutine_threadsafe(self.channel.flush(), self.loop)

    # ------------------------------------------------------------------ our actions (under the game's lock)
    def pending(self) -> bool:
        return self.protocol.pending is not None

    def act_move(self, move: Move, picture: Picture) -> str | None:
        """A person's move drawn on the page: played, its picture kept, sent."""
        why = self.protocol.act_move(move, None, drawn=True)
        if why is None:
            self.web.pictures.append(picture)
            self.web.waiting = None
            self.web._saved()
            self._flush()
        return why

    def act_undo(self) -> str | None:
        why = self.protocol.act_undo()
        if why is None:
            self._flush()
        return why

    def stop(self) -> None:
        """Say goodbye to the other side (when it is still there) and stop the loop."""
        if self.loop.is_running() and not self.protocol.finished:

            async def bye() -> None:
                async with self.channel.busy:
                    with self.web.lock:
                        self.protocol.leave("the page's server stopped")
                    await self.channel.flush()

            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(bye(), self.loop).result(timeout=3)
        self.thread.join(timeout=5)


__all__ = ["PageView", "Remote"]
