"""``sprouts play --web --host`` and ``--web --join CODE``: two processes play one game through their pages.

Each side's page's server is driven by hand (the requests the page makes); moves and
an undo travel over the sealed TCP channel, each side draws its own picture, a guest
with a wrong secret is refused, fuzzed requests change neither game, and both logs
replay to the same position.
"""

from __future__ import annotations

import random
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from web_helpers import Client, start_server, stop_server

from sprouts_cli.engine.naming import distinct_named_moves, parse_lives, parse_numbered
from sprouts_cli.log import replay_log
from sprouts_cli.play.web_pointer import live_key

FAST = ["--heartbeat", "0.5", "--silence", "5", "--wait", "60"]


def position(state: dict):
    return parse_numbered(state["numbered"], parse_lives("".join(str(s[3]) for s in state["spots"])))


def until(what, timeout: float = 90.0, every: float = 0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = what()
        if got:
            return got
        time.sleep(every)
    raise AssertionError("timed out")


def ends(words: str) -> tuple[int, int, list[int]]:
    m = re.match(r"(\d+) → (\d+)(?: enclosing ([\d, -]+))?", words)
    assert m, words
    marks: list[int] = []
    for part in (m.group(3) or "").split(","):
        part = part.strip()
        if "-" in part:
            lo, hi = part.split("-")
            marks += range(int(lo), int(hi) + 1)
        elif part:
            marks.append(int(part))
    return int(m.group(1)) - 1, int(m.group(2)) - 1, [s - 1 for s in marks]


def games(*sides: Client) -> list[tuple[int, str, bool]]:
    """Each side's game: the moves made, the position with its spot numbers, whether it is over."""
    return [(s["moves"], s["numbered"], s["over"]) for s in (side.state() for side in sides)]


#: Values of any JSON type, and values that no spot number can be read from.
ANY = [None, True, -1, 0, 2, 10**30, 1.5, float("inf"), "", "0", "→", [], [0], [[1, 2]], [[1, "x"]], {}]
NO_SPOT = [99, -1, 10**30, float("inf"), "x", None, [], {}]


def fuzzed_request(rng: random.Random) -> dict:
    """A request body of the page's field names and values of any type, never a legal move: its
    end is no spot (a legal move made by chance would rightly change the game)."""
    names = ["start", "press", "marks", "stroke", "x", "y", "rung"]
    body = {name: rng.choice(ANY) for name in rng.sample(names, rng.randint(1, 5))}
    return body | {"end": rng.choice(NO_SPOT)}


def stranger_is_denied(port: int, rng: random.Random) -> bool:
    """A connection to the host's port that sends junk, then a plausible unsealed message,
    is answered ``denied`` and closed (the game's own channel is kept)."""
    junk = bytes(rng.randrange(256) for _ in range(rng.randint(1, 200))).replace(b"\n", b" ")
    for first in (junk + b"\n", b'{"type":"move","k":1,"ends":[1,2],"sender":"guest","seq":0,"tag":"00"}\n'):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(first)
            if b"denied" not in s.recv(4096):
                return False
    return True


def test_host_and_guest_play_through_their_pages(tmp_path: Path) -> None:
    host_log, guest_log = tmp_path / "host.log", tmp_path / "guest.log"
    lines: list[str] = []
    host_proc, host_url = start_server(
        ["--host", "--spots", "3", "--log", str(host_log), *FAST], tmp_path, lines
    )
    procs = [host_proc]
    try:
        code = next(m.group(1) for m in (re.search(r"--join (\S+)\)", line) for line in lines) if m)
        port = int(code.split("/")[0].rsplit(":", 1)[1])
        # a guest with a wrong secret is refused, and says so
        where, secret = code.split("/")
        wrong = f"{where}/{'A' if secret[0] != 'A' else 'B'}{secret[1:]}"
        # (the refusal may come before or after its page's address is printed)
        bad = subprocess.run(
            [sys.executable, "-m", "sprouts_cli", "play", "--web", "--no-open", "--join", wrong, *FAST],
            cwd=tmp_path, capture_output=True, text=True, timeout=90,
        )  # fmt: skip
        bad_out = bad.stdout + bad.stderr
        assert bad.returncode == 2 and "refused this room code" in bad_out, bad_out
        guest_proc, guest_url = start_server(["--join", code, "--log", str(guest_log), *FAST], tmp_path)
        procs.append(guest_proc)
        host, guest = Client(host_url), Client(guest_url)
        until(lambda: guest.state().get("started") and "joined" in " ".join(host.state()["log"]))
        sides = {1: host, 2: guest}
        rng = random.Random(7)

        def settled(k: int) -> bool:
            a, b = host.state(), guest.state()
            return a["moves"] == b["moves"] == k and not a["pending"] and not b["pending"]

        undone = False
        for _ in range(12):
            s = host.state()
            if s["over"]:
                break
            k = s["moves"]
            actor = sides[s["to_move"]]
            other = sides[3 - s["to_move"]]
            refused = other.call("/api/press", {"x": 10, "y": 10})
            assert not refused["ok"] and "turn" in refused["why"], refused  # not its turn
            words = rng.choice(distinct_named_moves(position(actor.state()))).words
            a, b, marks = ends(words)
            answer = actor.call("/api/move", {"start": a, "end": b, "marks": marks, "stroke": []})
            assert answer["ok"], answer
            until(lambda k=k: settled(k + 1))
            if k == 2 and not undone:  # the guest takes back the host's last move
                undo = guest.call("/api/undo", {})
                assert undo["ok"], undo
                until(lambda k=k: settled(k))
                undone = True
            # fuzzed and foreign requests, and a stranger's lines to the host's port, change neither game
            before = games(host, guest)
            junks = [{"start": "x"}, {"start": 0, "end": 99}, {"x": None}, {"rung": "Q"}, {}]
            junks += [fuzzed_request(rng) for _ in range(6)]
            for junk in junks:
                for side in (host, guest):
                    for path in ("/api/move", "/api/press", "/api/rung"):
                        assert side.call(path, junk)["status"] in (200, 400)
            assert stranger_is_denied(port, rng)
            assert games(host, guest) == before
        hs, gs = host.state(), guest.state()
        assert hs["over"] and gs["over"] and undone
        assert hs["winner"] == gs["winner"] and hs["position"] == gs["position"]
        assert live_key(position(hs)) == live_key(position(gs))
        moves = hs["moves"]
    finally:
        outs = [stop_server(p, signal.SIGINT) for p in procs]
    for code_, out in outs:
        assert code_ in (0, 130) and "Traceback" not in out, out
    a, b = replay_log(host_log), replay_log(guest_log)
    assert a.error is None and b.error is None, (a.error, b.error)
    ga, gb = a.games[-1], b.games[-1]
    assert ga.moves == gb.moves == moves
    assert live_key(ga.position) == live_key(gb.position)
    assert any(s.text == "undo" for s in ga.steps) and any(s.text == "undo" for s in gb.steps)
