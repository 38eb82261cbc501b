"""``sprouts bounds``: how many moves are left (Alfeld §5.5), and Euler's relation for a saved game.

For each position: the lives and spots, the upper bound M and the lower bound m, the
exact longest and shortest games when they are proved within the time given (else
"not known", and the bounds stand), and the same for each independent part.  A saved
game (``game.json``) is read through the picture layer when it is installed; its
drawing also gets Euler's relation (points + regions = lines + parts).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import click

from ..engine import Position
from ..engine.position import euler_counts
from ..errors import GameFileError, PictureError, SproutsError
from ..limits import check_limits
from ..solve.bounds_report import Loaded, bounds_report
from ..solve.lengths import LengthOracle
from .common import Item, Reporter, names_a_file, out, print_json, read_items, read_position


def load_item(item: Item, realise: bool = True) -> Loaded:
    """A position string, or a saved game when the argument is a ``.json`` file."""
    if names_a_file(item.text):
        read_position(item.text, "bounds")  # a missing or oversized file is refused before any work
        return load_saved_game(Path(item.text))
    p = Position.from_string(item.text)  # a string no drawing has is refused by the engine
    check_limits(p, "bounds")
    drawing = None
    if realise:
        from ..picture.planar_map import realised  # pure Python: none of the picture's libraries

        drawing = realised(p)
    if drawing is None:
        return Loaded(p, stumps_known=False, drawing=p)
    return Loaded(p, stumps_known=True, drawing=drawing)


def load_saved_game(path: Path) -> Loaded:
    """Read a saved game through the picture layer (imported only when needed).

    The drawing is analysed once: its position (which keeps its stumps and dead
    regions, so the sharper lower bound applies) and Euler's four counts, taken from
    the drawing itself: spots, curves, bounded faces and connected pieces.
    """
    try:
        from ..picture.analyse import analyse_picture, drawing_counts
        from ..picture.gamefile import load_game
    except ImportError as e:  # pragma: no cover - the picture layer is part of the package
        raise SproutsError(f"{path}: reading saved games needs the picture layer ({e})") from e
    picture = load_game(path, check=False)
    try:
        analysis = analyse_picture(picture)
    except PictureError as e:
        raise GameFileError(f"{path}: {e}") from None
    position = analysis.position
    drawn = drawing_counts(picture, analysis)
    return Loaded(
        position, stumps_known=True, drawing=position, euler=drawn, euler_position=euler_counts(position)
    )


def _show(value: int | None, bound: int, sign: str) -> str:
    return str(value) if value is not None else f"? ({sign} {bound})"


def print_report(report: dict[str, Any], seconds: float | None, line: list[str] | None, kind: str) -> None:
    """The report for people: a table of the position and its parts."""
    from rich.table import Table  # imported only where a table is printed

    table = Table(title=report["position"], title_justify="left", show_edge=False)
    for name in ("", "lives", "spots", "lower m", "shortest", "longest", "upper M"):
        table.add_column(name, justify="left" if not name else "right")
    several = len(report["parts"]) > 1 or report["heaps"]
    if several:
        table.add_column("part", justify="left", overflow="fold")
    rows = [("whole", report, "")]
    if several:
        rows += [(f"part {i}", part, part["position"]) for i, part in enumerate(report["parts"], 1)]
        heap = {"lives": "", "spots": ""}
        rows += [
            (f"heap {i}", {**heap, "lower": 1, "upper": h, "longest": h, "shortest": 1}, f"*{h}")
            for i, h in enumerate(report["heaps"], 1)
        ]
    for label, r, form in rows:
        cells = [
            label,
            str(r["lives"]),
            str(r["spots"]),
            str(r["lower"]),
            _show(r["shortest"], r["lower"], "≥"),
            _show(r["longest"], r["upper"], "≤"),
            str(r["upper"]),
        ]
        table.add_row(*cells, *([form] if several else []))
    out.print(table, markup=False)
    if report["longest"] is None or report["shortest"] is None:
        budget = f"{seconds:g} s" if seconds is not None else "the time given"
        out.print(f"? = not proved in {budget}; the bound stands (try --time)", markup=False)
    if "euler" in report:
        e = report["euler"]
        mark = "holds" if e["holds"] else "DOES NOT HOLD"
        out.print(
            f"Euler: points {e['points']} + regions {e['regions']} = {e['points'] + e['regions']}, "
            f"lines {e['lines']} + parts {e['parts']} = {e['lines'] + e['parts']} ({mark})",
            markup=False,
        )
        if "position_counts" in e:
            out.print(f"  (read off the position instead: {e['position_counts']})", markup=False)
    if kind:
        if line is None:
            out.print(f"no {kind} game found in the time given", markup=False)
        else:
            out.print(f"a {kind} game ({len(line)} moves), the position after each move:", markup=False)
            for i, form in enumerate(line, 1):
                out.print(f"  {i:>3}. {form}", markup=False)


def game_line(
    oracle: LengthOracle, p: Position, kind: str, deadline: float | None, stumps_known: bool = False
) -> list[str] | None:
    """The positions along one longest or shortest game (canonical forms), or None."""
    line = oracle.line(p, kind, deadline, stumps_known)
    return None if line is None else [q.canonical() for q in line]


@click.command("bounds")
@click.argument("positions", nargs=-1, required=True)
@click.option(
    "--time",
    "seconds",
    type=click.FloatRange(min=0),
    default=5.0,
    show_default=True,
    help="Seconds allowed for the longest game, and again for the shortest, per position "
    "(0: no search, bounds only).",
)
@click.option("--no-limit", is_flag=True, help="Search the exact lengths without a time limit.")
@click.option(
    "--show",
    type=click.Choice(["longest", "shortest"]),
    default=None,
    help="Also print the positions along one longest (or shortest) game.",
)
@click.option(
    "--no-realise",
    is_flag=True,
    help="Bound a position string as written, without drawing it first (a weaker lower bound).",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per input.")
def bounds_command(
    positions: tuple[str, ...],
    seconds: float,
    no_limit: bool,
    show: str | None,
    no_realise: bool,
    as_json: bool,
) -> None:
    """Bounds on the moves left in each POSITION, and its exact longest and shortest games.

    A POSITION is a position string, '-' (one per line of stdin), or a saved game
    ('game.json').  The longest game of a sum of parts is the sum of the parts'
    longest games, and the same for the shortest; each part is searched on its own
    and what is proved is kept for the next inputs.  A length not proved within the
    time given is shown as '?' ('null' in JSON): the bound stands.
    """
    report_bad = Reporter(as_json)
    oracle = LengthOracle()
    limit = None if no_limit else seconds
    for item in read_items(positions):
        try:
            loaded = load_item(item, realise=not no_realise)
            report = bounds_report(oracle, loaded, limit)
            line = None
            if show is not None:
                deadline = None if limit is None else time.monotonic() + limit
                line = game_line(oracle, loaded.drawing, show, deadline, loaded.stumps_known)
            if as_json:
                if show is not None:
                    report[f"{show}_game"] = line
                print_json({"input": item.text, **report})
            else:
                print_report(report, limit, line, show or "")
        except SproutsError as e:
            # a saved game's errors already name the file
            report_bad.bad(item, e)
    report_bad.exit()
