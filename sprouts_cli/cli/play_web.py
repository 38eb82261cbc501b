"""``sprouts play --web``: the game in a browser page served on 127.0.0.1 (Alfeld §3.1, §4, §6, §7).

The page's server (``play/web_server.py``) listens on the loopback address, on a
free port unless ``--port``; its address, with the session's token, is printed and
opened in the default browser unless ``--no-open``.  With ``--host`` or ``--join
CODE`` the game is played with a person at another computer (``play/web_net.py``),
each side drawing its own picture.  Ctrl-C or SIGTERM stop the server cleanly.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import SproutsError
from .common import err, fail

if TYPE_CHECKING:  # pragma: no cover
    from ..play.web_game import WebGame


def run_web(
    *,
    make_game: Callable[[], WebGame],
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


__all__ = ["run_web"]
