"""``sprouts play --web`` in a real headless Chromium: a whole 3-spot game against the computer, by hand.

The page is driven with pointer events at the spots' screen places: a marked loop
(click, shift-click, click), strokes, click-click moves, an undo, and a move refused
in heroic mode (a stroke through a spot).  At the end the saved game and the log
must both read back as the position the page shows.  ``SPROUTS_SCREENSHOT=FILE``
also keeps the page's screenshot there (``docs/images/play-web.png`` is made so).
"""

from __future__ import annotations

import itertools
import os
import re
import signal
from pathlib import Path

import numpy as np
import pytest
from browser import browser_page, skip_reason
from web_helpers import start_server, stop_server

from sprouts_cli.engine import Position
from sprouts_cli.engine.moves import apply_move
from sprouts_cli.engine.naming import distinct_named_moves, move_from_words, parse_lives, parse_numbered
from sprouts_cli.log import replay_log
from sprouts_cli.picture import analyse, load_game
from sprouts_cli.play.web_pointer import live_key

pytestmark = pytest.mark.skipif(skip_reason() is not None, reason=str(skip_reason()))


class Page:
    """The game's page and the gestures a person makes on it."""

    def __init__(self, page) -> None:
        self.page = page

    def state(self) -> dict:
        return self.page.evaluate("window.sproutsState")

    def position(self):
        s = self.state()
        return parse_numbered(s["numbered"], parse_lives("".join(str(spot[3]) for spot in s["spots"])))

    def settle(self, moves: int | None = None) -> dict:
        """Wait until the page shows a person's turn (or the end), with at least ``moves`` moves."""
        from playwright.sync_api import TimeoutError as Timeout

        least = -1 if moves is None else moves
        try:
            self._settle(least)
        except Timeout:
            s = self.state()
            raise AssertionError(f"the page did not settle: {s and s.get('status')}, {s and s.get('log')}, "
                                 f"{self.page.inner_text('#message')!r}") from None  # fmt: skip
        return self.state()

    def _settle(self, least: int) -> None:
        self.page.wait_for_function(
            f"""() => {{
                const s = window.sproutsState;
                return s && s.started && s.moves >= {least} && s.thinking === null
                    && (s.to_move_kind === "human" || s.over) && !document.body.classList.contains("busy");
            }}""",
            timeout=90_000,
            polling=200,
        )

    def at(self, s: int) -> tuple[float, float]:
        x, y = self.state()["spots"][s][:2]
        return self.to_screen((x, y))

    def to_screen(self, point: tuple[float, float]) -> tuple[float, float]:
        sx, sy = self.page.evaluate(f"window.sproutsToScreen({point[0]}, {point[1]})")
        return float(sx), float(sy)

    def click_spot(self, s: int, shift: bool = False) -> None:
        x, y = self.at(s)
        if shift:
            self.page.keyboard.down("Shift")
        self.page.mouse.click(x, y)
        if shift:
            self.page.keyboard.up("Shift")

    def click_move(self, a: int, b: int, marks: list[int]) -> None:
        self.click_spot(a)
        self.page.wait_for_selector("body[data-mode=click]")
        for s in marks:
            self.click_spot(s, shift=True)
        self.click_spot(b)

    def stroke(self, points: list[tuple[float, float]]) -> None:
        m = self.page.mouse
        m.move(*points[0])
        m.down()
        for (x0, y0), (x1, y1) in itertools.pairwise(points):
            for k in range(1, 9):
                m.move(x0 + (x1 - x0) * k / 8, y0 + (y1 - y0) * k / 8)
        m.up()

    def moved_or_waits(self, moves: int) -> None:
        """Wait until a move is made after ``moves``, or waits for room (the log and message if neither)."""
        from playwright.sync_api import TimeoutError as Timeout

        try:
            self.page.wait_for_function(
                f"() => window.sproutsState.moves > {moves} || window.sproutsState.waiting", polling=200
            )
        except Timeout:
            raise AssertionError((self.state()["log"], self.page.inner_text("#message"))) from None

    def make_room_if_asked(self) -> None:
        """A move waiting for room: press the rungs offered, lowest first."""
        for _ in range(5):
            s = self.state()
            if not s.get("waiting"):
                return
            rung = s["waiting"]["offered"][0]
            self.page.click(f'.rung[data-rung="{rung}"]')
            self.page.wait_for_function("() => !document.body.classList.contains('busy')")


def ends(words: str) -> tuple[int, int, list[int]]:
    m = re.match(r"(\d+) → (\d+)(?: enclosing (.*))?$", words)
    assert m, words
    enclosed: list[int] = []
    for part in (m.group(3) or "").split(","):
        part = part.strip()
        if "-" in part:
            lo, hi = part.split("-")
            enclosed.extend(range(int(lo), int(hi) + 1))
        elif part:
            enclosed.append(int(part))
    return int(m.group(1)) - 1, int(m.group(2)) - 1, [s - 1 for s in enclosed]


def nearest(points: np.ndarray, others: np.ndarray) -> float:
    """The least distance from ``points`` to ``others`` (infinite when there are none)."""
    if not len(others):
        return float("inf")
    return float(np.hypot(*(points[:, None] - others[None]).transpose(2, 0, 1)).min())


def clear_stroke(pic, pairs: list[tuple[int, int]]) -> tuple[int, int, list[tuple[float, float]]] | None:
    """A stroke (picture units) from spot ``a`` to ``b`` of one of ``pairs``, straight or bowed, that
    keeps 8 px from every curve and 12 px from every other spot: a usable stroke."""
    t = np.linspace(0.0, 1.0, 17)[:, None]
    curves = np.vstack([
        ((1 - t) ** 3) * q[0] + 3 * ((1 - t) ** 2) * t * q[1] + 3 * (1 - t) * t**2 * q[2] + t**3 * q[3]
        for c in pic.curves for q in c.pieces
    ] or [np.empty((0, 2))])  # fmt: skip
    for a, b in pairs:
        A, B = pic.spots[a], pic.spots[b]
        normal = np.array([B[1] - A[1], A[0] - B[0]])
        for bow in (0.0, 0.2, -0.2, 0.35, -0.35, 0.5, -0.5, 0.75, -0.75, 1.0, -1.0):
            mid = (A + B) / 2 + bow * normal
            line = np.vstack([A + (mid - A) * t, mid + (B - mid) * t])
            line = line[(np.hypot(*(line - A).T) > 12) & (np.hypot(*(line - B).T) > 12)]
            others = np.delete(pic.spots, [a, b], axis=0)
            if len(line) and nearest(line, curves) >= 8 and nearest(line, others) >= 12:
                return a, b, [tuple(map(float, A)), tuple(map(float, mid)), tuple(map(float, B))]
    return None


def test_a_whole_game_by_hand_in_chromium(tmp_path: Path) -> None:
    save, log = tmp_path / "game.json", tmp_path / "game.log"
    proc, url = start_server(
        ["--spots", "3", "--second", "random", "--seed", "5", "--save", str(save), "--log", str(log)],
        tmp_path,
    )
    gestures: list[str] = []
    try:
        with browser_page(1300, 850, bypass_csp=True) as raw:
            console: list[str] = []
            raw.on("pageerror", lambda e: console.append(str(e)))
            raw.goto(url)
            page = Page(raw)
            s = page.settle(0)
            assert s["moves"] == 0 and "player 1 (human) to move" in s["status"]
            # 1. a marked loop: click 1, shift-click 2, click 1
            page.click_move(0, 0, [1])
            s = page.settle(2)
            assert s["log"][1].strip() == "1. player 1 (human): 1 → 1 enclosing 2", s["log"]
            gestures.append("marked loop")
            # 2. a stroke between two spots of a region, clear of every curve and spot: the move it
            #    draws is read from it, and it is the start of the curve (the log says "drawn-by stroke")
            pairs = [
                ends(m.words)[:2] for m in distinct_named_moves(page.position())
                if "enclosing" not in m.words and ends(m.words)[0] != ends(m.words)[1]
            ]  # fmt: skip
            found = clear_stroke(load_game(save), pairs)
            assert found is not None, "no clear stroke between the spots of any move"
            a, b, points = found
            page.stroke([page.to_screen(p) for p in points])
            page.make_room_if_asked()
            s = page.settle(4)
            made = next(line for line in s["log"] if line.strip().startswith("3."))
            assert re.search(rf"\b({a + 1} → {b + 1}|{b + 1} → {a + 1})\b", made), made
            gestures.append("stroke")
            # 3. undo: the computer's move and the stroke are taken back
            raw.click("#undo")
            raw.wait_for_function("() => window.sproutsState.moves < 4", polling=200)
            s = page.settle()
            assert s["moves"] == 2 and s["to_move_kind"] == "human"
            gestures.append("undo")
            # 4. heroic mode: a stroke through another spot is refused, saying why, and changes nothing
            raw.click("#settings-button")
            raw.check('#settings input[name="heroic"]')
            raw.wait_for_function("() => window.sproutsState.settings.heroic === true")
            lives = [spot[3] for spot in s["spots"]]
            live = [i for i, v in enumerate(lives) if v > 0]
            a, b = live[0], live[-1]
            c = next(i for i in range(len(lives)) if i not in (a, b))
            before = s["numbered"]
            page.stroke([page.at(a), page.at(c), page.at(b)])
            raw.wait_for_function("() => document.getElementById('message').textContent.includes('heroic')")
            assert page.state()["numbered"] == before and page.state()["moves"] == 2
            gestures.append("refused")
            raw.uncheck('#settings input[name="heroic"]')
            raw.wait_for_function("() => window.sproutsState.settings.heroic === false")
            # 5. click-click moves (their marks shift-clicked) to the end of the game
            for _ in range(10):
                s = page.settle()
                if s["over"]:
                    break
                words = distinct_named_moves(page.position())[0].words
                a, b, marks = ends(words)
                page.click_move(a, b, marks)
                page.moved_or_waits(s["moves"])
                page.make_room_if_asked()
                page.settle(s["moves"] + 1)
                gestures.append("click-click")
            s = page.settle()
            assert s["over"] and "game over" in s["status"], s["status"]
            assert not console, console
            png = raw.screenshot()
            assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
            (tmp_path / "page.png").write_bytes(png)
            if os.environ.get("SPROUTS_SCREENSHOT"):
                Path(os.environ["SPROUTS_SCREENSHOT"]).write_bytes(png)
            raw.click("#save")
            raw.wait_for_function("() => document.getElementById('message').textContent.includes('saved in')")
            shown = page.position()
            moves = s["moves"]
    finally:
        code, out = stop_server(proc)
    assert code == 130 and "interrupted" in out, out
    assert "Traceback" not in out, out
    assert {"marked loop", "stroke", "undo", "refused", "click-click"} <= set(gestures)
    # the saved game reads back as the page's position: its picture, and its moves replayed from the start
    saved = load_game(save)
    assert live_key(analyse(saved)) == live_key(shown)
    replayed = Position.start(3)
    for words in saved.meta["game"]["move_list"]:
        replayed = apply_move(replayed, move_from_words(replayed, words))
    assert len(saved.meta["game"]["move_list"]) == moves
    assert replayed.canonical() == shown.canonical() and live_key(replayed) == live_key(shown)
    # and so does the log, move by move
    replay = replay_log(log)
    assert replay.error is None, replay.error
    game = replay.games[-1]
    assert game.moves == moves and live_key(game.position) == live_key(shown)
    assert game.position.canonical() == shown.canonical()
    assert any(step.text == "undo" for step in game.steps)
    # the stroke was the start of move 3's curve, not replaced by the planner's route
    assert re.search(r"^note 3 ; drawn-by stroke$", log.read_text(), re.M), log.read_text()


def test_sigterm_stops_the_server_cleanly(tmp_path: Path) -> None:
    proc, url = start_server(
        ["--spots", "2", "--first", "random", "--second", "random", "--time", "0.1"], tmp_path
    )
    with browser_page(bypass_csp=True) as raw:
        raw.goto(url)
        Page(raw).page.wait_for_function(
            "() => window.sproutsState && window.sproutsState.over", timeout=90_000
        )
        assert "game over" in raw.inner_text("#status")  # two computers' game, watched to its end
    code, out = stop_server(proc, signal.SIGTERM)
    assert code == 143 and "terminated" in out and "Traceback" not in out, out
