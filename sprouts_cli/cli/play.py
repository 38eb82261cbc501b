"""``sprouts play`` and ``sprouts replay-log`` (alias ``replay``): games in the terminal, and their logs.

``play`` runs one game between two players (a person at the terminal or a computer
player, Alfeld §5), from the n-spot start, a position string or a saved game; it
writes the log line by line (Alfeld §7.3), and with ``--save``/``--svg`` draws every move.
``replay-log`` rebuilds every position of every game in a log and checks each move.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import TYPE_CHECKING, Any

import click

from ..cpus import usable_cpus
from ..errors import SproutsError
from ..limits import check_limits
from ..players import PLAYER_NAMES
from ..procs import Terminated, interrupted_exit_code, stops_cleanly_on_sigterm
from .common import err, fail, names_a_file, out, print_data, print_json, read_game, read_position

if TYPE_CHECKING:  # pragma: no cover
    from ..engine import Position
    from ..engine.rules import Rules
    from ..log import Replay, ReplayedGame, Step
    from ..picture.model import Picture
    from ..play.drawing import Drawer
    from ..play.session import Outcome
    from ..players import Settings
    from ..solve.store import Table


def _area(text: str) -> tuple[float, float]:
    try:
        w, h = (float(v) for v in text.lower().split("x"))
    except ValueError:
        raise click.BadParameter(f"{text!r} is not an area like 800x600") from None
    if w < 100 or h < 100:
        raise click.BadParameter("the drawing area must be at least 100x100")
    return w, h


@click.command("play")
@click.argument("start", required=False)
@click.option("--spots", "-n", type=click.IntRange(1, 200), help="Start from N lone spots.")
@click.option(
    "--first", type=click.Choice(PLAYER_NAMES), default="human", show_default=True, help="Player 1."
)
@click.option(
    "--second", type=click.Choice(PLAYER_NAMES), default="parity", show_default=True, help="Player 2."
)
@click.option(
    "--third",
    type=click.Choice(PLAYER_NAMES),
    default=None,
    help="Player 3 (three players; default parity).",
)
@click.option(
    "--players",
    "players",
    type=click.IntRange(2, 3),
    default=None,
    help="2 or 3 players; with 3 the last mover wins [default: 2, or 3 with --third].",
)
@click.option(
    "--misere/--normal",
    default=None,
    help="Misère play (who cannot move wins) or normal play [default: normal, or a saved game's rules].",
)
@click.option(
    "--time",
    "seconds",
    type=click.FloatRange(0.0, min_open=True),
    default=2.0,
    show_default=True,
    help="Seconds per computer move.",
)
@click.option("--games", type=click.IntRange(1), help="Monte Carlo: games per candidate, not a time.")
@click.option("--depth", type=click.IntRange(1), help="Parity search: search at most this deep.")
@click.option("--sharp", is_flag=True, help="Parity search: use the exact longest game at the leaves.")
@click.option("--seed", type=int, help="Seed of the random choices, for a reproducible game.")
@click.option("--jobs", "-j", type=click.IntRange(1), help="Worker processes (default: the usable CPUs).")
@click.option("--save", type=click.Path(dir_okay=False), help="Keep the picture in this saved game.")
@click.option("--svg", "svg_dir", type=click.Path(file_okay=False), help="Write a picture per move here.")
@click.option("--log", "log_path", type=click.Path(dir_okay=False), help="Append the game to this log.")
@click.option("--area", default="800x600", show_default=True, help="Drawing area WxH.")
@click.option("--db", type=click.Path(dir_okay=False), help="Table of solved positions [user data dir].")
@click.option("--no-db", is_flag=True, help="Use no table of solved positions.")
@click.option("--quiet", "-q", is_flag=True, help="Computer against computer: print only the result.")
@click.option("--host", "host_game", is_flag=True, help="Host a game over the network; print a room code.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    help="--host: the port; --web: the page's port (default: any free one).",
)
@click.option(
    "--bind",
    default="127.0.0.1",
    show_default=True,
    help="--host: listen on this address (0.0.0.0: every interface; the room code then names this "
    "computer's address, for a guest on another computer).",
)
@click.option("--join", "join_code", help="Join the network game with this room code (HOST:PORT/SECRET).")
@click.option("--web", is_flag=True, help="Play in a browser page served on 127.0.0.1 (draw moves by hand).")
@click.option("--no-open", is_flag=True, help="--web: print the page's address, open no browser.")
@click.option("--heartbeat", type=click.FloatRange(0.05), default=3.0, hidden=True)
@click.option("--silence", type=click.FloatRange(0.2), default=10.0, hidden=True)
@click.option("--wait", "net_wait", type=click.FloatRange(1.0), default=120.0, hidden=True)
@click.option("--batch", type=click.IntRange(1), help="Play N computer games in parallel (no pictures).")
@click.option("--stats", type=click.Path(dir_okay=False), help="--batch: one CSV row per game here.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), help="--batch: a plot (.png/.svg).")
@stops_cleanly_on_sigterm
def play_command(**params: Any) -> None:
    """Play a game of Sprouts in the terminal (or a batch of computer games).

    START is a position string ('0*5', '0.AB|AB') or a saved game ('game.json');
    or give --spots N.  A person sees the position, its regions and lives and the
    numbered list of distinct moves in words ('3 → 5', '3 → 3 enclosing 4, 6-7'),
    and answers with a number or the words; 'undo' and 'quit' work.  Computer
    against computer runs unattended.

    \b
    Also:
      --third KIND / --players 3     three players, the last mover wins
      --host [--port P]              play a person at another terminal; prints a room code
      --join CODE                    join that game (the host chooses the start)
      --web [--port P] [--no-open]   play in a browser page: draw the moves by hand
      --batch N --stats F.csv        N computer games in parallel, a row per game
    """
    _quiet_collector()
    o = PlayOptions(**{**params, "area": _area(params["area"])})
    if o.join_code is not None or o.host_game:
        _people_only()
    if o.web:
        _web_command(o)
        return
    if o.join_code is not None:
        if o.host_game or o.start is not None or o.spots is not None or o.batch is not None:
            fail("--join takes only the room code: the host chooses the start")
        from .play_net import join

        join(o.join_code, o.log_path, o.save, o.svg_dir, *o.area, o.heartbeat, o.silence, o.net_wait)
        return
    if (o.start is None) == (o.spots is None):
        fail("give either --spots N or a START position (a position string or a saved game)")
    o = dataclasses.replace(o, jobs=o.jobs or usable_cpus())
    if o.batch is None and (o.stats or o.plot_path):
        fail("--stats and --plot go with --batch N")
    if o.host_game:
        if o.batch is not None or o.players == 3 or o.third is not None:
            fail("network play is one game between two people (no --batch, no third player)")
        from .play_net import host

        host(
            o.start, o.spots, bool(o.misere), o.port, o.bind, o.log_path, o.save, o.svg_dir, *o.area,
            o.heartbeat, o.silence, o.net_wait,
        )  # fmt: skip
        return
    if o.batch is not None:
        _play_batch(o)
        return
    outcome = _play_one(o)
    if o.quiet:
        who = f"player {outcome.winner}" if outcome.winner else "nobody"
        print_data(f"{who} wins after {outcome.moves} moves")


@dataclasses.dataclass(frozen=True)
class PlayOptions:
    """The options of ``sprouts play``, by their click names, handed whole to each way of playing."""

    start: str | None
    spots: int | None
    first: str
    second: str
    third: str | None
    players: int | None
    misere: bool | None
    seconds: float
    games: int | None
    depth: int | None
    sharp: bool
    seed: int | None
    jobs: int | None
    save: str | None
    svg_dir: str | None
    log_path: str | None
    area: tuple[float, float]
    db: str | None
    no_db: bool
    quiet: bool
    host_game: bool
    port: int
    bind: str
    join_code: str | None
    web: bool
    no_open: bool
    heartbeat: float
    silence: float
    net_wait: float
    batch: int | None
    stats: str | None
    plot_path: str | None

    @property
    def chosen(self) -> tuple[str, str, str | None]:
        """The kinds of player asked for (the third None when not given)."""
        return self.first, self.second, self.third

    def settings(self, table: Table | None = None) -> Settings:
        """The computer players' settings."""
        from ..players import Settings

        jobs = self.jobs or usable_cpus()
        return Settings(
            seconds=self.seconds, games=self.games, jobs=jobs, depth=self.depth, sharp=self.sharp, table=table
        )


def _kinds_of(chosen: tuple[str, str, str | None], rules: Rules) -> tuple[str, ...]:
    """The kinds of player that play under ``rules`` (the third is parity search unless given)."""
    first, second, third = chosen
    kinds = (first, second, third or "parity")[: rules.players]
    if rules.players == 3:
        _check_three(kinds)
    return kinds


def _play_batch(o: PlayOptions) -> None:
    """``play --batch N``: computer games in parallel, without pictures or logs."""
    from .play_batch import run_batch

    rules = _rules(o.players, o.third, o.misere, None)
    kinds = _kinds_of(o.chosen, rules)
    if o.save or o.svg_dir or o.log_path:
        fail("--batch plays without pictures or logs (--save, --svg, --log)")
    assert o.batch is not None and o.jobs is not None
    run_batch(
        o.batch, kinds, rules, o.spots, o.start, o.seconds, o.games, o.depth, o.sharp, o.seed, o.jobs,
        o.stats, o.plot_path,
    )  # fmt: skip


def _play_one(o: PlayOptions) -> Outcome:
    """One game in the terminal, to its end; its outcome (bad input and interruptions exit here)."""
    from ..play import PlayError

    try:
        _check_outputs(o.save, o.svg_dir, o.log_path, o.db)
        position, picture, to_move = _start_position(o.start, o.spots)
        saved = picture.meta.get("game", {}).get("rules") if picture is not None else None
        rules = _rules(o.players, o.third, o.misere, saved)
        kinds = _kinds_of(o.chosen, rules)
        if o.quiet and "human" in kinds:
            fail("--quiet is for computer against computer; a person needs to see the game")
        drawer = None
        if o.save or o.svg_dir:
            from ..play.drawing import Drawer

            progress = None if o.quiet else _drawing_progress
            drawer = Drawer(*o.area, o.save, o.svg_dir, o.jobs or usable_cpus(), progress=progress)
            err.print("drawing the start…", style="dim")
            position = drawer.begin(position, picture)
        return _run_session(o, position, rules, to_move, kinds, drawer)
    except PlayError as e:
        fail(f"the game stops: {e}")
    except SproutsError as e:
        fail(str(e))
    except KeyboardInterrupt as e:  # Ctrl-C, or SIGTERM (procs.Terminated)
        err.print("terminated" if isinstance(e, Terminated) else "interrupted", style="red")
        raise SystemExit(interrupted_exit_code(e)) from None


def _drawing_progress(text: str | None) -> None:
    """A move being drawn, on stderr (``watch.show_progress``); ``None``: it is drawn."""
    from .watch import end_progress, show_progress

    if text is None:
        end_progress()
    else:
        show_progress(f"{text}…")


def _run_session(
    o: PlayOptions,
    position: Position,
    rules: Rules,
    to_move: int,
    kinds: tuple[str, ...],
    drawer: Drawer | None,
) -> Outcome:
    """Play the game through a session, closing the log and the table however it ends."""
    from ..log import LogWriter
    from ..play import Game, Session

    game = Game(position, rules, first_to_move=to_move)
    table = _open_table(o.db, o.no_db, kinds)
    log = LogWriter(o.log_path) if o.log_path else None
    try:
        session = Session(game, kinds, o.settings(table), o.seed, log, drawer, quiet=o.quiet)
        return session.run()
    finally:
        if log is not None:
            log.close()
        if table is not None:
            table.close()


def _web_command(o: PlayOptions) -> None:
    """``play --web`` with every option of ``play``: the start, the players, the rules, files, the network."""
    from ..log import LogWriter
    from .play_web import run_web

    if o.batch is not None or o.quiet or o.svg_dir:
        fail("--web plays one game in the page (no --batch, --quiet or --svg)")
    jobs = o.jobs or usable_cpus()
    try:
        _check_outputs(o.save, None, o.log_path, o.db)
    except SproutsError as e:
        fail(str(e))
    net: dict[str, Any] | None = None
    if o.join_code is not None:
        if o.host_game or o.start is not None or o.spots is not None:
            fail("--join takes only the room code: the host chooses the start")
        from ..play.net_messages import parse_code

        try:
            parse_code(o.join_code)
        except SproutsError as e:
            fail(str(e))
        net = {"role": "guest", "code": o.join_code}
    elif o.host_game:
        from ..play.net_messages import check_bind

        try:
            net = {"role": "host", "bind": check_bind(o.bind)}
        except SproutsError as e:
            fail(str(e))
    if net is not None:
        net.update({"heartbeat": o.heartbeat, "silence": o.silence, "wait": o.net_wait})
    elif (o.start is None) == (o.spots is None):
        fail("give either --spots N or a START position (a position string or a saved game)")
    log = None
    width, height = o.area

    def make_game() -> Any:
        nonlocal log
        from ..play.web_game import WebGame

        log = LogWriter(o.log_path) if o.log_path else None
        if net is not None and net["role"] == "guest":
            return WebGame(None, ("remote", "human"), None, width, height, log=log, save=o.save, jobs=jobs)
        position, picture, to_move = _start_position(o.start, o.spots)
        saved = picture.meta.get("game", {}).get("rules") if picture is not None else None
        if net is not None:
            rules = _rules(2, None, o.misere, saved)
            kinds: tuple[str, ...] = ("human", "remote")
        else:
            rules = _rules(o.players, o.third, o.misere, saved)
            kinds = _kinds_of(o.chosen, rules)
        err.print("drawing the start…", style="dim")
        # over the network the protocol writes the log (both sides' moves, undos and refusals)
        own_log = None if net else log
        # the game opens the table on its computers' thread, and closes it
        game = WebGame(
            position, kinds, rules, width, height, to_move, picture, o.settings(), o.seed, own_log, o.save,
            jobs,
            open_table=functools.partial(_open_table, o.db, o.no_db, kinds),
        )  # fmt: skip
        game.log = log
        return game

    try:
        run_web(make_game=make_game, port=o.port, no_open=o.no_open, net=net)
    finally:
        if log is not None:
            log.close()


def _check_outputs(save: str | None, svg_dir: str | None, log_path: str | None, db: str | None) -> None:
    """Refuse, before the game starts, files that could not be written (no directory is created)."""
    from ..files import check_directory, check_output

    if save:
        check_output(save, (".json",))
    if svg_dir:
        check_directory(svg_dir)
    if log_path:
        check_output(log_path)
    if db:
        check_output(db)


def _people_only() -> None:
    """Only people play over the network (Alfeld §6): computer players given are refused."""
    from click.core import ParameterSource

    ctx = click.get_current_context()
    for name in ("first", "second", "third"):
        if ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE and ctx.params[name] != "human":
            fail(f"over the network both players are people; --{name} {ctx.params[name]} cannot play")


def _rules(players: int | None, third: str | None, misere: bool | None, saved: str | None) -> Rules:
    """The rule of the game from the options (and a saved game's rule); a clear error when they clash."""
    from ..engine.rules import Rules

    if players is None:
        players = 3 if third is not None or saved == Rules.THREE_PLAYER.value else 2
    if players == 2:
        if third is not None:
            fail("--third is for three players (--players 3)")
        if misere is None:
            misere = saved == Rules.MISERE.value
        return Rules.of(misere)
    if misere:
        fail(
            "misère play is not defined for three players (the last mover loses, but which of the "
            "other two wins?); three players play the normal rule: the last mover wins"
        )
    return Rules.THREE_PLAYER


def _check_three(kinds: tuple[str, ...]) -> None:
    from ..players import THREE_PLAYER_COMPUTERS

    for k in kinds:
        if k != "human" and k not in THREE_PLAYER_COMPUTERS:
            fail(f"{k} cannot play with three players; choose human, {', '.join(THREE_PLAYER_COMPUTERS)}")


def _open_table(db: str | None, no_db: bool, kinds: tuple[str, ...]) -> Table | None:
    """The table of solved positions the exact solvers read and write (only for players that solve)."""
    if no_db or not {"parity", "perfect"} & set(kinds):
        return None
    from ..solve.store import open_table

    return open_table(db)


def _quiet_collector() -> None:
    """Keep the garbage collector off what was loaded at start-up.

    The searches make many short-lived objects; every full collection would walk
    everything the imports built as well (rich, click, the engine), which cost the
    parity search more than half of a short move's time.  ``gc.freeze`` moves those
    objects out of the collector's sight.
    """
    import gc

    gc.collect()
    gc.freeze()


def _start_position(start: str | None, spots: int | None) -> tuple[Position, Picture | None, int]:
    """The start position, the saved game's picture (or None), and the player to move (1 or 2)."""
    from ..engine import Position

    if spots is not None:
        return Position.start(spots), None, 1
    assert start is not None
    if names_a_file(start):
        from ..picture import analyse

        picture = read_game(start)
        check_limits(analyse(picture), "play")
        meta = picture.meta.get("game", {}) if isinstance(picture.meta, dict) else {}
        player = meta.get("player", 0)
        to_move = player + 1 if player in (1, 2) else 1
        return analyse(picture), picture, to_move
    return read_position(start, "play"), None, 1


@click.command("replay-log")
@click.argument("log", type=click.Path(dir_okay=False))
@click.option("--game", "game_number", type=click.IntRange(1), help="The game to pick (default: the last).")
@click.option("--at", "at", type=click.IntRange(0), help="The position after move K (0: the start).")
@click.option(
    "--output", "-o", type=click.Path(dir_okay=False), help="Render it (.svg/.png) or save it (.json)."
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per move.")
@click.option(
    "--area", default="800x600", show_default=True, help="Drawing area WxH for -o, --svg, --html and --gif."
)
@click.option("--html", "html_path", type=click.Path(dir_okay=False), help="The game as one HTML page.")
@click.option("--gif", "gif_path", type=click.Path(dir_okay=False), help="The game as an animated GIF.")
@click.option(
    "--svg", "svg_dir", type=click.Path(file_okay=False),
    help="Draw the game move by move, each move into the previous picture; a picture per move here.",
)  # fmt: skip
@click.option(
    "--fresh", is_flag=True,
    help="Draw each position afresh (Z and polish) for -o, --svg, --html and --gif, not move by move.",
)  # fmt: skip
def replay_log_command(
    log: str,
    game_number: int | None,
    at: int | None,
    output: str | None,
    as_json: bool,
    area: str,
    html_path: str | None,
    gif_path: str | None,
    svg_dir: str | None = None,
    fresh: bool = False,
) -> None:
    """Rebuild every position of every game in LOG and check every move.

    The first line that does not replay (an illegal move, a position that is not the
    one recorded, a truncated last line) is reported with its number, and the exit
    code is 2; everything before it is kept.  --at K picks the position after
    move K of a game; -o renders it or writes it as a saved game.  --html
    writes the game as one self-contained page to step through (slider, arrow
    keys), --gif as an animation with one frame per position.
    """
    from ..dots.log import is_dots_log
    from ..log import replay_log

    if is_dots_log(log):  # a Dots-and-Boxes log replays as ``sprouts dots replay``
        from .dots import run_replay

        return run_replay(log, game_number, at, output, as_json)
    width, height = _area(area)
    if output:
        from ..files import check_output

        try:
            check_output(output, (".svg", ".png", ".json"))
        except SproutsError as e:
            fail(str(e))
    watch = _check_watch_paths(html_path, gif_path)
    result = replay_log(log)
    games = result.games
    chosen = _chosen_game(log, result, game_number)
    if as_json:
        _print_json_steps(games, game_number, at, chosen)
    elif at is None and not output and not watch:
        _print_games(games, game_number)
    if chosen is not None and (at is not None or output):
        _show_position(chosen, at, output, as_json, result.error is None, width, height, fresh)
    stopped = None  # a log that does not replay to its end: the part kept is drawn
    if result.error is not None and chosen is not None:
        stopped = f"the log stops at line {result.error.line}, after move {chosen.moves}"
        stopped += f" of game {chosen.number}"
    if watch and chosen is not None:
        from .watch import write_watch

        write_watch(chosen, html_path, gif_path, log, width, height, fresh, stopped)
    if svg_dir and chosen is not None:
        _draw_svgs(chosen, svg_dir, width, height, at, fresh, stopped)
    if result.error is not None:
        fail(f"{log}: {result.error}")
    if not as_json and at is None and not output and not watch:
        total = sum(g.moves for g in games)
        out.print(f"{len(games)} game(s), {total} move(s): every move legal and every position as recorded")


def _chosen_game(log: str, result: Replay, game_number: int | None) -> ReplayedGame | None:
    """The game ``--game`` names (or the last); none when the log has none or stops before it."""
    games = result.games
    if game_number is None:
        return games[-1] if games else None
    chosen = next((g for g in games if g.number == game_number), None)
    if chosen is None and result.error is None:
        fail(f"{log}: there is no game {game_number} (the log has {len(games)})")
    return chosen


def _print_json_steps(
    games: list[ReplayedGame], game_number: int | None, at: int | None, chosen: ReplayedGame | None
) -> None:
    """``--json``: one object per move of the games asked for (with ``--at``, one position)."""
    from ..log import bounds_of

    for g in games:
        if game_number is not None and g.number != game_number:
            continue
        steps = g.steps
        if at is not None:  # just the position after move K of the line of play
            steps = g.line_of_play[at : at + 1] if g is chosen else []
        for s in steps:
            upper, lower = bounds_of(s.position, g.complete)
            print_json(
                {
                    "game": g.number,
                    "move": s.move,
                    "text": s.text,
                    "position": s.position.canonical(),
                    "lives": s.position.total_lives,
                    "upper": upper,
                    "lower": lower,
                }
            )


def _show_position(
    chosen: ReplayedGame,
    at: int | None,
    output: str | None,
    as_json: bool,
    complete: bool,
    width: float,
    height: float,
    fresh: bool,
) -> None:
    """The position after move ``at`` (or the last) of the game: written to ``output``, or printed.

    A move past the end is an error only in a log that replays whole; in a log that
    stops early the error of the log is reported instead.
    """
    k = chosen.moves if at is None else at
    if k > chosen.moves:
        if complete:
            fail(f"game {chosen.number} has {chosen.moves} moves; there is no move {k}")
        return
    step = chosen.line_of_play[k]
    try:
        if output:
            _write_output(output, chosen, k, width, height, fresh)
            err.print(f"wrote {output} (game {chosen.number}, after move {k})", style="dim")
        elif not as_json:
            _print_step(chosen, step)
    except SproutsError as e:
        fail(str(e))


def _check_watch_paths(html_path: str | None, gif_path: str | None) -> bool:
    from ..files import check_output

    for path, ends in ((html_path, (".html", ".htm")), (gif_path, (".gif",))):
        if path is not None:
            try:
                check_output(path, ends)
            except SproutsError as e:
                fail(str(e))
    return bool(html_path or gif_path)


def _print_games(games: list[ReplayedGame], game_number: int | None) -> None:
    for g in games:
        if game_number is not None and g.number != game_number:
            continue
        out.print(
            f"game {g.number}: {g.rules} play, {' against '.join(g.players)}, start {g.start.canonical()}",
            markup=False,
        )
        for s in g.steps[1:]:
            label = "undo" if s.text == "undo" else s.text
            out.print(f"  {s.move:>3}. {label:<32} {s.position.canonical()}", markup=False)
        if g.ended is not None:
            winner = g.ended.get("winner", "none")
            out.print(f"  end: winner {winner} ({g.ended.get('reason', '')})", markup=False)


def _print_step(g: ReplayedGame, step: Step) -> None:
    from ..engine.naming import lives_text, numbered_text
    from ..log import bounds_of

    upper, lower = bounds_of(step.position, g.complete)
    print_data(f"game {g.number}, after move {step.move}: {step.text}")
    print_data(f"position {step.position.canonical()}")
    print_data(f"numbered {numbered_text(step.position)}")
    print_data(f"spot lives {lives_text(step.position)}")
    print_data(f"lives {step.position.total_lives}; moves left between {lower} and {upper}")


def _draw_svgs(
    g: ReplayedGame,
    svg_dir: str,
    width: float,
    height: float,
    at: int | None,
    fresh: bool = False,
    stopped: str | None = None,
) -> None:
    """Every position of the game's line of play (up to ``at``), drawn move by move, as SVG files."""
    from ..errors import PictureError
    from ..play.drawing import draw_line_of_play

    steps = g.line_of_play if at is None else g.line_of_play[: at + 1]
    titles = [
        f"game {g.number}, move {s.move}: {s.text}" if s.move else f"game {g.number}: start" for s in steps
    ]
    from .watch import end_progress, progress_line

    try:
        shown = progress_line("drawing position")
        draw_line_of_play(steps, width, height, svg_dir, titles, progress=shown, fresh=fresh)
    except (PictureError, SproutsError) as e:
        end_progress()
        fail(f"game {g.number}: {e}")
    end_progress()
    kept = f"; {stopped}" if stopped else ""
    err.print(f"wrote {len(steps)} pictures to {svg_dir} (game {g.number}{kept})", style="dim")


def _write_output(
    path: str, g: ReplayedGame, k: int, width: float, height: float, fresh: bool = False
) -> None:
    from ..errors import PictureError
    from ..picture import save_game
    from ..play.drawing import draw_line_of_play
    from ..render import render

    p = g.line_of_play[k].position
    try:
        # drawn move by move, as the game was: the same picture a replay with --svg shows
        from .watch import end_progress, progress_line

        try:
            shown = progress_line("drawing position")
            pic = draw_line_of_play(g.line_of_play[: k + 1], width, height, progress=shown, fresh=fresh)
        finally:
            end_progress()
    except PictureError as e:
        raise SproutsError(f"the position cannot be drawn: {e}") from None
    meta = pic.meta.setdefault("game", {})
    to_move = g.rules.to_move(g.first_to_move, k) - 1  # the picture numbers players from 0
    meta.update({"rules": g.rules.value, "player": to_move, "moves": k})
    if path.lower().endswith(".json"):
        save_game(path, pic, p.canonical(), [s.text for s in g.line_of_play[1 : k + 1]])
    else:
        render(pic, path, numbers=True, lives=True, title=f"game {g.number}, move {k}: {p.canonical()}")
