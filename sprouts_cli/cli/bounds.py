"""``sprouts bounds``: how many moves are left (seed 002, §5.5; seed 004).

For each position: the lives and spots, the upper bound M and the lower bound m, the
exact longest and shortest games when they are proved within the time given (else
"not known", and the bounds stand), and the same for each independent part.  A saved
game (``game.json``) is read through the picture layer when it is installed; its
drawing also gets Euler's relation (points + regions = lines + parts).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import click
from rich.table import Table

from ..engine import Position
from ..engine.bounds import (
    EulerCounts,
    LengthOracle,
    euler_counts,
    land_facts,
    lands_of,
    lower_bound,
    upper_bound,
)
from ..errors import SproutsError
from .common import Item, Reporter, out, print_json, read_items


@dataclass
class Loaded:
    """A position to bound, and where it came from."""

    position: Position
    stumps_known: bool  # True for a game's position (it keeps its stumps and dead regions)
    euler: EulerCounts | None = None  # counted on the drawing of a saved game
    euler_position: EulerCounts | None = None  # the same counts read off its position


def load_item(item: Item) -> Loaded:
    """A position string, or a saved game when the argument is a ``.json`` file."""
    path = Path(item.text)
    if item.text.lower().endswith(".json") and path.is_file():
        return load_saved_game(path)
    return Loaded(Position.from_string(item.text), stumps_known=False)


def load_saved_game(path: Path) -> Loaded:
    """Read a saved game through ``sprouts_cli.picture.gamefile`` (imported only when needed)."""
    try:
        from ..picture import gamefile  # type: ignore[attr-defined]
        from ..picture.analyse import analyse_picture
    except ImportError as e:
        raise SproutsError(
            f"{path}: reading saved games needs the picture layer (sprouts_cli.picture.gamefile), "
            f"which is not available ({e})"
        ) from e
    picture = _load_picture(gamefile, path)
    analysis = analyse_picture(picture)
    position = analysis.position
    drawn = EulerCounts(
        points=picture.points,
        regions=analysis.bounded_faces,
        lines=picture.lines,
        parts=len(set(analysis.map.components())),
    )
    return Loaded(position, stumps_known=True, euler=drawn, euler_position=euler_counts(position))


def _load_picture(gamefile, path: Path):
    """The picture of a saved game, through whichever reader ``gamefile`` provides."""
    for name in ("load_game", "read_game", "load"):
        reader = getattr(gamefile, name, None)
        if callable(reader):
            game = reader(path)
            return getattr(game, "picture", game)
    raise SproutsError(f"{path}: sprouts_cli.picture.gamefile has no reader of saved games")


def part_report(land: Position) -> dict:
    """Bounds of one land (its canonical form first); the lengths are filled in later."""
    [only] = lands_of(land)
    facts = land_facts(only.position.regions, only.position.lives)
    return {
        "position": only.key,
        "lives": facts.lives,
        "spots": facts.spots,
        "upper": facts.upper,
        "lower": lower_bound(only.position),
        "longest": None,
        "shortest": None,
    }


def bounds_report(oracle: LengthOracle, loaded: Loaded, seconds: float | None) -> dict:
    """Everything ``sprouts bounds`` says about one position, as a JSON-ready dict.

    ``seconds`` is the time allowed for the longest games of the parts and, separately,
    for their shortest (None: no limit).  Parts are searched smallest first, so that
    when time runs out the parts already proved keep their answers; the whole position
    has a length only when every part has one.
    """
    p = loaded.position
    parts = sorted((part_report(land.position) for land in lands_of(p)), key=lambda r: r["upper"])
    for kind, method in (("longest", oracle.longest), ("shortest", oracle.shortest)):
        deadline = None if seconds is None else time.monotonic() + seconds
        for part in parts:
            part[kind] = method(Position.from_string(part["position"]), deadline)
    known_long = all(part["longest"] is not None for part in parts)
    known_short = all(part["shortest"] is not None for part in parts)
    report = {
        "position": p.canonical(),
        "lives": p.total_lives,
        "spots": p.spot_count,
        "upper": upper_bound(p),
        "lower": lower_bound(p, stumps_known=loaded.stumps_known),
        "longest": sum(part["longest"] for part in parts) + sum(p.heaps) if known_long else None,
        "shortest": sum(part["shortest"] for part in parts) + len(p.heaps) if known_short else None,
        "parts": parts,
        "heaps": list(p.heaps),
    }
    if loaded.euler is not None:
        e = loaded.euler
        report["euler"] = {
            "points": e.points,
            "regions": e.regions,
            "lines": e.lines,
            "parts": e.parts,
            "holds": e.holds,
        }
    return report


def _show(value: int | None, bound: int, sign: str) -> str:
    return str(value) if value is not None else f"? ({sign} {bound})"


def print_report(report: dict, seconds: float | None, line: list[str] | None, kind: str) -> None:
    """The report for people: a table of the position and its parts."""
    table = Table(title=report["position"], title_justify="left", show_edge=False)
    for name in ("", "lives", "spots", "lower m", "shortest", "longest", "upper M"):
        table.add_column(name, justify="left" if not name else "right")
    rows = [("whole", report)]
    if len(report["parts"]) > 1 or report["heaps"]:
        rows += [(f"part {i}: {part['position']}", part) for i, part in enumerate(report["parts"], 1)]
        rows += [
            (
                f"nim heap *{h}",
                {"lives": "", "spots": "", "lower": 1, "upper": h, "longest": h, "shortest": 1},
            )
            for h in report["heaps"]
        ]
    for label, r in rows:
        table.add_row(
            label,
            str(r["lives"]),
            str(r["spots"]),
            str(r["lower"]),
            _show(r["shortest"], r["lower"], "≥"),
            _show(r["longest"], r["upper"], "≤"),
            str(r["upper"]),
        )
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
    if line is not None:
        out.print(f"a {kind} game ({len(line)} moves):", markup=False)
        for i, form in enumerate(line, 1):
            out.print(f"  {i:>3}. {form}", markup=False)


def game_line(oracle: LengthOracle, p: Position, kind: str, deadline: float | None) -> list[str] | None:
    """The positions along one longest or shortest game (canonical forms), or None."""
    line = oracle.line(p, kind, deadline)
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
@click.option("--json", "as_json", is_flag=True, help="One JSON object per input.")
def bounds_command(
    positions: tuple[str, ...], seconds: float, no_limit: bool, show: str | None, as_json: bool
) -> None:
    """Bounds on the moves left in each POSITION, and its exact longest and shortest games.

    A POSITION is a position string, ``-`` (one per line of stdin), or a saved game
    (``game.json``).  The longest game of a sum of parts is the sum of the parts'
    longest games, and the same for the shortest; each part is searched on its own
    and what is proved is kept for the next inputs.  A length not proved within the
    time given is shown as ``?`` (``null`` in JSON): the bound stands.
    """
    report_bad = Reporter()
    oracle = LengthOracle()
    limit = None if no_limit else seconds
    for item in read_items(positions):
        try:
            loaded = load_item(item)
            report = bounds_report(oracle, loaded, limit)
            line = None
            if show is not None:
                deadline = None if limit is None else time.monotonic() + limit
                line = game_line(oracle, loaded.position, show, deadline)
            if as_json:
                if show is not None:
                    report[f"{show}_game"] = line
                print_json(report)
            else:
                print_report(report, limit, line, show or "")
        except SproutsError as e:
            report_bad.bad(item, e)
    report_bad.exit()
