"""``sprouts dots``: Dots-and-Boxes positions solved, games played and replayed, boards drawn.

A thin layer over ``sprouts_cli.dots``: it parses, calls and prints (rich for
people, ``--json`` lines for pipelines); bad input is one red line and exit code 2.
"""

from __future__ import annotations

import contextlib
import random
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..errors import SproutsError
from .common import Reporter, err, fail, out, print_data, print_json, read_items

if TYPE_CHECKING:  # pragma: no cover
    from ..dots.board import Board, DotsPosition
    from ..dots.game import DotsGame
    from ..dots.solver import Solver

RULE_OPTION = click.option(
    "--must-complete", is_flag=True, help="The must-complete form: a player who can complete a box must."
)


@click.group("dots")
def dots_group() -> None:
    """Dots-and-Boxes: solve positions, play, replay logs, draw boards.

    A position is 'RxC' (R rows and C columns of boxes, no line drawn) or
    'RxC:LINES', one character per line (1 drawn, 0 not) in OpenSpiel's order:
    the horizontal lines row by row, then the vertical ones.  A move is a line named
    by its two dots, 'a1-b1' (columns of dots a, b, … from the left, rows 1, 2, …
    from the top), or by its index.
    """


def _rule(must_complete: bool) -> str:
    return "must-complete" if must_complete else "free"


@dots_group.command("solve")
@click.argument("positions", nargs=-1, required=True)
@RULE_OPTION
@click.option("--moves", is_flag=True, help="Also list every move that achieves the value.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per position.")
@click.option(
    "--time-limit", type=click.FloatRange(0, min_open=True), help="Give up a position after S seconds."
)
@click.option(
    "--table-bits",
    type=click.IntRange(4, 32),
    metavar="N",
    help="Transposition table of 2**N entries of 16 bytes (default: from the board and the free "
    "memory, at most a quarter of it: 4x4 gets 2**28, 4 GB, from 16 GB free).",
)
@click.option("--quiet", "-q", is_flag=True, help="No status line on stderr while a position is solved.")
def solve_command(
    positions: tuple[str, ...],
    must_complete: bool,
    moves: bool,
    as_json: bool,
    time_limit: float | None,
    table_bits: int | None,
    quiet: bool,
) -> None:
    """The value of each position: the net number of the boxes not yet taken that the
    player to move gets with best play.  '-' reads one position per line of stdin.

    On a terminal, a search that runs past a few seconds shows a status line on
    stderr (nodes, the bounds proved, the time); --quiet leaves it out."""
    from ..dots import DotsPosition, OutOfTime, Solver

    progress = SolveProgress(err, enabled=err.is_terminal and not quiet)
    reporter = Reporter(as_json)
    solvers: dict[Board, Solver] = {}
    unfinished = 0
    for item in read_items(positions):
        try:
            position = DotsPosition.parse(item.text)
        except SproutsError as e:
            reporter.bad(item, e)
            continue
        solver = solvers.get(position.board)
        if solver is None:
            try:
                solver = solvers[position.board] = Solver(position.board, must_complete, table_bits)
            except SproutsError as e:  # a table that does not fit in memory
                fail(str(e))
        started = time.perf_counter()
        try:
            with progress.watching(solver, position):
                result = solver.solve(position, moves=moves, time_limit=time_limit)
        except KeyboardInterrupt as e:  # Ctrl-C or SIGTERM (procs.Terminated): say what was proved
            _interrupted(e, position, solver.bounds)
        except OutOfTime as e:
            unfinished += 1
            lo, hi = e.bounds or (-position.boxes_left, position.boxes_left)
            if as_json:
                print_json(
                    {
                        "input": item.text,
                        "position": str(position),
                        "rule": _rule(must_complete),
                        "value": None,
                        "bounds": [lo, hi],
                        "best_moves": None,
                        "seconds": round(time.perf_counter() - started, 3),
                        "nodes": e.nodes,
                        "table_bits": solver.table_bits,
                    }
                )
            else:
                err.print(
                    f"{position}: out of time after {e.seconds:.1f} s; the value is in [{lo}, {hi}]",
                    markup=False,
                )
            continue
        names = (
            None if result.best_moves is None else [position.board.line_name(m) for m in result.best_moves]
        )
        if as_json:
            print_json(
                {
                    "input": item.text,
                    "position": str(position),
                    "rule": _rule(must_complete),
                    "value": result.value,
                    "best_moves": names,
                    "seconds": round(result.seconds, 3),
                    "nodes": result.nodes,
                    "table_bits": solver.table_bits,
                }
            )
        else:
            line = (
                f"{position}: {result.value:+d} ({_rule(must_complete)}, {position.boxes_left} boxes left), "
                f"{result.seconds:.2f} s, {result.nodes} nodes"
            )
            print_data(line)
            if names is not None:
                pairs = ", ".join(f"{n} ({m})" for n, m in zip(names, result.best_moves or [], strict=True))
                print_data(f"  best moves: {pairs}")
    reporter.exit()
    if unfinished:
        raise SystemExit(1)


class SolveProgress:
    """A status line on stderr while one position is solved, shown once the search has run
    ``DELAY`` seconds (a quick answer prints nothing more): nodes searched, the bounds
    proved so far and the time, read from the solver as its kernel runs."""

    #: seconds of a search before its status line shows
    DELAY = 3.0
    #: seconds between two updates of the line
    EVERY = 0.25

    def __init__(self, console: Any, enabled: bool) -> None:
        self.console = console
        self.enabled = enabled

    @contextlib.contextmanager
    def watching(self, solver: Solver, position: DotsPosition) -> Iterator[None]:
        if not self.enabled:
            yield
            return
        done = threading.Event()
        started = time.monotonic()
        nodes0 = int(solver.stats[0])
        box: dict[str, Any] = {}

        def line() -> str:
            lo, hi = solver.bounds or (-position.boxes_left, position.boxes_left)
            nodes = int(solver.stats[0]) - nodes0
            return (
                f"solving {position}: {nodes:,} nodes, the value is in [{lo}, {hi}], "
                f"{time.monotonic() - started:.0f} s"
            )

        def watch() -> None:
            if done.wait(self.DELAY):
                return
            status = box["status"] = self.console.status(line(), spinner="dots")
            status.start()
            while not done.wait(self.EVERY):
                status.update(line())

        watcher = threading.Thread(target=watch, name="dots-progress", daemon=True)
        watcher.start()
        try:
            yield
        finally:
            done.set()
            watcher.join()
            if "status" in box:
                box["status"].stop()  # transient: its line is erased before the result is printed


def _interrupted(error: KeyboardInterrupt, position: DotsPosition, bounds: tuple[int, int] | None) -> None:
    """The one line of a solve stopped by a signal: the bounds proved so far, then exit 130 or 143."""
    from ..procs import Terminated, interrupted_exit_code

    how = "terminated" if isinstance(error, Terminated) else "interrupted"
    lo, hi = bounds or (-position.boxes_left, position.boxes_left)
    err.print(f"{how}: {position}: the value is in [{lo}, {hi}] so far", markup=False, style="red")
    raise SystemExit(interrupted_exit_code(error)) from None


# ------------------------------------------------------------------ play


@dots_group.command("play")
@click.argument("start")
@click.option(
    "--first",
    type=click.Choice(("human", "random", "greedy", "perfect")),
    default="human",
    show_default=True,
    help="Player 1 (A).",
)
@click.option(
    "--second",
    type=click.Choice(("human", "random", "greedy", "perfect")),
    default="perfect",
    show_default=True,
    help="Player 2 (B).",
)
@RULE_OPTION
@click.option(
    "--time",
    "seconds",
    type=click.FloatRange(0, min_open=True),
    default=30.0,
    show_default=True,
    help="Seconds the perfect player may solve before it falls back on greedy.",
)
@click.option("--seed", type=int, help="Seed of the random choices, for a reproducible game.")
@click.option("--log", "log_path", type=click.Path(dir_okay=False), help="Append the game to this log.")
@click.option("--svg", "svg_dir", type=click.Path(file_okay=False), help="Write a picture per move here.")
@click.option("--quiet", "-q", is_flag=True, help="Computer against computer: print only the result.")
def play_command(
    start: str,
    first: str,
    second: str,
    must_complete: bool,
    seconds: float,
    seed: int | None,
    log_path: str | None,
    svg_dir: str | None,
    quiet: bool,
) -> None:
    """Play Dots-and-Boxes in the terminal from START ('3x3', or a position).

    A person names a line by its dots ('a1-b1') or its index; 'moves' lists the
    legal lines, 'quit' (or the end of the input) leaves.  Completing a box gives
    another move.
    """
    from ..dots import DotsGame, DotsPosition
    from ..dots.log import DotsLogWriter
    from ..dots.players import make_player

    if quiet and "human" in (first, second):
        fail("--quiet is for computer against computer; a person needs to see the game")
    try:
        position = DotsPosition.parse(start)
        game = DotsGame(position, must_complete)
        log = DotsLogWriter(log_path) if log_path else None
    except (SproutsError, OSError) as e:
        fail(str(e))
    rng = random.Random(seed)
    kinds = {1: first, 2: second}
    players = {p: None if kinds[p] == "human" else make_player(kinds[p], seconds) for p in (1, 2)}
    if svg_dir and not Path(svg_dir).is_dir():
        fail(f"{svg_dir}: no such directory (make it first)")
    reason = "no line left"
    try:
        if log:
            log.start_game(game, first, second, seed)
        _picture(game, svg_dir)
        while not game.finished:
            player = game.to_move
            if not quiet:
                out.print(game.text(), markup=False)
                out.print(
                    f"score A {game.score[1]} - B {game.score[2]}; player {player} "
                    f"({'A' if player == 1 else 'B'}, {kinds[player]}) to move",
                    markup=False,
                )
            engine = players[player]
            if engine is None:
                line = _ask(game)
                if line is None:
                    reason = f"quit by player {player}"
                    break
                by = "human"
            else:
                choice = engine.choose(game, rng)
                line, by = choice.line, choice.by
                if log and (choice.value is not None or choice.note):
                    log.record(
                        "think",
                        len(game.moves) + 1,
                        [
                            ("player", player),
                            ("by", by),
                            ("value", choice.value),
                            ("note", choice.note or None),
                        ],
                    )
                if not quiet:
                    out.print(f"player {player} ({by}) draws {game.board.line_name(line)}", markup=False)
            boxes = game.play(line)
            if log:
                log.move(game, player, by, line, boxes)
            _picture(game, svg_dir)
    except SproutsError as e:
        fail(str(e))
    except KeyboardInterrupt as e:  # Ctrl-C, or SIGTERM (procs.Terminated)
        from ..procs import Terminated, interrupted_exit_code

        err.print("terminated" if isinstance(e, Terminated) else "interrupted", style="red")
        raise SystemExit(interrupted_exit_code(e)) from None
    finally:
        if log_path and "log" in locals() and log is not None:
            if game.finished or reason.startswith("quit"):
                log.end(game, reason)
            log.close()
    winner = game.winner()
    if not quiet and game.finished:
        out.print(game.text(), markup=False)
    result = f"player {winner} wins" if winner else ("a tie" if game.finished else "game left unfinished")
    print_data(f"{result}, {game.score[1]}-{game.score[2]} after {len(game.moves)} moves")


def _ask(game: DotsGame) -> int | None:
    """A line from the person at the terminal (None: quit)."""
    from ..errors import DotsMoveError

    stream = sys.stdin
    while True:
        click.echo("your move (a line like a1-b1, its index, 'moves', 'quit'): ", nl=False)
        raw = stream.readline()
        if not raw:
            click.echo()
            return None
        text = raw.strip()
        if text in ("quit", "q", "exit"):
            return None
        if text in ("moves", "help", "?"):
            names = [game.board.line_name(i) for i in game.legal_lines()]
            click.echo("legal: " + " ".join(names))
            continue
        try:
            line = game.board.parse_line(text)
            if line not in game.legal_lines():
                game.position.play(line, game.must_complete)  # raises with the reason
                raise DotsMoveError(f"{game.board.line_name(line)} cannot be drawn now")
            return line
        except SproutsError as e:
            err.print(f"[red]error:[/red] {e}", highlight=False)


def _picture(game: DotsGame, svg_dir: str | None) -> None:
    if not svg_dir:
        return
    from ..dots.render import render_dots

    k = len(game.moves)
    render_dots(
        game.position,
        Path(svg_dir) / f"move-{k:03d}.svg",
        game.line_owner,
        game.box_owner,
        title=f"move {k}: A {game.score[1]} - B {game.score[2]}",
    )


# ------------------------------------------------------------------ replay and render


@dots_group.command("replay")
@click.argument("log", type=click.Path(dir_okay=False))
@click.option("--game", "game_number", type=click.IntRange(1), help="The game to pick (default: the last).")
@click.option("--at", "at", type=click.IntRange(0), help="The position after move K (0: the start).")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Draw that position (.svg or .png).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per move.")
def replay_command(
    log: str, game_number: int | None, at: int | None, output: str | None, as_json: bool
) -> None:
    """Rebuild every game of a Dots-and-Boxes LOG and check every move."""
    run_replay(log, game_number, at, output, as_json)


def run_replay(log: str, game_number: int | None, at: int | None, output: str | None, as_json: bool) -> None:
    """The body of ``sprouts dots replay`` (``sprouts replay`` calls it for a dots log)."""
    from ..dots.game import INITIALS
    from ..dots.log import replay_dots_log

    result = replay_dots_log(log)
    games = [g for g in result.games if game_number is None or g.number == game_number]
    if game_number is not None and not games and result.error is None:
        fail(f"{log}: there is no game {game_number} (the log has {len(result.games)})")
    for g in games:
        for s in g.steps:
            if at is not None and (g is not games[-1] or s.move != at):
                continue
            if as_json:
                print_json(
                    {
                        "game": g.number,
                        "move": s.move,
                        "line": s.text or None,
                        "index": s.line,
                        "player": s.player,
                        "score": list(s.score),
                        "position": str(s.position),
                    }
                )
            elif at is None:
                if s.move == 0:
                    out.print(
                        f"game {g.number}: {g.board}, {g.rules} form, {g.players[0]} against "
                        f"{g.players[1]}, start {s.position}",
                        markup=False,
                    )
                else:
                    out.print(
                        f"  {s.move:>3}. player {s.player} {s.text:<8} score {s.score[0]}-{s.score[1]}",
                        markup=False,
                    )
            else:
                print_data(f"game {g.number}, after move {s.move}: score {s.score[0]}-{s.score[1]}")
                print_data(str(s.position))
                print_data(s.position.text({b: INITIALS[p] for b, p in s.box_owner.items()}))
        if at is None and not as_json and g.ended is not None:
            out.print(
                f"  end: score {g.ended.get('score', '?')}, winner {g.ended.get('winner', '?')}", markup=False
            )
    if output:
        if not games:
            fail(f"{log}: no game to draw")
        g = games[-1]
        k = g.moves if at is None else at
        if k > g.moves:
            fail(f"game {g.number} has {g.moves} moves; there is no move {k}")
        s = g.steps[k]
        from ..dots.render import render_dots

        try:
            render_dots(
                s.position,
                output,
                s.line_owner,
                s.box_owner,
                title=f"game {g.number}, move {k}: A {s.score[0]} - B {s.score[1]}",
            )
        except SproutsError as e:
            fail(str(e))
        err.print(f"wrote {output}", style="dim")
    if result.error is not None:
        fail(f"{log}: {result.error}")
    if at is not None and games and at > games[-1].moves:
        fail(f"game {games[-1].number} has {games[-1].moves} moves; there is no move {at}")
    if not as_json and at is None:
        total = sum(g.moves for g in result.games)
        out.print(
            f"{len(result.games)} game(s), {total} move(s): every move legal and every position as recorded"
        )


@dots_group.command("render")
@click.argument("position")
@click.option("--output", "-o", type=click.Path(dir_okay=False), required=True, help="out.svg or out.png")
@click.option(
    "--game", "game_number", type=click.IntRange(1), help="From a log: the game (default: the last)."
)
@click.option(
    "--at", "at", type=click.IntRange(0), help="From a log: the position after move K (default: the end)."
)
@click.option(
    "--title/--no-title", default=True, help="Write the position (or game and score) above the board."
)
@click.option(
    "--scale", type=click.FloatRange(min=0.25, max=8), default=1.0, show_default=True,
    help="A larger picture: lines, dots and text with it (2 reads well on a projector).",
)  # fmt: skip
def render_command(
    position: str, output: str, game_number: int | None, at: int | None, title: bool, scale: float = 1.0
) -> None:
    """Draw POSITION ('RxC:LINES', or a game of a Dots-and-Boxes log): dots, lines in the
    colour of the player who drew them, taken boxes in their owner's colour with A or B
    (grey and black when a position string does not say who)."""
    from ..dots import DotsPosition
    from ..dots.log import is_dots_log
    from ..dots.render import render_dots

    if not Path(position).exists() and ("." in position or "/" in position):  # no board has either
        fail(f"{position}: no such file")
    if Path(position).is_file() and is_dots_log(position):
        from ..dots.log import replay_dots_log

        result = replay_dots_log(position)
        if result.error is not None:
            fail(f"{position}: {result.error}")
        games = [g for g in result.games if game_number is None or g.number == game_number]
        if not games:
            fail(f"{position}: no game {game_number or ''} in the log".replace("  ", " "))
        g = games[-1]
        k = g.moves if at is None else at
        if k > g.moves:
            fail(f"game {g.number} has {g.moves} moves; there is no move {k}")
        step = g.steps[k]
        label = f"game {g.number}, move {k}: A {step.score[0]} - B {step.score[1]}" if title else None
        try:
            render_dots(step.position, output, step.line_owner, step.box_owner, title=label, scale=scale)
        except SproutsError as e:
            fail(str(e))
        err.print(f"wrote {output}", style="dim")
        return
    try:
        p = DotsPosition.parse(position)
        render_dots(p, output, title=str(p) if title else None, scale=scale)
    except SproutsError as e:
        fail(str(e))
    err.print(f"wrote {output}", style="dim")
