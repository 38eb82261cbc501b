"""``sprouts moves`` and ``sprouts move``: the legal moves in words, and one move drawn into a saved game.

``moves`` lists the distinct legal moves of a position (or of a saved game, whose
spots keep their numbers) in the words of the log and of ``play``, each with the
canonical position it gives.  ``move`` draws one move into the picture of a saved
game (Alfeld §3–4: the router, and making room when there is none).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from ..errors import SproutsError
from .common import Reporter, fail, out, print_data, print_json, read_items
from .positions import position_argument

if TYPE_CHECKING:  # pragma: no cover
    from ..engine import Position
    from ..engine.moves import Move


@click.command("moves")
@click.argument("positions", nargs=-1, required=True)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help='Print {"input", "position", "moves": [{"words", "position"}]} per input.',
)
def moves_command(positions: tuple[str, ...], as_json: bool) -> None:
    """List the distinct legal moves of each POSITION in words, with the position each gives.

    POSITION is a position string (spots numbered in order of appearance, from 1) or
    a saved game ('game.json', its spots numbered as drawn).  '-' reads one input
    per line of stdin.  Moves that give the same position are listed once.
    """
    from ..engine.naming import distinct_named_moves

    report = Reporter(as_json)
    for item in read_items(positions):
        try:
            p = position_argument(item.text, "moves")
            named = distinct_named_moves(p)
            if as_json:
                print_json(
                    {
                        "input": item.text,
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


def _words_to_move(position: Position, words: str) -> Move:
    """The move the words name (NotationError, IllegalMoveError, or ambiguous words refused).

    Where every move the words fit gives the same position, any of them is the move
    (as Alfeld §5.9 lets the drawing choose among interchangeable boundaries), so the
    words ``sprouts moves`` prints are always accepted; where they give different
    positions, ``moves`` adds ``giving`` and the position.
    """
    from ..engine.naming import move_from_words

    return move_from_words(position, words)


@click.command("move")
@click.argument("game", type=click.Path(dir_okay=False))
@click.argument("words")
@click.option(
    "-o", "--output", required=True, type=click.Path(dir_okay=False), help="The saved game to write."
)
@click.option(
    "--ladder", default="M,A,R,Z,.", show_default=True,
    help="Ways of making room, cheapest first: M (slide spots, push seeds), A, R, Z, . (smaller spots); "
    "'none' for the router alone.",
)  # fmt: skip
@click.option(
    "--json", "as_json", is_flag=True,
    help='Print {"words", "position", "drawn_by", "min_clearance", "smaller", "seconds"}.',
)  # fmt: skip
@click.option("--jobs", type=click.IntRange(min=1), help="Worker processes for Z's layouts [usable CPUs].")
def move_command(game: str, words: str, output: str, ladder: str, as_json: bool, jobs: int | None) -> None:
    """Draw the move WORDS into the picture of the saved game GAME and save it as OUTPUT.

    WORDS are those of the log and of 'play': '3 → 5', '3 → 3 enclosing 4, 6-7'
    ('->' works too).  The new curve is routed through the picture as it stands
    (Alfeld §3); when there is no room, the picture is changed, never the
    position, by the first rung of the ladder that makes room.  The saved picture
    reads back as the position after the move with the same spot numbers.  A move
    that cannot be drawn is refused with the reason, and nothing is written.
    'smaller' lists the spots the picture written draws smaller than their size
    (rung '.': there was no room for them); they grow back in a later A, R or Z.
    """
    import time

    from ..cpus import usable_cpus
    from ..errors import NoRoom, PictureError
    from ..picture import analyse_picture, load_game, save_game
    from ..picture.room import draw, parse_ladder

    t0 = time.perf_counter()
    try:
        rungs = parse_ladder(ladder)
    except ValueError as e:
        fail(f"--ladder: {e}")
        return
    try:
        pic = load_game(game)
        analysis = analyse_picture(pic)
        before = analysis.position
        move = _words_to_move(before, words)
        from ..engine.naming import move_words

        said = move_words(before, move)
        meta_game = pic.meta.get("game", {}) if isinstance(pic.meta, dict) else {}
        mover = int(meta_game.get("player", 0)) if str(meta_game.get("player", 0)).isdigit() else 0
        try:
            result = draw(pic, move, rungs, analysis, player=mover, layout_jobs=jobs or usable_cpus())
        except NoRoom as e:
            fail(f"{game}: {said} cannot be drawn: {e}")
            return
        new = result.picture
        new.meta = pic.meta
        g = new.meta.setdefault("game", {})
        g["player"] = 1 - mover if mover in (0, 1) else mover
        g["moves"] = int(g.get("moves", 0) or 0) + 1
        moves_so_far = list(g.get("move_list", []) or [])
        save_game(output, new, result.analysis.position.canonical(), [*moves_so_far, said])
    except (SproutsError, PictureError) as e:
        fail(f"{game}: {e}")
        return
    seconds = time.perf_counter() - t0
    if as_json:
        print_json(
            {
                "words": said,
                "position": result.analysis.position.canonical(),
                "drawn_by": result.drawn_by,
                "min_clearance": round(float(result.clearance), 3),
                "smaller": [s + 1 for s in result.smaller],
                "seconds": round(seconds, 3),
            }
        )
    else:
        small = result.smaller
        note = f", spot{'s' if len(small) > 1 else ''} {', '.join(str(s + 1) for s in small)} drawn smaller"
        print_data(
            f"{said}: {result.analysis.position.canonical()}  →  {output}  "
            f"(drawn by {result.drawn_by}, least clearance {result.clearance:.1f} px"
            f"{note if small else ''}, {seconds:.1f} s)"
        )


__all__ = ["fail", "move_command", "moves_command", "out"]
