"""``sprouts canonical`` and ``sprouts children``: names and children of positions."""

from __future__ import annotations

from functools import reduce
from operator import xor

import click

from ..engine import Position
from ..engine.notation import DIALECTS
from ..errors import SproutsError
from .common import Reporter, out, print_data, print_json, read_items, read_position

dialect_option = click.option(
    "--dialect",
    type=click.Choice(DIALECTS),
    default="glop2",
    show_default=True,
    help="Write positions in the SPOTS/GLOP 2 dialect or the older GLOP 1 one.",
)


def position_argument(text: str, command: str = "canonical") -> Position:
    """A position string, or a saved game when the argument names a ``.json`` file.

    The picture layer (scipy, matplotlib) is imported only when a file is given, so
    that plain position work starts fast.  Inputs beyond ``command``'s limits are refused.
    """
    return read_position(text, command)


def _in_dialect(form: str, dialect: str) -> str:
    if dialect == "glop2":
        return form
    return Position.from_string(form).notation(dialect=dialect)


@click.command("canonical")
@click.argument("positions", nargs=-1, required=True)
@click.option("--reduced", is_flag=True, help="Print the reduced form (the key of solved tables).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per input.")
@dialect_option
def canonical_command(positions: tuple[str, ...], reduced: bool, as_json: bool, dialect: str) -> None:
    """Print the exact canonical form of each POSITION, one line per input.

    A POSITION of '-' reads one position per line from stdin.  Two inputs get the
    same form exactly when they are the same position (up to renaming, rotating,
    reordering and mirroring).
    """
    report = Reporter(as_json)
    for item in read_items(positions):
        try:
            p = position_argument(item.text)  # a position string, or a saved game (.json)
            exact = p.canonical()
            red = p.reduced()
            if as_json:
                print_json(
                    {
                        "input": item.text,
                        "canonical": _in_dialect(exact, dialect),
                        "reduced": _in_dialect(red, dialect),
                        "lives": p.total_lives,
                        "lands": [_in_dialect(land.canonical(), dialect) for land in p.lands()],
                        "nim_heap": reduce(xor, p.heaps, 0),
                    }
                )
            else:
                print_data(_in_dialect(red if reduced else exact, dialect))
        except SproutsError as e:
            report.bad(item, e)
    report.exit()


@click.command("children")
@click.argument("position")
@click.option("--json", "as_json", is_flag=True, help="Print {input, position, count, children} per input.")
@dialect_option
def children_command(position: str, as_json: bool, dialect: str) -> None:
    """List the distinct children of POSITION (canonical, sorted) and their count.

    On a terminal they are shown as a numbered table; into a pipe or a file, one
    child per line and nothing else (so '| wc -l' counts them).
    """
    report = Reporter(as_json)
    items = list(read_items((position,)))
    for item in items:
        try:
            p = read_position(item.text, "children")
            kids = sorted(_in_dialect(c, dialect) for c in p.children())
            if as_json:
                print_json(
                    {
                        "input": item.text,
                        "position": _in_dialect(p.canonical(), dialect),
                        "count": len(kids),
                        "children": kids,
                    }
                )
            elif not out.is_terminal:  # a pipe or a file: one child per line, nothing else
                for k in kids:
                    print_data(k)
            else:
                from rich.table import Table  # only a terminal gets a table

                table = Table(title=f"children of {p.canonical()}", show_lines=False)
                table.add_column("#", justify="right")
                table.add_column("position")
                for i, k in enumerate(kids, 1):
                    table.add_row(str(i), k)
                out.print(table, markup=False)
                out.print(f"{len(kids)} children", markup=False)
        except SproutsError as e:
            report.bad(item, e)
    report.exit()
