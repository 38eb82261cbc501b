"""``sprouts play --web`` as a process for the tests: started, its address read, stopped by a signal."""

from __future__ import annotations

import http.client
import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path


def _ctrl_c_as_at_a_terminal() -> None:
    """SIGINT as a command typed at a terminal gets it: a suite run in the background (``make
    test &``) starts with SIGINT ignored, every process it starts inherits that, and a server
    keeps an ignored Ctrl-C ignored, as a background job should."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_server(args: list[str], cwd: Path, lines: list[str] | None = None) -> tuple[subprocess.Popen, str]:
    """``sprouts play --web …`` as a process; its page's address (from what it prints, kept in ``lines``)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "sprouts_cli", "play", "--web", "--no-open", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=_ctrl_c_as_at_a_terminal,
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + 120
    seen = []
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        if lines is not None:
            lines.append(line)
        m = re.search(r"the game's page: (http://127\.0\.0\.1:\d+/\?t=[\w-]+)", line)
        if m:
            return proc, m.group(1)
    proc.kill()
    raise AssertionError("the server printed no address: " + "".join(seen))


def stop_server(proc: subprocess.Popen, sig: int = signal.SIGINT) -> tuple[int, str]:
    """Ctrl-C (or SIGTERM): the server must stop by itself, soon, saying so."""
    proc.send_signal(sig)
    try:
        out, _ = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        raise AssertionError("the server did not stop on the signal") from None
    return proc.returncode, out


class Client:
    """The page's requests, made by hand: the session's token and the page's own origin."""

    def __init__(self, url: str) -> None:
        m = re.match(r"http://127\.0\.0\.1:(\d+)/\?t=([\w-]+)", url)
        assert m, url
        self.port, self.token = int(m.group(1)), m.group(2)

    def call(self, path: str, data: dict | None = None, timeout: float = 120) -> dict:
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            headers = {"X-Sprouts-Token": self.token}
            if data is None:
                c.request("GET", path, headers=headers)
            else:
                headers |= {"Origin": f"http://127.0.0.1:{self.port}", "Content-Type": "application/json"}
                c.request("POST", path, body=json.dumps(data), headers=headers)
            r = c.getresponse()
            return {"status": r.status, **json.loads(r.read())}
        finally:
            c.close()

    def state(self) -> dict:
        return self.call("/api/state")
