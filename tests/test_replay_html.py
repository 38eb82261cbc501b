"""``sprouts replay LOG --html/--gif``: the page parsed (every frame valid SVG), driven in a real browser."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from browser import browser_page, skip_reason
from click.testing import CliRunner

from sprouts_cli.cli import main
from sprouts_cli.log import replay_log
from sprouts_cli.render import NEW_CURVE_COLOUR
from sprouts_cli.replay_html import moves_left, prefix_ids

SVG = "{http://www.w3.org/2000/svg}svg"


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def watched(tmp_path_factory) -> tuple[Path, Path, int]:
    """A three-player game from 2 spots, as a log, a page and an animation."""
    d = tmp_path_factory.mktemp("watch")
    log = d / "game.log"
    r = run(
        "play",
        "--spots",
        "2",
        "--first",
        "random",
        "--second",
        "montecarlo",
        "--third",
        "random",
        "--games",
        "2",
        "--seed",
        "3",
        "--jobs",
        "1",
        "--log",
        str(log),
        "--no-db",
        "-q",
    )
    assert r.exit_code == 0, r.output
    page, gif = d / "game.html", d / "game.gif"
    r = run("replay", str(log), "--html", str(page), "--gif", str(gif), "--area", "400x300")
    assert r.exit_code == 0, r.output
    moves = replay_log(log).games[-1].moves
    return page, gif, moves


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.append((tag, dict(attrs)))


def test_every_frame_is_valid_svg_and_nothing_is_loaded(watched) -> None:
    page, _, moves = watched
    text = page.read_text(encoding="utf-8")
    parser = _Collect()
    parser.feed(text)
    figures = [a for t, a in parser.tags if t == "figure"]
    assert len(figures) == moves + 1
    svgs = re.findall(r"<svg\b.*?</svg>", text, flags=re.S)
    assert len(svgs) == moves + 1
    ids: set[str] = set()
    for svg in svgs:
        root = ET.fromstring(svg)  # well-formed XML
        assert root.tag == SVG
        assert root.findall(".//{http://www.w3.org/2000/svg}path")  # curves or the frame drawn
        frame_ids = {e.get("id") for e in root.iter() if e.get("id")}
        assert not frame_ids & ids  # ids are unique in the page
        ids |= frame_ids
    # self-contained: no external script, style, image or frame
    for tag, attrs in parser.tags:
        assert "src" not in attrs or attrs["src"].startswith("data:"), (tag, attrs)
        assert tag not in ("link", "iframe", "object", "embed")
    assert "Content-Security-Policy" in text
    items = [a for t, a in parser.tags if t == "li"]
    assert len(items) == moves + 1  # the move list in words, the start first
    assert "player 2 (montecarlo)" in text


def test_gif_has_one_frame_per_position(watched) -> None:
    from PIL import Image

    _, gif, moves = watched
    with Image.open(gif) as im:
        assert im.format == "GIF"
        assert im.n_frames == moves + 1


def test_gif_marks_the_new_curve(watched) -> None:
    from PIL import Image

    gif = watched[1]
    want = tuple(int(NEW_CURVE_COLOUR[i : i + 2], 16) for i in (1, 3, 5))

    def marked(frame) -> int:
        rgb = frame.convert("RGB")
        colours = rgb.getcolors(1 << 20)
        return sum(n for n, c in colours if max(abs(a - b) for a, b in zip(c, want, strict=True)) < 24)

    with Image.open(gif) as im:
        im.seek(0)
        assert marked(im) == 0
        im.seek(1)
        assert marked(im) > 20  # the first move's curves, in the new-curve colour


def test_prefix_ids_renames_references() -> None:
    svg = '<svg><clipPath id="c1"/><g clip-path="url(#c1)"/><use xlink:href="#c1"/></svg>'
    out = prefix_ids(svg, "f2-")
    assert 'id="f2-c1"' in out and "url(#f2-c1)" in out and 'href="#f2-c1"' in out


def test_new_curve_marked_and_moves_left_in_words(watched) -> None:
    page, _, moves = watched
    text = page.read_text()
    frames = re.findall(r'<figure class="frame".*?</figure>', text, flags=re.S)
    assert len(frames) == moves + 1
    assert NEW_CURVE_COLOUR not in frames[0]  # the start has no new curve
    assert all(f.count(NEW_CURVE_COLOUR) == 2 for f in frames[1:])  # a move's two curves
    left = re.findall(r'<span class="left">([^<]*)</span>', text)
    assert left[-1] == "game over"
    assert not any(re.fullmatch(r"(\d+)–\1 left", x) for x in left)  # never "2–2 left"
    assert moves_left(2, 2) == "exactly 2 moves left" and moves_left(1, 4) == "1 to 4 moves left"
    assert moves_left(1, 1) == "1 move left" and moves_left(0, 0) == "game over"
    assert 'id="result" hidden' in text


def test_fresh_frames_keep_the_spot_numbers(tmp_path: Path, watched) -> None:
    page, _, moves = watched
    log = page.with_name("game.log")
    fresh = tmp_path / "fresh.html"
    r = run("replay", str(log), "--html", str(fresh), "--area", "400x300", "--fresh")
    assert r.exit_code == 0, r.output
    assert fresh.read_text().count('<figure class="frame"') == moves + 1
    out = tmp_path / "last.json"
    r = run("replay", str(log), "-o", str(out), "--fresh")
    assert r.exit_code == 0, r.output
    from sprouts_cli.engine.naming import numbered_key
    from sprouts_cli.picture import analyse, load_game

    last = replay_log(log).games[-1].line_of_play[-1].position
    assert numbered_key(analyse(load_game(out)))[:2] == numbered_key(last)[:2]


def test_dots_render_scale(tmp_path: Path) -> None:
    import struct

    sizes = []
    for scale in ("1", "2"):
        png = tmp_path / f"d{scale}.png"
        r = run("dots", "render", "2x3:" + "0" * 17, "-o", str(png), "--scale", scale)
        assert r.exit_code == 0, r.output
        sizes.append(struct.unpack(">II", png.read_bytes()[16:24]))
    assert sizes[1][0] == 2 * sizes[0][0] and sizes[1][1] == 2 * sizes[0][1]


def test_refusals(tmp_path: Path) -> None:
    r = run("replay", str(tmp_path / "none.log"), "--html", str(tmp_path / "x.txt"))
    assert r.exit_code == 2 and ".html" in r.output
    r = run("replay", str(tmp_path / "none.log"), "--gif", "/no/such/dir/x.gif")
    assert r.exit_code == 2 and "no such directory" in r.output


@pytest.mark.skipif(skip_reason() is not None, reason=str(skip_reason()))
def test_the_page_in_a_real_browser(watched, tmp_path: Path) -> None:
    page_file, _, moves = watched
    with browser_page() as page:
        page.goto(page_file.as_uri())

        def current() -> str:
            return page.evaluate("document.body.getAttribute('data-current')")

        def shown() -> list[str]:
            return page.evaluate(
                "[...document.querySelectorAll('figure.frame')].filter(f => !f.hidden).map(f => f.id)"
            )

        assert current() == "0"
        assert shown() == ["frame-0"]

        def result_hidden() -> bool:
            return page.evaluate("document.getElementById('result').hidden")

        assert result_hidden() is True  # the winner is not told at the start
        # the move list stands beside the picture, not under it
        assert page.evaluate(
            "document.querySelector('#moves').getBoundingClientRect().left >"
            " document.querySelector('#frames').getBoundingClientRect().right - 1"
        )
        for k in range(1, 4):
            page.keyboard.press("ArrowRight")
            assert current() == str(k)
            assert shown() == [f"frame-{k}"]
        assert page.evaluate("document.getElementById('slider').value") == "3"
        page.keyboard.press("End")
        assert current() == str(moves)
        assert result_hidden() is False
        page.keyboard.press("ArrowRight")  # nothing after the end
        assert current() == str(moves)
        page.keyboard.press("ArrowLeft")
        assert current() == str(moves - 1)
        assert "position" in page.inner_text("#status")
        png = page.screenshot()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000
        (tmp_path / "screenshot.png").write_bytes(png)
        page.keyboard.press("Home")
        assert current() == "0"
        page.goto("about:blank")
        page.goto(page_file.as_uri() + "#k=2")  # a fragment opens the page at a position
        assert current() == "2"


def long_page(tmp_path: Path) -> tuple[Path, int]:
    """The page of a stored 20-move game, every picture a stand-in of render's size (drawing them is slow)."""
    from sprouts_cli.replay_html import frames_of, html_page

    g = replay_log(Path(__file__).parent / "data" / "replay" / "mirror-8-spots.log").games[-1]
    frames = frames_of(g)
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="576pt" height="432pt" viewBox="0 0 576 432">'
        '<path d="M10 10 L566 422" stroke="black"/></svg>'
    )
    page = tmp_path / "long.html"
    text = html_page(g, frames, [svg] * len(frames), source="replayed from a test")
    page.write_text(text, encoding="utf-8")
    return page, g.moves


def test_the_result_is_said_at_the_end_only(tmp_path: Path) -> None:
    page, moves = long_page(tmp_path)
    text = page.read_text(encoding="utf-8")
    assert '<p class="result" id="result" hidden>Winner: player 2. No move left: player 1 cannot move' in text
    assert "hidden = k !== last" in text
    left = re.findall(r'<span class="left">([^<]*)</span>', text)
    assert len(left) == moves + 1 and left[-1] == "game over" and left[-2] == "1 move left"
    assert "exactly 2 moves left" in left and not [x for x in left if "–" in x]
    assert NEW_CURVE_COLOUR in text.split('<p class="legend">')[1].split("</p>")[0]  # the legend says it


@pytest.mark.skipif(skip_reason() is not None, reason=str(skip_reason()))
def test_a_long_game_fits_a_wide_window_beside_its_move_list(tmp_path: Path) -> None:
    page_file, moves = long_page(tmp_path)
    with browser_page(1200, 800) as page:
        page.goto(page_file.as_uri())
        box = "(s) => (r => [r.left, r.right])(document.querySelector(s).getBoundingClientRect())"
        moves_box, frames_box = page.evaluate(box, "#moves"), page.evaluate(box, "#frames")
        assert moves_box[0] >= frames_box[1]  # beside the picture
        assert frames_box[1] - frames_box[0] > 500  # and the picture takes the room left
        # nothing to scroll but the move list
        assert page.evaluate("document.documentElement.scrollHeight <= window.innerHeight")
        assert page.evaluate("(l => l.scrollHeight > l.clientHeight)(document.getElementById('moves'))")
        # a count is never broken over two lines
        one_line = "[...document.querySelectorAll('.left')].every(e => e.getClientRects().length == 1)"
        assert page.evaluate(one_line)
        assert page.evaluate("document.getElementById('result').hidden") is True
        page.keyboard.press("End")
        assert page.evaluate("document.body.getAttribute('data-current')") == str(moves)
        assert page.evaluate("document.getElementById('result').hidden") is False
        assert page.inner_text("#result").startswith("Winner: player 2.")
        # the last move is in view in the list
        assert page.evaluate(
            "(() => { const l = document.getElementById('moves').getBoundingClientRect();"
            " const i = document.querySelector('li.current').getBoundingClientRect();"
            " return i.top >= l.top - 1 && i.bottom <= l.bottom + 1; })()"
        )
        page.set_viewport_size({"width": 600, "height": 800})  # a narrow window: the list under the picture
        moves_box, frames_box = page.evaluate(box, "#moves"), page.evaluate(box, "#frames")
        assert moves_box[0] < frames_box[1]


def test_progress_rewrites_one_line_on_a_terminal_and_is_plain_lines_elsewhere(monkeypatch, capsys) -> None:
    from types import SimpleNamespace

    from sprouts_cli.cli import watch

    for terminal, said in (
        (True, "\r\033[Kdrawing position 1 of 3\r\033[Kdrawing position 2 of 3\r\033[K"),
        (False, "drawing position 1 of 3\ndrawing position 2 of 3\n"),
    ):
        monkeypatch.setattr(watch, "err", SimpleNamespace(is_terminal=terminal))
        progress = watch.progress_line("drawing position")
        progress(0, 3)
        progress(1, 3)
        watch.end_progress()
        assert capsys.readouterr().err == said
