"""``sprouts play --host`` and ``--join CODE``: two people, each at a terminal, over TCP (Alfeld §6).

The host listens on the loopback address unless ``--bind ADDR`` asks for another,
and prints a room code ``HOST:PORT/SECRET`` whose random secret the guest must
prove it knows (every message is sealed with it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import SproutsError
from .common import err, fail

if TYPE_CHECKING:  # pragma: no cover
    from ..play import Game
    from ..play.drawing import Drawer
    from ..play.net_protocol import Protocol


def _drawer(save: str | None, svg_dir: str | None, width: float, height: float) -> Drawer | None:
    if not (save or svg_dir):
        return None
    from ..files import check_directory, check_output
    from ..play.drawing import Drawer

    try:
        if save:
            check_output(save, (".json",))
        if svg_dir:
            check_directory(svg_dir)
    except SproutsError as e:
        fail(str(e))

    return Drawer(width, height, save, svg_dir, 1)


def _finish(play: Protocol) -> None:
    g = play.game
    if g is not None:
        from ..engine.naming import numbered_text

        print(f"final position after {g.moves_made} moves: {g.position.canonical()}", flush=True)
        print(f"numbered {numbered_text(g.position)}", flush=True)


def host(
    start: str | None,
    spots: int | None,
    misere: bool,
    port: int,
    bind: str,
    log_path: str | None,
    save: str | None,
    svg_dir: str | None,
    width: float,
    height: float,
    heartbeat: float,
    silence: float,
    wait: float,
) -> None:
    """Start the game, print the room code, and play it with the guest."""
    from ..engine import Position
    from ..engine.rules import Rules
    from ..play import Game

    if (start is None) == (spots is None):
        fail("give either --spots N or a START position string to host a game")

    def game() -> Game:
        position = Position.start(spots) if spots is not None else Position.from_string(start or "")
        return Game(position, Rules.of(misere))

    from ..play.net_messages import check_bind

    try:
        bind = check_bind(bind)
    except SproutsError as e:
        fail(str(e))

    def announce(code: str) -> None:
        print(f"room code {code}  (the other player runs: sprouts play --join {code})", flush=True)
        print("waiting for the other player…", flush=True)

    drawing = (save, svg_dir, width, height)
    network = {
        "port": port,
        "bind": bind,
        "announce": announce,
        "heartbeat": heartbeat,
        "silence": silence,
        "wait": wait,
    }
    _play("host", game, log_path, drawing, f"cannot host on {bind} port {port}", **network)


def join(
    code: str,
    log_path: str | None,
    save: str | None,
    svg_dir: str | None,
    width: float,
    height: float,
    heartbeat: float,
    silence: float,
    wait: float,
) -> None:
    """Join the host's game by its room code and play it."""
    from ..play.net_messages import parse_code

    def no_game() -> None:
        parse_code(code)  # a bad code is refused before anything else

    drawing = (save, svg_dir, width, height)
    network = {"code": code, "heartbeat": heartbeat, "silence": silence, "wait": wait}
    _play("guest", no_game, log_path, drawing, None, **network)


def _play(
    role: str,
    game: Callable[[], Game | None],
    log_path: str | None,
    drawing: tuple[str | None, str | None, float, float],
    os_failure: str | None,
    **network: Any,
) -> None:
    """One side of a network game, from ``game()`` (the host's game, or None for the guest).

    Bad input, a network failure (``NetError``) or, with ``os_failure``, an ``OSError``
    is a one-line error (exit 2); Ctrl-C exits 130; the log is closed either way.
    """
    from ..log import LogWriter
    from ..play.net_tcp import play_over_network

    log = None
    try:
        start = game()
        log = LogWriter(log_path) if log_path else None
        play = play_over_network(role, start, log=log, drawer=_drawer(*drawing), **network)
    except OSError as e:
        if os_failure is None:
            raise
        fail(f"{os_failure}: {e.strerror or e}")
    except SproutsError as e:
        fail(str(e))
    except KeyboardInterrupt:
        err.print("interrupted", style="red")
        raise SystemExit(130) from None
    finally:
        if log is not None:
            log.close()
    _finish(play)


__all__ = ["host", "join"]
