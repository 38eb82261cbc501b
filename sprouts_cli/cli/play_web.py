"""``sprouts play --web``: the game in a browser page served on 127.0.0.1 (Alfeld §3.1, §4, §6, §7).

The page's server (``play/web_server.py``) listens on the loopback address, on a
free port unless ``--port``; its address, with the session's token, is printed and
opened in the default browser unless ``--no-open``.  With ``--host`` or ``--join
CODE`` the game is played with a person at another computer (``play/web_net.py``),
each side drawing its own picture.  Ctrl-C or SIGTERM stop the server cleanly.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from ..errors import SproutsError
from .common import err, fail

if TYPE_CHECKING:  # pragma: no cover
    from ..play.web_game import WebGame


def run_web(
    *,
    make_game,
    port: int,
    no_open: bool,
    net: dict[str, Any] | None = None,
) -> None:
    """Serve the page until Ctrl-C, SIGTERM or the page's quit; ``make_game()`` gives the WebGame."""
    from ..play.web_server import WebServer
    from ..procs import Terminated, interrupted_exit_code

    remote = None
    server = None
    quit_event = threading.Event()
    try:
        game = make_game()
        if net is not None:
            from ..play.web_net import Remote

            remote = Remote(game, **net)
            remote.start()
        try:
            server = WebServer(game, port=port, quit_event=quit_event)
        except OSError as e:
            fail(f"cannot serve the page on 127.0.0.1 port {port}: {e.strerror or e}")
        server.start()
        game.after_change()  # a computer that moves first starts thinking
        print(f"the game's page: {server.url}", flush=True)
        print("(Ctrl-C stops the server)", flush=True)
        if not no_open:
            import webbrowser

            try:
                webbrowser.open(server.url)
            except Exception as e:  # no browser here: the address printed is enough
                err.print(f"could not open a browser ({e}); open the address above", style="dim")
        while not quit_event.wait(0.25):
            if remote is not None and remote.failed():
                fail(remote.failed())
    except SproutsError as e:
        fail(str(e))
    except KeyboardInterrupt as e:  # Ctrl-C, or SIGTERM (procs.Terminated)
        err.print("terminated" if isinstance(e, Terminated) else "interrupted", style="red")
        raise SystemExit(interrupted_exit_code(e)) from None
    finally:
        if server is not None:
            server.stop()
        if remote is not None:
            remote.stop()


def web_command(
    start: str | None,
    spots: int | None,
    first: str,
    second: str,
    third: str | None,
    players: int | None,
    misere: bool | None,
    seconds: float,
    games: int | None,
    depth: int | None,
    sharp: bool,
    seed: int | None,
    jobs: int | None,
    save: str | None,
    svg_dir: str | None,
    log_path: str | None,
    width: float,
    height: float,
    db: str | None,
    no_db: bool,
    quiet: bool,
    host_game: bool,
    port: int,
    bind: str,
    join_code: str | None,
    no_open: bool,
    heartbeat: float,
    silence: float,
    net_wait: float,
    batch: int | None,
) -> None:
    """``play --web`` with every option of ``play``: the start, the players, the rules, files, the network."""
    from ..cpus import usable_cpus
    from ..log import LogWriter
    from ..players import Settings
    from .play import _check_outputs, _check_three, _open_table, _rules, _start_position

    if batch is not None or quiet or svg_dir:
        fail("--web plays one game in the page (no --batch, --quiet or --svg)")
    jobs = jobs or usable_cpus()
    try:
        _check_outputs(save, None, log_path, db)
    except SproutsError as e:
        fail(str(e))
    net: dict[str, Any] | None = None
    if join_code is not None:
        if host_game or start is not None or spots is not None:
            fail("--join takes only the room code: the host chooses the start")
        from ..play.net_messages import parse_code

        try:
            parse_code(join_code)
        except SproutsError as e:
            fail(str(e))
        net = {"role": "guest", "code": join_code}
    elif host_game:
        from ..play.net_messages import check_bind

        try:
            bind = check_bind(bind)
        except SproutsError as e:
            fail(str(e))
        net = {"role": "host", "bind": bind}
    if net is not None:
        net.update({"heartbeat": heartbeat, "silence": silence, "wait": net_wait})
    elif (start is None) == (spots is None):
        fail("give either --spots N or a START position (a position string or a saved game)")
    log = None
    table = None

    def make_game() -> WebGame:
        nonlocal log, table
        from ..play.web_game import WebGame

        log = LogWriter(log_path) if log_path else None
        if net is not None and net["role"] == "guest":
            return WebGame(None, ("remote", "human"), None, width, height, log=log, save=save, jobs=jobs)
        position, picture, to_move = _start_position(start, spots)
        saved = picture.meta.get("game", {}).get("rules") if picture is not None else None
        if net is not None:
            rules = _rules(2, None, misere, saved)
            kinds: tuple[str, ...] = ("human", "remote")
        else:
            rules = _rules(players, third, misere, saved)
            kinds = (first, second, third or "parity")[: rules.players]
            if rules.players == 3:
                _check_three(kinds)
        table = _open_table(db, no_db, kinds)
        settings = Settings(seconds=seconds, games=games, jobs=jobs, depth=depth, sharp=sharp, table=table)
        err.print("drawing the start…", style="dim")
        # over the network the protocol writes the log (both sides' moves, undos and refusals)
        own_log = None if net else log
        game = WebGame(
            position, kinds, rules, width, height, to_move, picture, settings, seed, own_log, save, jobs
        )
        game.log = log
        return game

    try:
        run_web(make_game=make_game, port=port, no_open=no_open, net=net)
    finally:
        if log is not None:
            log.close()
        if table is not None:
            table.close()


__all__ = ["run_web", "web_command"]
