"""``sprouts play --host`` and ``--join CODE``: two people, each at a terminal, over TCP (Alfeld §6)."""

from __future__ import annotations

from ..errors import SproutsError
from .common import err, fail


def _drawer(save: str | None, svg_dir: str | None, width: float, height: float):
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


def _finish(play) -> None:
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
    from ..log import LogWriter
    from ..play import Game
    from ..play.network import play_over_network

    if (start is None) == (spots is None):
        fail("give either --spots N or a START position string to host a game")
    log = None
    try:
        position = Position.start(spots) if spots is not None else Position.from_string(start or "")
        game = Game(position, Rules.of(misere))
        log = LogWriter(log_path) if log_path else None

        def announce(code: str) -> None:
            print(f"room code {code}  (the other player runs: sprouts play --join {code})", flush=True)
            print("waiting for the other player…", flush=True)

        play = play_over_network(
            "host",
            game,
            port=port,
            log=log,
            drawer=_drawer(save, svg_dir, width, height),
            heartbeat=heartbeat,
            silence=silence,
            wait=wait,
            announce=announce,
        )
    except OSError as e:
        fail(f"cannot host on port {port}: {e.strerror or e}")
        return
    except SproutsError as e:
        fail(str(e))
        return
    except KeyboardInterrupt:
        err.print("interrupted", style="red")
        raise SystemExit(130) from None
    finally:
        if log is not None:
            log.close()
    _finish(play)


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
    from ..log import LogWriter
    from ..play.network import parse_code, play_over_network

    log = None
    try:
        parse_code(code)  # a bad code is refused before anything else
        log = LogWriter(log_path) if log_path else None
        play = play_over_network(
            "guest",
            None,
            code=code,
            log=log,
            drawer=_drawer(save, svg_dir, width, height),
            heartbeat=heartbeat,
            silence=silence,
            wait=wait,
        )
    except SproutsError as e:
        fail(str(e))
        return
    except KeyboardInterrupt:
        err.print("interrupted", style="red")
        raise SystemExit(130) from None
    finally:
        if log is not None:
            log.close()
    _finish(play)


__all__ = ["host", "join"]
