"""Games to watch: a replayed game as one self-contained HTML page, or as an animated GIF.

The page holds every position's picture as inline SVG, the move list in words, a
slider, buttons and the arrow keys (← →, Home, End) to step through the game; a URL
fragment ``#k=5`` opens it at the position after move 5.  It loads nothing: no
network, no external script or style (a Content-Security-Policy says so to the
browser).  The GIF has one frame per position (matplotlib's Pillow writer).

The pictures are drawn as ``sprouts play --save`` draws them: the start laid out
once, every move drawn into the picture as it stands (the router), each picture
read back and checked to be the game's position with the same spot numbers.
"""

from __future__ import annotations

import html
import io
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .engine.moves import apply_move
from .engine.naming import numbered_key
from .engine.position import Position
from .errors import SproutsError
from .log import ReplayedGame, bounds_of

if TYPE_CHECKING:  # pragma: no cover
    from .engine.moves import Move
    from .picture.model import Picture
    from .play.drawing import Drawer


@dataclass
class Frame:
    """One position of the game to show: after move ``move`` (0: the start)."""

    move: int
    words: str  # the move in words ("start" for the first frame)
    player: int | None  # who made the move
    by: str | None
    position: Position
    upper: int
    lower: int


def frames_of(game: ReplayedGame) -> list[Frame]:
    """The start and every move standing at the end of the game (undone moves left out)."""
    out = []
    for s in game.line_of_play:
        upper, lower = bounds_of(s.position, game.complete)
        player = game.rules.to_move(game.first_to_move, s.move - 1) if s.move else None
        out.append(Frame(s.move, s.text, player, s.by, s.position, upper, lower))
    return out


def draw_frames(
    game: ReplayedGame,
    width: float = 600,
    height: float = 450,
    jobs: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    fresh: bool = False,
) -> list[Picture]:
    """A checked picture of every position of the line of play, each move drawn into the last picture.

    As in ``sprouts play --save``: the start is laid out once and every move is drawn
    into the picture as it stands (the router, making room only when there is none),
    so spots keep their places from frame to frame; each picture is read back and
    must be the game's position with the same spot numbers.  With ``fresh`` every
    position is drawn afresh instead (Z and its polish: clean frames, but the spots
    move from frame to frame), checked the same way.
    """
    from .play.drawing import Drawer
    from .play.game import Game, PlayError

    steps = game.line_of_play
    if fresh:
        return _fresh_frames(game, width, height, jobs, progress)
    drawer = Drawer(width, height, jobs=jobs)
    play = Game(game.start, game.rules, first_to_move=game.first_to_move)
    pictures: list[Picture] = []
    try:
        if progress:
            progress(0, len(steps))
        drawer.begin(game.start)
        drawer.draw(play)
        pictures.append(_drawn(drawer))
        for i, s in enumerate(steps[1:], start=1):
            if progress:
                progress(i, len(steps))
            move = move_again(play.position, s.text, s.position)
            if move is None:
                raise SproutsError(
                    f"the game cannot be drawn: move {s.move} '{s.text}' is not found again in the game"
                )
            play.play(move, s.by or "", s.text)
            drawer.draw(play)
            pictures.append(_drawn(drawer))
    except PlayError as e:
        raise SproutsError(f"the game cannot be drawn: {e}") from None
    return pictures


def move_again(before: Position, words: str, after: Position) -> Move | None:
    """The move of ``words`` from ``before`` that gives ``after``, the position the log's replay
    reached: the very position first, else its mirror image; None if no move gives either.

    The replay keeps the position as the move gives it, so following its positions exactly
    keeps the drawing's game the replay's, move after move.  A mirror image alone is not
    enough: two moves may give mirror images of each other (a loop with the other
    boundaries inside or outside it), and the next move's words name the replay's one.
    """
    from .engine.naming import moves_from_words, parse_words

    fits = moves_from_words(before, parse_words(words))
    results = [(m, apply_move(before, m, check=False)) for m in fits]
    for mirror in (False, True):
        want = numbered_key(after, mirror)
        for m, got in results:
            if numbered_key(got, mirror) == want:
                return m
    return None


def _fresh_frames(
    game: ReplayedGame,
    width: float,
    height: float,
    jobs: int | None,
    progress: Callable[[int, int], None] | None,
) -> list[Picture]:
    """Every position of the line of play drawn afresh, keeping the game's spot numbers (checked)."""
    from .errors import PictureError
    from .picture import analyse, layout_position

    steps = game.line_of_play
    pictures = []
    for i, s in enumerate(steps):
        if progress:
            progress(i, len(steps))
        try:
            pic = layout_position(s.position, width, height, jobs=jobs)
        except PictureError as e:
            raise SproutsError(f"position {i} cannot be drawn afresh: {e}") from None
        if numbered_key(analyse(pic))[:2] != numbered_key(s.position)[:2]:
            raise SproutsError(f"position {i} drawn afresh does not keep the game's spot numbers")
        pictures.append(pic)
    return pictures


def _drawn(drawer: Drawer) -> Picture:
    """The picture a drawer holds once it has drawn (it always holds one then)."""
    assert drawer.picture is not None
    return drawer.picture


def frame_title(f: Frame, game: ReplayedGame) -> str:
    if f.move == 0:
        return f"start: {f.position.canonical()}"
    return f"move {f.move}: {f.words}"


def new_curves(pic) -> tuple[int, ...]:
    """The curves of the move that made the picture's newest spot (a move's spot is numbered last)."""
    if not len(pic.spots) or not pic.curves:
        return ()
    z = len(pic.spots) - 1
    mine = tuple(e for e, c in enumerate(pic.curves) if z in (c.a, c.b))
    return mine if len(mine) == 2 else ()


def moves_left(lower: int, upper: int) -> str:
    """How many moves are left, as a reader says it: "game over", "exactly 2 left", "2–5 left"."""
    if upper == 0:
        return "game over"
    if lower == upper:
        return f"exactly {upper} left"
    return f"{lower}–{upper} left"


def svg_of(pic, title: str | None, highlight: tuple[int, ...] = ()) -> str:
    """The picture as SVG text (no XML prologue: ready to be inlined); ``highlight``: curves marked new."""
    from .render import render_bytes

    data = render_bytes(pic, "svg", numbers=True, lives=True, title=title, highlight=highlight)
    text = data.decode("utf-8")
    start = text.find("<svg")
    return text[start:]


_ID = re.compile(r'\bid="([^"]+)"')


def prefix_ids(svg: str, prefix: str) -> str:
    """Make the ids of one inlined SVG unique in the page (and the references to them)."""
    ids = set(_ID.findall(svg))
    for name in sorted(ids, key=len, reverse=True):
        new = f"{prefix}{name}"
        svg = svg.replace(f'id="{name}"', f'id="{new}"')
        svg = svg.replace(f"url(#{name})", f"url(#{new})")
        svg = svg.replace(f'href="#{name}"', f'href="#{new}"')
    return svg


def describe_players(game: ReplayedGame) -> str:
    return ", ".join(f"player {i} {kind}" for i, kind in enumerate(game.players, start=1))


def html_page(game: ReplayedGame, frames: list[Frame], svgs: list[str], source: str = "") -> str:
    """The page: every frame's SVG, the move list, a slider, buttons and keys."""
    esc = html.escape
    last = len(frames) - 1
    figures = []
    for i, (f, svg) in enumerate(zip(frames, svgs, strict=True)):
        hidden = "" if i == 0 else " hidden"
        figures.append(
            f'<figure class="frame" id="frame-{i}" data-move="{f.move}"{hidden}>\n'
            f"{prefix_ids(svg, f'f{i}-')}\n"
            f"<figcaption>{esc(frame_title(f, game))}</figcaption>\n</figure>"
        )
    items = []
    for i, f in enumerate(frames):
        who = f"player {f.player} ({f.by or game.players[f.player - 1]})" if f.player else ""
        label = "start" if f.move == 0 else f"{f.move}. {who}: {f.words}"
        items.append(
            f'<li data-k="{i}"><button type="button" class="move" data-k="{i}">{esc(label)}</button>'
            f' <code>{esc(f.position.canonical())}</code>'
            f' <span class="left">{esc(moves_left(f.lower, f.upper))}</span></li>'
        )
    ended = game.ended or {}
    result = ""
    if ended:
        winner = ended.get("winner", "none")
        reason = esc(ended.get("reason", ""))
        result = f"Winner: player {winner} ({reason})." if winner not in ("none", "") else f"Left: {reason}."
    data = {
        "titles": [frame_title(f, game) for f in frames],
        "positions": [f.position.canonical() for f in frames],
    }
    title = f"Sprouts game {game.number}: {game.start.canonical()}"
    return PAGE.format(
        title=esc(title),
        heading=esc(title),
        about=esc(f"{game.rules.describe()}; {describe_players(game)}; {last} moves"),
        source=esc(source),
        result=result,
        last=last,
        figures="\n".join(figures),
        items="\n".join(items),
        data=json.dumps(data).replace("</", "<\\/"),
    )


def write_html(path: str | os.PathLike, game: ReplayedGame, pictures: list, source: str = "") -> None:
    from .files import write_atomic

    frames = frames_of(game)
    # the caption names the move; the move's new curve is marked
    svgs = [
        svg_of(pic, None, new_curves(pic) if f.move else ()) for f, pic in zip(frames, pictures, strict=True)
    ]
    write_atomic(path, html_page(game, frames, svgs, source))


def write_gif(
    path: str | os.PathLike, game: ReplayedGame, pictures: list, seconds_per_frame: float = 1.0
) -> int:
    """An animated GIF, one frame per position (matplotlib's Pillow writer); returns the frame count."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.animation import FuncAnimation, PillowWriter
    from matplotlib.image import imread

    from .render import render_bytes

    frames = frames_of(game)
    images = [
        imread(io.BytesIO(render_bytes(pic, "png", numbers=True, lives=True, title=frame_title(f, game))))
        for f, pic in zip(frames, pictures, strict=True)
    ]
    h, w = images[0].shape[:2]
    fig = plt.figure(figsize=(w / 100, h / 100), dpi=100)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.axis("off")
    shown = ax.imshow(images[0])

    def show(i: int):
        shown.set_data(images[i])
        return (shown,)

    anim = FuncAnimation(fig, show, frames=len(images), blit=True, repeat=False)
    from pathlib import Path

    target = Path(path)
    tmp = target.with_name(f".{target.name}.tmp.gif")
    try:
        writer = PillowWriter(fps=1.0 / seconds_per_frame)  # type: ignore[arg-type]  # any rate works; the stub says int
        anim.save(str(tmp), writer=writer)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    finally:
        plt.close(fig)
    return len(images)


PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
      content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 1em 2em; color: #1d2733; }}
h1 {{ font-size: 1.3em; margin-bottom: 0.2em; }}
.about {{ color: #555; margin-top: 0; }}
main {{ display: grid; grid-template-columns: minmax(0, 1fr) minmax(15em, 28em); gap: 1.5em;
        align-items: start; }}
@media (max-width: 700px) {{ main {{ grid-template-columns: 1fr; }} }}
.frame {{ margin: 0; }}
.frame svg {{ width: 100%; height: auto; max-height: calc(100vh - 12em); border: 1px solid #d0d4d9; }}
.moves h2 {{ margin-top: 0; }}
figcaption {{ font-family: monospace; margin-top: 0.3em; }}
.controls {{ display: flex; gap: 0.5em; align-items: center; margin: 0.6em 0; }}
#slider {{ width: 320px; }}
ol {{ list-style: none; padding: 0; margin: 0; max-height: calc(100vh - 10em); overflow-y: auto;
      position: relative; }}
li {{ padding: 0.15em 0.3em; }}
li.current {{ background: #fff3c4; }}
button.move {{ background: none; border: none; padding: 0; cursor: pointer; font: inherit; }}
code {{ color: #555; }}
.left {{ color: #888; font-size: 0.85em; }}
</style>
</head>
<body>
<h1>{heading}</h1>
<p class="about">{about}</p>
<main>
<section>
<div class="controls">
<button type="button" id="first" title="the start (Home)">«</button>
<button type="button" id="prev" title="back (←)">‹</button>
<input type="range" id="slider" min="0" max="{last}" value="0" step="1" aria-label="position">
<button type="button" id="next" title="on (→)">›</button>
<button type="button" id="end" title="the end (End)">»</button>
<span id="status" aria-live="polite">position 0 of {last}</span>
</div>
<div id="frames">
{figures}
</div>
<p class="result" id="result" hidden>{result}</p>
</section>
<section class="moves">
<h2>Moves</h2>
<ol id="moves">
{items}
</ol>
<p class="source">{source}</p>
</section>
</main>
<script id="game-data" type="application/json">{data}</script>
<script>
(function () {{
  "use strict";
  var last = {last};
  var current = 0;
  var slider = document.getElementById("slider");
  var status = document.getElementById("status");
  var data = JSON.parse(document.getElementById("game-data").textContent);
  var list = document.getElementById("moves");
  function keepInView(item) {{  // scroll the list only, never the page
    if (item.offsetTop < list.scrollTop) list.scrollTop = item.offsetTop;
    else if (item.offsetTop + item.offsetHeight > list.scrollTop + list.clientHeight)
      list.scrollTop = item.offsetTop + item.offsetHeight - list.clientHeight;
  }}
  function show(k) {{
    k = Math.max(0, Math.min(last, k | 0));
    document.getElementById("frame-" + current).hidden = true;
    var old = document.querySelector('li[data-k="' + current + '"]');
    if (old) old.classList.remove("current");
    current = k;
    document.getElementById("frame-" + k).hidden = false;
    var item = document.querySelector('li[data-k="' + k + '"]');
    if (item) {{ item.classList.add("current"); keepInView(item); }}
    slider.value = String(k);
    document.getElementById("result").hidden = k !== last;  // the result belongs to the end
    status.textContent = "position " + k + " of " + last + ": " + data.positions[k];
    document.body.setAttribute("data-current", String(k));
    try {{ history.replaceState(null, "", "#k=" + k); }} catch (err) {{ /* not where it is refused */ }}
  }}
  slider.addEventListener("input", function () {{ show(parseInt(slider.value, 10)); }});
  document.getElementById("first").addEventListener("click", function () {{ show(0); }});
  document.getElementById("prev").addEventListener("click", function () {{ show(current - 1); }});
  document.getElementById("next").addEventListener("click", function () {{ show(current + 1); }});
  document.getElementById("end").addEventListener("click", function () {{ show(last); }});
  Array.prototype.forEach.call(document.querySelectorAll("button.move"), function (b) {{
    b.addEventListener("click", function () {{ show(parseInt(b.getAttribute("data-k"), 10)); }});
  }});
  document.addEventListener("keydown", function (e) {{
    if (e.target === slider) return;  // the slider steps by itself (its input event)
    if (e.key === "ArrowRight" || e.key === "ArrowDown") {{ show(current + 1); e.preventDefault(); }}
    else if (e.key === "ArrowLeft" || e.key === "ArrowUp") {{ show(current - 1); e.preventDefault(); }}
    else if (e.key === "Home") {{ show(0); e.preventDefault(); }}
    else if (e.key === "End") {{ show(last); e.preventDefault(); }}
  }});
  var m = /k=(\\d+)/.exec(location.hash);
  show(m ? parseInt(m[1], 10) : 0);
}})();
</script>
</body>
</html>
"""

__all__ = ["Frame", "draw_frames", "frames_of", "html_page", "prefix_ids", "write_gif", "write_html"]
