"""``sprouts moves`` and ``sprouts move``: the legal moves in words, and one move drawn into a saved game.

``moves`` lists the distinct legal moves of a position (or of a saved game, whose
spots keep their numbers) in the words of the log and of ``play``, each with the
canonical position it gives.  ``move`` draws one move into the picture of a saved
game (Alfeld §3–4: the router, and making room when there is none).
"""

from __future__ import annotations

import click

from ..errors import SproutsError
from .common import Reporter, fail, out, print_data, print_json, read_items
from .positions import position_argument


@click.command("moves")
@click.argument("positions", nargs=-1, required=True)
@click.option(
    "--json", "as_json", is_flag=True, help='Print {"position", "moves": [{"words", "position"}]} per input.'
)
def moves_command(positions: tuple[str, ...], as_json: bool) -> None:
    """List the distinct legal moves of each POSITION in words, with the position each gives.

    POSITION is a position string (spots numbered in order of appearance, from 1) or
    a saved game (``game.json``, its spots numbered as drawn).  ``-`` reads one input
    per line of stdin.  Moves that give the same position are listed once.
    """
    from ..engine.naming import distinct_named_moves

    report = Reporter()
    for item in read_items(positions):
        try:
            p = position_argument(item.text)
            named = distinct_named_moves(p)
            if as_json:
                print_json(
                    {
                        "position": p.canonical(),
                        "moves": [{"words": nm.words, "position": nm.canonical} for nm in named],
                    }
                )
                continue
            print_data(f"{p.canonical()}: {len(named)} distinct move(s)")
            width = max((len(nm.words) for nm in named), default=0)
            for nm in named:
                print_data(f"  {nm.words:<{width}}  →  {nm.canonical}")
        except SproutsError as e:
            report.bad(item, e)
    report.exit()


__all__ = ["fail", "moves_command", "out"]
