"""``sprouts play --web``'s server and game, without a browser: the token, the origin, bounds, fuzz.

A malformed or foreign request gets an error reply and leaves the game as it was;
the game reads a person's move from its spots, the point pressed, the marks and
the stroke (Alfeld §3.1), and refuses what cannot be drawn, saying why.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sprouts_cli.engine import Position
from sprouts_cli.engine.naming import numbered_key
from sprouts_cli.engine.rules import Rules
from sprouts_cli.picture import analyse, load_game
from sprouts_cli.play.web_game import WebGame
from sprouts_cli.play.web_pointer import live_key
from sprouts_cli.play.web_server import MAX_BODY, WebServer
from sprouts_cli.play.web_settings import human_ladder


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    d = tmp_path_factory.mktemp("web")
    game = WebGame(Position.start(3), ("human", "human"), Rules.NORMAL, 800, 600, save=d / "g.json")
    server = WebServer(game)
    server.start()
    yield server, game
    server.stop()


def request(
    server: WebServer, method: str, path: str, body: bytes | None = None, headers: dict | None = None
):
    c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        base = {"Host": f"127.0.0.1:{server.port}"}
        c.request(method, path, body=body, headers={**base, **(headers or {})})
        r = c.getresponse()
        return r.status, r.read()
    finally:
        c.close()


def api(server: WebServer, path: str, data=None, **extra):
    headers = {
        "X-Sprouts-Token": server.token,
        "Origin": f"http://127.0.0.1:{server.port}",
        "Content-Type": "application/json",
        **extra,
    }
    body = json.dumps(data if data is not None else {}).encode()
    status, raw = request(server, "POST", path, body, headers)
    return status, json.loads(raw)


def snapshot(game: WebGame):
    g = game.game
    return numbered_key(g.position), g.moves_made, len(game.pictures), id(game.picture)


def test_only_the_token_and_the_origin_are_answered(served) -> None:
    server, game = served
    before = snapshot(game)
    status, page = request(server, "GET", f"/?t={server.token}")
    assert status == 200 and b"sprouts-token" in page and server.token.encode() in page
    assert request(server, "GET", "/")[0] == 403
    assert request(server, "GET", "/?t=wrong")[0] == 403
    assert request(server, "GET", "/api/state")[0] == 403  # no token
    assert request(server, "GET", "/api/state", headers={"X-Sprouts-Token": server.token})[0] == 200
    # another page's script, another site, another host name (DNS rebinding): refused
    assert api(server, "/api/undo", Origin="http://evil.example")[0] == 403
    assert api(server, "/api/undo", **{"Sec-Fetch-Site": "cross-site"})[0] == 403
    assert api(server, "/api/undo", Host=f"evil.example:{server.port}")[0] == 403
    assert api(server, "/api/undo", **{"X-Sprouts-Token": "x" * 32})[0] == 403
    status, _raw = request(
        server,
        "POST",
        "/api/undo",
        b"{}",
        {"X-Sprouts-Token": server.token, "Content-Type": "application/json"},
    )
    assert status == 403  # a POST without its origin
    assert snapshot(game) == before


def test_malformed_requests_get_an_error_reply(served) -> None:
    server, game = served
    before = snapshot(game)
    token = {"X-Sprouts-Token": server.token, "Origin": f"http://127.0.0.1:{server.port}"}
    assert request(server, "POST", "/api/move", b"x" * 10, token)[0] == 400  # not JSON
    assert request(server, "POST", "/api/move", b"[1, 2]", token)[0] == 400  # not an object
    assert request(server, "POST", "/api/move", b"{}", token)[0] == 400  # no spots
    assert request(server, "POST", "/api/nothing", b"{}", token)[0] == 404
    assert request(server, "DELETE", "/api/move", b"", token)[0] == 405
    assert request(server, "GET", "/api/state?since=x", None, token)[0] == 400
    big = b'{"stroke": [' + b"[1,2]," * (MAX_BODY // 6) + b"[1,2]]}"
    assert request(server, "POST", "/api/move", big, token)[0] == 413
    c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)  # no Content-Length
    c.putrequest("POST", "/api/move")
    for k, v in token.items():
        c.putheader(k, v)
    c.endheaders()
    assert c.getresponse().status == 411
    c.close()
    status, answer = api(server, "/api/move", {"start": 0, "end": 99})
    assert status == 200 and not answer["ok"] and "spots are 1 to 3" in answer["why"]
    status, answer = api(server, "/api/settings", {"d0": "wide"})
    assert not answer["ok"] and "d0" in answer["why"]
    assert snapshot(game) == before
    assert request(server, "GET", "/api/state", headers={"X-Sprouts-Token": server.token})[0] == 200


_value = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 2**70) | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=10,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.sampled_from(["/api/move", "/api/press", "/api/rung", "/api/settings"]),
    st.dictionaries(
        st.sampled_from(
            ["start", "end", "press", "marks", "stroke", "x", "y", "rung", "d0", "human", "heroic"]
        ),
        _value,
        max_size=5,
    ),
)
def test_fuzzed_requests_never_crash_and_refusals_change_nothing(served, path: str, data: dict) -> None:
    server, game = served
    before = snapshot(game)
    settings_before = dict(vars(game.settings))
    status, answer = api(server, path, data)
    assert status in (200, 400), answer
    if status == 400 or not answer.get("ok"):
        assert snapshot(game) == before
        assert vars(game.settings) == settings_before
    elif path == "/api/move":  # a fuzzed move that happened to be legal: taken back
        game.undo()
    if path == "/api/settings":
        game.settings.update(settings_before | {"human": list(settings_before["human"]),
                                                "computer": list(settings_before["computer"])})  # fmt: skip


def test_the_ladder_rules() -> None:
    """Alfeld §4.1: an unchecked A is skipped, another unchecked box stops the climb; heroic: no M."""
    assert human_ladder(("M", "R"), False) == (("M", "R"), ["A", "Z", "."])
    assert human_ladder(("M", "A", "R", "Z", "."), False) == (("M", "A", "R", "Z", "."), [])
    assert human_ladder((), False) == ((), ["M", "A", "R", "Z", "."])
    assert human_ladder(("M", "R"), False, "Z") == (("Z",), ["."])
    assert human_ladder(("M", "R", "."), False, "Z") == (("Z", "."), [])
    assert human_ladder(("M", "R"), True) == ((), ["A", "R", "Z", "."])


def _spot(game: WebGame, s: int) -> list[float]:
    return [float(v) for v in game.picture.spots[s]]


def test_moves_read_from_the_pointer(tmp_path: Path) -> None:
    """A stroke, a click-click move, a marked loop, a refusal, heroic mode; the save reads back alike."""
    game = WebGame(Position.start(3), ("human", "human"), Rules.NORMAL, 800, 600, save=tmp_path / "g.json")
    a, _b, c = (_spot(game, s) for s in range(3))
    assert "6 to 8 moves left" in game.status()  # the terminal's words, not "moves left 6–8"
    # a press goes to the nearest spot with a life; every spot is lit at the start
    pressed = game.press(a[0] + 30, a[1] + 10)
    assert pressed["ok"] and pressed["spot"] == 0 and pressed["lit"] == [0, 1, 2]
    # a marked loop: 1 → 1 enclosing 2 (no stroke: the router draws it round the marked spot)
    r = game.move({"start": 0, "end": 0, "press": a, "marks": [1], "stroke": []})
    assert r["ok"], r
    assert game.game.played[-1].words == "1 → 1 enclosing 2"
    # a stroke from 3 round the outside to 1: the stroke says which side
    far = [[c[0] + 40 * k, c[1] - 10 * k] for k in range(1, 6)] + [[a[0] - 60, a[1] - 60]]
    r = game.move({"start": 2, "end": 0, "press": c, "stroke": [c, *far, a]})
    assert r["ok"], r
    assert game.game.moves_made == 2
    # an illegal move is refused, saying why, and changes nothing
    dead = next(s for s, lives in enumerate(game.picture.lives()) if lives == 0)
    before = snapshot(game)
    r = game.move({"start": dead, "end": 1, "press": _spot(game, dead), "stroke": []})
    assert not r["ok"] and "no life" in r["why"]
    assert snapshot(game) == before
    # heroic mode: a stroke that crosses a curve is refused, not rerouted
    assert game.set_settings({"heroic": True})["ok"]
    s1 = next(s for s, lives in enumerate(game.picture.lives()) if lives > 0 and s != 1)
    p1, p2 = _spot(game, s1), _spot(game, 1)
    crossing = [p1, [p2[0], p2[1] - 200], [p2[0], p2[1] + 200], p2]
    r = game.move({"start": s1, "end": 1, "press": p1, "stroke": crossing})
    assert not r["ok"] and ("crosses" in r["why"] or "touches" in r["why"] or "spots" in r["why"])
    assert snapshot(game) == before
    game.set_settings({"heroic": False})
    # undo takes the last move back, and the saved game follows the game
    assert game.undo()["ok"] and game.game.moves_made == 1
    saved = load_game(tmp_path / "g.json")
    assert live_key(analyse(saved)) == live_key(game.game.position)


@pytest.mark.parametrize(("start", "end"), [(0, 1), (1, 0)])
def test_a_usable_stroke_is_the_start_of_the_curve_either_way_it_is_drawn(
    tmp_path: Path, start: int, end: int
) -> None:
    """A stroke that touches nothing is smoothed into the curve (the log's note says "stroke"),
    whichever of its two spots the stroke starts from."""
    from sprouts_cli.log import LogWriter

    log = LogWriter(tmp_path / "g.log")
    game = WebGame(Position.start(3), ("human", "human"), Rules.NORMAL, 800, 600, log=log)
    a, b, c = (np.array(_spot(game, s)) for s in (start, end, 3 - start - end))
    middle = (a + b) / 2
    away = middle + (middle - c) / np.hypot(*(middle - c)) * 60  # bowed away from the third spot
    t = np.linspace(0, 1, 10)[:, None]
    stroke = np.vstack([a + (away - a) * t, away + (b - away) * t]).tolist()
    r = game.move({"start": start, "end": end, "press": a.tolist(), "stroke": stroke})
    assert r["ok"], r
    log.close()
    assert "note 1 ; drawn-by stroke" in (tmp_path / "g.log").read_text()


def test_the_region_pressed_chooses_the_side_of_a_spot_with_two() -> None:
    """After a loop at spot 1, a move from 1 to the loop's new spot 4 may go inside the loop or
    outside it: the region under the point pressed chooses (Alfeld §3.1)."""
    from sprouts_cli.engine.moves import apply_move
    from sprouts_cli.engine.naming import MoveWords, moves_from_words
    from sprouts_cli.play.web_pointer import region_at

    made = {}
    for side in ("inside", "outside"):
        game = WebGame(Position.start(3), ("human", "human"), Rules.NORMAL, 800, 600)
        assert game.move({"start": 0, "end": 0, "marks": [], "stroke": []})["ok"]
        loop = np.vstack([c.pieces.reshape(-1, 2) for c in game.picture.curves])
        press = loop.mean(axis=0) if side == "inside" else np.array([5.0, 5.0])
        a = game.analysis()
        region = region_at(a, *press)
        fits = moves_from_words(a.position, MoveWords(0, 3, frozenset(), None))
        want = {apply_move(a.position, m).canonical() for m in fits if m.region == region}
        assert len({m.region for m in fits}) == 2 and want  # the words fit both sides
        assert game.move({"start": 0, "end": 3, "press": press.tolist(), "stroke": []})["ok"]
        made[side] = game.game.position.canonical()
        assert made[side] in want
    assert made["inside"] != made["outside"]


def test_no_room_says_why_and_offers_the_rungs() -> None:
    """A move the router cannot draw at the clearance asked for waits, with the widest way and the rungs."""
    game = WebGame(Position.start(2), ("human", "human"), Rules.NORMAL, 120, 100)
    assert game.set_settings({"d0": 40.0, "human": []})["ok"]
    r = game.move({"start": 0, "end": 1, "press": _spot(game, 0), "stroke": []})
    if r["ok"]:  # pragma: no cover - the layout left room after all
        pytest.skip("the start left room for the move at d0 = 40")
    assert "needed" in r["why"] and r["offered"] == ["M", "A", "R", "Z", "."]
    assert game.state()["waiting"]["why"] == r["why"]
    game.set_settings({"d0": 6.0})
    r = game.rung("M")  # pressed by hand: the waiting move is tried again
    assert r["ok"], r
    assert game.game.moves_made == 1 and game.state()["waiting"] is None


def test_a_computer_moves_and_is_drawn() -> None:
    from sprouts_cli.players import Settings

    game = WebGame(
        Position.start(2), ("human", "random"), Rules.NORMAL, 800, 600, player_settings=Settings(seconds=0.1)
    )
    a = _spot(game, 0)
    assert game.move({"start": 0, "end": 1, "press": a, "stroke": []})["ok"]
    done = threading.Event()

    def wait() -> None:
        while game.game.moves_made < 2 and not game.error:
            game.wait(game.version, 1.0)
        done.set()

    threading.Thread(target=wait, daemon=True).start()
    assert done.wait(60) and not game.error, game.error
    assert game.game.moves_made == 2 and len(game.pictures) == 3
    pic = game.picture
    assert live_key(analyse(pic)) == live_key(game.game.position)
    assert np.isfinite(pic.spots).all()
    state = game.state()
    assert state["last"] and state["svg"].startswith("<svg") and " moves left" in state["status"]


def test_computers_with_worker_processes_and_the_table_play_to_the_end(tmp_path: Path) -> None:
    """Parity search with two worker processes against perfect play, which reads and writes the
    table of solved positions: every move of every computer is made, to the end of the game
    (their workers and the table live on one thread for the whole game)."""
    from web_helpers import Client, start_server, stop_server

    from sprouts_cli.log import replay_log

    log = tmp_path / "g.log"
    args = ["--spots", "4", "--first", "parity", "--second", "perfect", "--jobs", "2", "--time", "0.2"]
    proc, url = start_server([*args, "--db", str(tmp_path / "t.sqlite"), "--log", str(log)], tmp_path)
    gone: OSError | None = None  # the server stopped answering: its output says why
    try:
        page = Client(url)
        deadline = time.monotonic() + 180
        while True:
            try:
                state = page.state()
            except OSError as e:
                gone = e
                break
            if state["over"] or state["error"] or time.monotonic() >= deadline:
                break
            time.sleep(0.3)
    finally:
        code, out = stop_server(proc)
    assert gone is None, f"the page's server went away ({gone}); it exited {code}:\n{out}"
    assert state["over"] and not state["error"], (state["error"], state["log"][-3:])
    assert code == 130 and "Traceback" not in out, out
    game = replay_log(log).games[-1]
    assert game.moves == state["moves"] and game.position.canonical() == state["position"]
