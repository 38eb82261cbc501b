"""The page's server for ``sprouts play --web``: the standard library's threaded HTTP server on 127.0.0.1.

Safe by default: the server answers only requests that carry its random session
token (``secrets.token_urlsafe``; in the address it prints, then in a header the
page sends) and that come from its own origin (the ``Host`` header, and the
``Origin`` and ``Sec-Fetch-Site`` headers a browser adds, must name this server),
so another page or another local user cannot drive the game.  A request body is
bounded (``MAX_BODY``); a malformed request gets an error reply (400, 403, 404,
405, 411 or 413) and never a crash or a changed game.

The page itself (``web/page.html`` with its script and style, package data) is
plain HTML and JavaScript without a build step; it long-polls ``/api/state`` so
that computers' moves are drawn as they come.
"""

from __future__ import annotations

import hmac
import json
import secrets
import threading
from collections.abc import Callable
from email.message import Message
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .web_game import WebGame

#: The largest request body accepted (bytes): a stroke of a few thousand points fits.
MAX_BODY = 256 * 1024
#: The longest a request for news waits before it is answered anyway (seconds).
POLL = 20.0
TOKEN_HEADER = "X-Sprouts-Token"


def page_text(token: str, nonce: str) -> str:
    """The page with its script and style put in, and the session token for the script."""
    folder = resources.files("sprouts_cli.play") / "web"
    html = (folder / "page.html").read_text(encoding="utf-8")
    script = (folder / "page.js").read_text(encoding="utf-8")
    style = (folder / "page.css").read_text(encoding="utf-8")
    return (
        html.replace("{{STYLE}}", style)
        .replace("{{SCRIPT}}", script)
        .replace("{{TOKEN}}", token)
        .replace("{{NONCE}}", nonce)
    )


class BadRequest(Exception):
    """A request refused, with its status and a one-line reason."""

    def __init__(self, status: HTTPStatus, why: str) -> None:
        super().__init__(why)
        self.status = status
        self.why = why


class WebServer:
    """The page's server for one game; ``url`` is the address to open (with the token)."""

    def __init__(
        self, game: WebGame, port: int = 0, host: str = "127.0.0.1", quit_event: threading.Event | None = None
    ) -> None:
        self.game = game
        self.token = secrets.token_urlsafe(24)
        self.quit = quit_event or threading.Event()
        handler = _handler(self)
        self.httpd = ThreadingHTTPServer((host, port), handler)
        self.httpd.daemon_threads = True
        self.host = host
        self.port = int(self.httpd.server_address[1])
        self.origins = {f"http://{h}:{self.port}" for h in (host, "localhost", "127.0.0.1")}
        self.hosts = {f"{h}:{self.port}" for h in (host, "localhost", "127.0.0.1")}
        self.thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/?t={self.token}"

    def start(self) -> None:
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True
        )
        self.thread.start()

    def stop(self) -> None:
        """Stop answering, wake the requests that wait for news, and close the socket."""
        self.game.close()
        self.httpd.shutdown()
        self.httpd.server_close()
        if self.thread is not None:
            self.thread.join(timeout=5)

    # ------------------------------------------------------------------ the checks
    def check_origin(self, headers: Message, api: bool) -> None:
        host = headers.get("Host", "")
        if host not in self.hosts:
            raise BadRequest(HTTPStatus.FORBIDDEN, f"this server answers only for {self.host}:{self.port}")
        origin = headers.get("Origin")
        if origin is not None and origin not in self.origins:
            raise BadRequest(HTTPStatus.FORBIDDEN, "a request from another page's origin")
        site = headers.get("Sec-Fetch-Site")
        if api and site is not None and site != "same-origin":
            raise BadRequest(HTTPStatus.FORBIDDEN, "a request from another site")

    def check_token(self, given: str | None) -> None:
        if not given or not hmac.compare_digest(given.encode(), self.token.encode()):
            raise BadRequest(HTTPStatus.FORBIDDEN, "this request does not carry the session's token")

    # ------------------------------------------------------------------ the answers
    def get(
        self, path: str, query: dict[str, list[str]], headers: Message
    ) -> tuple[HTTPStatus, str, bytes, dict[str, str]]:
        if path == "/":
            self.check_origin(headers, api=False)
            self.check_token(query.get("t", [""])[0])
            nonce = secrets.token_urlsafe(12)
            body = page_text(self.token, nonce).encode("utf-8")
            csp = (
                f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'unsafe-inline'; "
                "img-src data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
                "form-action 'none'"
            )
            return HTTPStatus.OK, "text/html; charset=utf-8", body, {"Content-Security-Policy": csp}
        if path == "/api/state":
            self.check_origin(headers, api=True)
            self.check_token(headers.get(TOKEN_HEADER))
            since = query.get("since", [""])[0] or None
            if since is not None:
                try:
                    v = int(since)
                except ValueError:
                    raise BadRequest(HTTPStatus.BAD_REQUEST, "since= takes a number") from None
                self.game.wait(v, POLL)
            return HTTPStatus.OK, "application/json", _json(self.game.state()), {}
        raise BadRequest(HTTPStatus.NOT_FOUND, f"nothing at {path}")

    def post(self, path: str, headers: Message, body: bytes) -> tuple[HTTPStatus, str, bytes, dict[str, str]]:
        self.check_origin(headers, api=True)
        if headers.get("Origin") is None:
            raise BadRequest(HTTPStatus.FORBIDDEN, "a request without its origin")
        self.check_token(headers.get(TOKEN_HEADER))
        actions: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "/api/press": lambda d: self.game.press(float(d["x"]), float(d["y"])),
            "/api/move": self.game.move,
            "/api/rung": lambda d: self.game.rung(str(d["rung"])),
            "/api/undo": lambda d: self.game.undo(),
            "/api/new": lambda d: self.game.new_game(),
            "/api/save": lambda d: self.game.save(),
            "/api/settings": self.game.set_settings,
            "/api/quit": lambda d: self._quit(),
        }
        action = actions.get(path)
        if action is None:
            raise BadRequest(HTTPStatus.NOT_FOUND, f"nothing at {path}")
        try:
            data = json.loads(body.decode("utf-8")) if body else {}
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            raise BadRequest(HTTPStatus.BAD_REQUEST, "the body is not JSON") from None
        if not isinstance(data, dict):
            raise BadRequest(HTTPStatus.BAD_REQUEST, "the body is not a JSON object")
        try:
            result = action(data)
        except (KeyError, TypeError, ValueError, IndexError, OverflowError) as e:
            raise BadRequest(
                HTTPStatus.BAD_REQUEST, f"a malformed request: {type(e).__name__}: {e}"
            ) from None
        return HTTPStatus.OK, "application/json", _json(result), {}

    def _quit(self) -> dict[str, Any]:
        self.quit.set()
        return {"ok": True}


def _json(data: Any) -> bytes:
    return json.dumps(data, separators=(",", ":")).encode("utf-8")


def _handler(server: WebServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "sprouts"
        sys_version = ""

        def log_message(self, format: str, *args: Any) -> None:  # the terminal stays quiet
            return

        def _reply(
            self, status: HTTPStatus, kind: str, body: bytes, extra: dict[str, str] | None = None
        ) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Referrer-Policy", "no-referrer")
            for k, v in (extra or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def _error(self, e: BadRequest) -> None:
            self._reply(e.status, "application/json", _json({"ok": False, "why": e.why}))

        def _run(self, fn: Callable[[], tuple[HTTPStatus, str, bytes, dict[str, str]]]) -> None:
            try:
                self._reply(*fn())
            except BadRequest as e:
                self._error(e)
            except (BrokenPipeError, ConnectionResetError):
                pass
            except Exception as e:  # a bug: the reply says so, the server goes on
                self._error(BadRequest(HTTPStatus.INTERNAL_SERVER_ERROR, f"{type(e).__name__}: {e}"))

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            self._run(lambda: server.get(parts.path, parse_qs(parts.query), self.headers))

        def do_POST(self) -> None:
            length = self.headers.get("Content-Length")
            if length is None or not length.isdigit():
                self.close_connection = True
                self._error(BadRequest(HTTPStatus.LENGTH_REQUIRED, "a POST needs its Content-Length"))
                return
            if int(length) > MAX_BODY:
                self.close_connection = True
                self._error(
                    BadRequest(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"a body of at most {MAX_BODY} bytes")
                )
                return
            body = self.rfile.read(int(length))
            self._run(lambda: server.post(urlsplit(self.path).path, self.headers, body))

        def _not_allowed(self) -> None:
            self.close_connection = True
            self._error(BadRequest(HTTPStatus.METHOD_NOT_ALLOWED, "only GET and POST"))

        do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _not_allowed

    return Handler


__all__ = ["MAX_BODY", "WebServer", "page_text"]
