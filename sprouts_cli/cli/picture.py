"""``sprouts layout`` and ``sprouts render``: pictures of positions (Alfeld §2–4).

Every picture written is read back and must give the position it draws (Alfeld §1.2).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from ..errors import PictureError, SproutsError
from ..files import check_output
from ..procs import Terminated, interrupted_exit_code, stops_cleanly_on_sigterm
from .common import (
    Item,
    Reporter,
    err,
    fail,
    names_a_file,
    print_data,
    print_json,
    read_game,
    read_items,
    read_position,
    where_and_what,
)

#: ``--budget``'s default: ``picture.layout.LAYOUT_WORK`` (not imported here: the layout pulls
#: in networkx, and ``sprouts --help`` should start at once; a test keeps the two equal).
LAYOUT_WORK = 300_000

if TYPE_CHECKING:  # pragma: no cover
    from ..picture.model import Picture

#: A click command's function, as its option decorators hand it on.
F = TypeVar("F", bound=Callable[..., Any])

#: ``layout -o`` writes a saved game, or a picture of it, by the output's extension.
LAYOUT_SUFFIXES = (".json", ".svg", ".png")


def _is_file(arg: str) -> bool:
    return names_a_file(arg)


def _outer(value: str) -> int | None:
    if value == "auto":
        return None
    try:
        k = int(value)
    except ValueError:
        raise click.BadParameter("expected 'auto' or a region number (1, 2, …)") from None
    if k < 1:
        raise click.BadParameter("region numbers start at 1")
    return k - 1


def _progress(done: int, total: int) -> None:
    if not err.is_terminal:  # progress is for a person watching, not for a pipe or a log
        return
    err.print(f"[dim]layouts drawn: {done} of {total} tried[/dim]", highlight=False)


def draw(
    arg: str,
    width: float | None,
    height: float | None,
    outer: str,
    grid: bool,
    jobs: int | None,
    budget: float,
    command: str = "layout",
) -> tuple[Picture, str, float]:
    """The picture Z draws for a position string or a saved game, with its canonical form and clearance."""
    from ..picture import analyse_picture  # heavy: only when used
    from ..picture.layout import layout_map
    from ..picture.planar_map import realise

    if _is_file(arg):
        old = read_game(arg)
        analysis = analyse_picture(old)
        pmap, expected = analysis.map, analysis.position.canonical()
        width = width or old.width
        height = height or old.height
        meta = old.meta
        first = 0  # the present outside (analyse lists it first)
    else:
        position = read_position(arg, command)
        pmap, expected = realise(position), position.canonical()
        meta = {}
        first = None
    result = layout_map(
        pmap, expected, width or 800, height or 600, _outer(outer), jobs, polish=not grid,
        progress=_progress, budget=budget, first=first,
    )  # fmt: skip
    pic = result.picture
    hidden = pic.meta
    pic.meta = dict(meta) if meta else {}
    if hidden.get("game"):
        pic.meta.setdefault("game", {}).update(hidden["game"])
    return pic, expected, result.min_clearance


size_options = [
    click.option(
        "--width", type=click.FloatRange(min=50), help="Drawing area width in pixels [800, or the file's]."
    ),
    click.option(
        "--height", type=click.FloatRange(min=50), help="Drawing area height in pixels [600, or the file's]."
    ),
]


def _with(options: list[Callable[[F], F]]) -> Callable[[F], F]:
    def deco(f: F) -> F:
        for o in reversed(options):
            f = o(f)
        return f

    return deco


#: ``-o -``: the picture goes to stdout (SVG).
STDOUT = "-"


def numbered(output: str, item: Item) -> str:
    """The output for one input: as given for an argument; ``NAME-N.ext`` for line N of stdin."""
    if item.line is None or output == STDOUT:
        return output
    p = Path(output)
    return str(p.with_name(f"{p.stem}-{item.line}{p.suffix}"))


def _stopped(error: KeyboardInterrupt) -> None:
    """Ctrl-C or SIGTERM: the outputs already written stay, the one being drawn was not written."""
    how = "terminated" if isinstance(error, Terminated) else "interrupted"
    fail(f"{how}; the output being drawn was not written", code=interrupted_exit_code(error))


def _report(report: Reporter, item: Item, error: Exception) -> None:
    """One red line: ``line N: …`` for stdin, or the argument named once."""
    if item.line is not None:
        report.bad(item, error)
    else:
        report.bad(None, SproutsError(where_and_what(item.text, error)), json_for=item)


@click.command("layout")
@click.argument("source")
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False),
    help="The saved game to write (.json), or its picture (.svg, .png); numbered for stdin.",
)
@click.option(
    "--outer", default="auto", show_default=True, help="Region to put outside: auto, or its number."
)
@_with(size_options)
@click.option(
    "--grid", is_flag=True, help="Keep the straight-line grid drawing of the shift method, unpolished."
)
@click.option(
    "--adjust", "mode", flag_value="adjust", help="A: relax the curves of a saved game, spots kept."
)
@click.option("--rearrange", "mode", flag_value="rearrange", help="R: relax a saved game, spots moving too.")
@click.option("--jobs", type=click.IntRange(min=1), help="Worker processes for Z [the usable CPUs].")
@click.option(
    "--budget", type=click.FloatRange(min=0), default=LAYOUT_WORK, show_default=True,
    help="Polish work after which Z tries no further outside regions, in point-steps (one descent "
    "step over one point of the drawing; the same on any machine); 0: try them all.",
)  # fmt: skip
@click.option(
    "--json", "as_json", is_flag=True,
    help=(
        "One line per input: {input, position, canonical, min_clearance, seconds, output}"
        " (and line, for stdin)."
    ),
)  # fmt: skip
@stops_cleanly_on_sigterm
def layout_command(
    source: str,
    output: str,
    outer: str,
    width: float | None,
    height: float | None,
    grid: bool,
    mode: str | None,
    jobs: int | None,
    budget: float,
    as_json: bool,
) -> None:
    """Draw SOURCE (a position string or a saved game) afresh and save it as a game.

    Z: the position's map is triangulated and drawn on a grid by the shift method
    of de Fraysseix, Pach and Pollack, then polished.  With --adjust or --rearrange
    a saved game is relaxed instead (A keeps the spots, R moves everything).  The
    picture written always reads back as the same position.  A SOURCE of '-'
    reads one per line of stdin; line N is written to NAME-N.ext.

    \b
    Examples:
      sprouts layout '0.AB|AB' -o loop.json
      sprouts layout - -o game.json --json < positions.txt   # game-1.json, game-2.json, …
    """
    try:
        check_output(output, LAYOUT_SUFFIXES)  # before any work, and before the heavy imports
    except SproutsError as e:
        fail(str(e))
    report = Reporter(as_json)
    try:
        for item in read_items((source,)):
            t0 = time.perf_counter()
            target = numbered(output, item)
            try:
                expected, clearance = _layout_one(
                    item.text, target, outer, width, height, grid, mode, jobs, budget
                )
            except (SproutsError, click.BadParameter) as e:
                _report(report, item, e)
                continue
            seconds = time.perf_counter() - t0
            if as_json:
                obj = {
                    "input": item.text,
                    "position": item.text,
                    "canonical": expected,
                    "min_clearance": round(float(clearance), 3),
                    "seconds": round(seconds, 3),
                    "output": target,
                }
                print_json(obj if item.line is None else {**obj, "line": item.line})
            else:
                print_data(f"{expected}  →  {target}  (least clearance {clearance:.2f} px, {seconds:.1f} s)")
    except KeyboardInterrupt as e:  # Ctrl-C, or SIGTERM (procs.Terminated)
        _stopped(e)
    report.exit()


def _layout_one(
    source: str,
    output: str,
    outer: str,
    width: float | None,
    height: float | None,
    grid: bool,
    mode: str | None,
    jobs: int | None,
    budget: float,
) -> tuple[str, float]:
    """Lay out or relax one source and write it; its canonical form and least clearance."""
    if mode and not _is_file(source):
        raise SproutsError(f"--{mode} works on a saved game (a .json file)")
    if not _is_file(source):
        read_position(source, "layout")
    from ..picture import analyse_picture, save_game  # heavy: only when used

    if mode:
        from ..picture.relax import relax

        old = read_game(source)
        expected = analyse_picture(old).position.canonical()
        pic = relax(old, mode)
        clearance = analyse_picture(pic).min_clearance
    else:
        pic, expected, clearance = draw(source, width, height, outer, grid, jobs, budget)
    if output.lower().endswith(".json"):
        save_game(output, pic, position=expected)
    else:
        from ..render import render

        render(pic, output, title=expected)
    return expected, clearance


@click.command("render")
@click.argument("source")
@click.option(
    "-o", "--output", required=True, type=click.Path(dir_okay=False, allow_dash=True),
    help="out.svg or out.png (numbered for stdin), or - for SVG on stdout.",
)  # fmt: skip
@click.option("--numbers/--no-numbers", default=True, show_default=True, help="Number the spots (1-based).")
@click.option("--lives", is_flag=True, help="Write each live region's lives in it.")
@click.option("--title", help="Title above the picture [the position string].")
@click.option("--legend", is_flag=True, help="A legend of the spot colours (lives) under the picture.")
@click.option(
    "--scale", type=click.FloatRange(min=0.25, max=8), default=1.0, show_default=True,
    help="Thicker curves, larger spots and text (2 reads well on a projector).",
)  # fmt: skip
@click.option(
    "--dpi", type=click.FloatRange(min=10, max=1200), default=100.0, show_default=True,
    help="PNG resolution: 100 gives one pixel per unit of the drawing area (SVG is vector).",
)  # fmt: skip
@click.option("--outer", default="auto", show_default=True, help="For a position string: the region outside.")
@_with(size_options)
@click.option("--jobs", type=click.IntRange(min=1), help="Worker processes for Z [the usable CPUs].")
@click.option(
    "--json", "as_json", is_flag=True,
    help="One line per input: {input, position, canonical, output, seconds} (and line, for stdin).",
)  # fmt: skip
@stops_cleanly_on_sigterm
def render_command(
    source: str,
    output: str,
    numbers: bool,
    lives: bool,
    title: str | None,
    legend: bool,
    scale: float,
    dpi: float,
    outer: str,
    width: float | None,
    height: float | None,
    jobs: int | None,
    as_json: bool,
) -> None:
    """Draw SOURCE (a saved game, or a position string laid out first) to SVG or PNG.

    The format follows the output's extension; '-o -' writes one SVG to stdout.
    Curves are written as their exact cubic Bézier pieces; spots are coloured by
    their lives.  A SOURCE of '-' reads one per line of stdin; line N is drawn
    to NAME-N.ext.

    \b
    Examples:
      sprouts render game.json -o game.png --legend --scale 2
      sprouts render '0*5' -o - | rsvg-convert -o start.png
      sprouts render - -o move.svg --json < positions.txt   # move-1.svg, move-2.svg, …
    """
    to_stdout = output == STDOUT
    if to_stdout and as_json:
        fail("-o - writes the picture to stdout: --json cannot share it")
    if not to_stdout:
        try:
            check_output(output, (".svg", ".png"))  # before any work, and before the heavy imports
        except SproutsError as e:
            fail(str(e))
    options = {"numbers": numbers, "lives": lives, "legend": legend, "scale": scale, "dpi": dpi}
    report = Reporter(as_json)
    drawn = 0
    try:
        for item in read_items((source,)):
            t0 = time.perf_counter()
            target = numbered(output, item)
            try:
                if to_stdout and drawn:
                    raise SproutsError(
                        "-o - writes one picture; give one input, or -o NAME.svg for numbered files"
                    )
                canonical = _render_one(item.text, target, title, options, outer, width, height, jobs)
            except (SproutsError, click.BadParameter) as e:
                _report(report, item, e)
                continue
            drawn += 1
            if as_json:
                obj: dict[str, object] = {
                    "input": item.text,
                    "position": item.text,
                    "canonical": canonical,
                    "output": target,
                }
                obj["seconds"] = round(time.perf_counter() - t0, 3)
                print_json(obj if item.line is None else {**obj, "line": item.line})
            elif not to_stdout:
                print_data(f"{canonical}  →  {target}")
    except KeyboardInterrupt as e:  # Ctrl-C, or SIGTERM (procs.Terminated)
        _stopped(e)
    report.exit()


def _render_one(
    source: str,
    output: str,
    title: str | None,
    options: dict[str, Any],
    outer: str,
    width: float | None,
    height: float | None,
    jobs: int | None,
) -> str:
    """Draw one source to ``output`` (or SVG to stdout for ``-``); its canonical form."""
    if _is_file(source):
        pic = read_game(source)
        from ..picture import analyse_picture  # heavy: only when used

        canonical = analyse_picture(pic).position.canonical()
    else:
        read_position(source, "render")
        pic, canonical, _ = draw(source, width, height, outer, False, jobs, 5.0, command="render")
    from ..render import render, render_bytes

    caption = title if title is not None else canonical
    if output == STDOUT:
        data = render_bytes(pic, "svg", title=caption, **options)
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        render(pic, output, title=caption, **options)
    return canonical


__all__ = ["PictureError", "layout_command", "render_command"]
