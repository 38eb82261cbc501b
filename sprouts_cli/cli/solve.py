"""``sprouts solve``: who wins, the nimber, the winning moves; what is proved is kept in a table."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..cpus import usable_cpus
from ..engine import Position
from ..engine.backend import kernels_in_use
from ..engine.rules import Rules
from ..errors import SproutsError, TableError, WorkerError
from ..procs import Terminated, interrupted_exit_code, sigterm_as_interrupt
from ..solve.session import Counters, Session
from ..solve.store import Table, default_path
from .common import Item, Reporter, err, fail, out, print_json, read_items, read_position

if TYPE_CHECKING:  # pragma: no cover
    from rich.status import Status

    from ..solve.cluster import ClusterBackend
    from .solve_cluster import Solved


def _kernels_used() -> str:
    """What this process searched with: the solver's compiled core when it was loaded (its
    path: ``aot``, ``jit`` or ``python``), else what coded the lands (``kernels_in_use``)."""
    from ..engine import aot
    from ..solve import compiled

    return aot.kernel_path() if compiled.core is not None else kernels_in_use()


@click.command("solve")
@click.argument("positions", nargs=-1)
@click.option("--misere", is_flag=True, help="Misère play: the player who cannot move wins.")
@click.option("--nimber", is_flag=True, help="Also give the nimber (normal play).")
@click.option("--moves", is_flag=True, help="Also list the winning moves (children lost for the opponent).")
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help=(
        "Threads of one search (normal play), or worker processes (misère play) for large"
        " positions [default: the CPUs this process may use; misère play: 1]."
    ),
)
@click.option(
    "--cluster",
    type=click.Choice(["ray"]),
    default=None,
    help="Solve on a Ray cluster (local Ray unless --address) [needs the extra: sprouts-cli[cluster]].",
)
@click.option(
    "--address",
    default=None,
    metavar="ADDR",
    help="With --cluster ray: join a running Ray cluster (auto, or HOST:PORT of `ray start --head`).",
)
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The table of solved positions (SQLite) [default: in the user's data directory].",
)
@click.option("--no-db", is_flag=True, help="Keep nothing: use no table of solved positions.")
@click.option(
    "--memory",
    default=None,
    metavar="SIZE",
    help="Memory a solver may hold (512M, 4G): normal play's search table grows to half of it; the "
    "misère search forgets what it can recompute past it [default: an eighth of the machine's memory].",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per input.")
@click.option(
    "--players",
    type=click.IntRange(2, 3),
    default=2,
    show_default=True,
    help="3: which player, if any, can force making the last move against the other two.",
)
@click.option(
    "--import",
    "imports",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Read a GLOP/SPOTS database ([Positions+Nimber], [WinLoss_Misere:Losing_Position], "
    "POSITION!k<TAB>r lines, or our CSV) into the table.",
)
@click.option(
    "--export",
    "export",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the table (after solving) for other programs: FILE.spr, the GLOP/SPOTS database "
    "(nimbers, or misère losses with --misere), or FILE.csv (every fact).",
)
@click.option(
    "--trust-imports/--no-imports",
    default=True,
    show_default=True,
    help="Use facts imported from other programs' databases (answers resting on them say so), or only "
    "facts proved here.",
)
@click.option(
    "--verify-table",
    is_flag=True,
    help="Prove every imported fact again: right ones become proved facts, wrong ones are dropped and "
    "listed (exit code 1 if any).",
)
def solve_command(
    positions: tuple[str, ...],
    misere: bool,
    nimber: bool,
    moves: bool,
    jobs: int | None,
    cluster: str | None,
    address: str | None,
    db: Path | None,
    no_db: bool,
    memory: str | None,
    as_json: bool,
    players: int,
    imports: tuple[Path, ...],
    export: Path | None,
    trust_imports: bool,
    verify_table: bool,
) -> None:
    """Solve each POSITION exactly: who wins with best play, in normal or misère play.

    Normal play uses nimbers (each land solved by itself, combined by xor); misère
    play uses misère canonical trees.  A POSITION of '-' reads one position per line
    from stdin.  Everything proved is written to the table as soon as it is proved, so
    an interrupted run (Ctrl-C) keeps it and the next run is faster.

    \b
    Examples:
      sprouts solve '0*5' --nimber       # 0*5: first player wins (nimber 1)
      sprouts solve '0*8' --jobs 2 --json
      sprouts solve '0*4' --players 3    # can a player force the last move?
      sprouts solve '0*11' --cluster ray --address auto
      sprouts solve --import glop.spr
      sprouts solve '0*8' --export table.spr
    """
    if not positions and not imports and export is None and not verify_table:
        fail("give at least one position (or - to read them from stdin), or --import FILE, or --export FILE")
    if export is not None and export.suffix.lower() not in (".spr", ".csv"):
        fail(f"{export}: the export file name should end in .spr or .csv")
    if misere and nimber:
        fail("--nimber is for normal play; misère play has no nimbers")
    if memory is not None:
        _set_memory(memory)
    if no_db and (db is not None or imports or export is not None or verify_table):
        fail("--no-db cannot be used with --db, --import, --export or --verify-table")
    if address is not None and cluster is None:
        fail("--address is for --cluster ray")
    if players == 3:
        if cluster is not None:
            fail("--cluster solves two-player games; it cannot be used with --players 3")
        from .solve_three import solve_three

        if export is not None:
            fail("--export writes the table of two-player results; it cannot be used with --players 3")
        solve_three(positions, misere, nimber, imports, moves, as_json)
        return
    table = _open_table(db, no_db)
    wrong = 0
    try:
        if table is not None:
            table.use_imports = trust_imports
        for path in imports:
            _import(path, table)
        if verify_table:
            assert table is not None  # --no-db with --verify-table was refused above
            wrong = _verify(table, jobs or usable_cpus(), as_json)
            table.use_imports = trust_imports
        if positions:
            backend = None
            if cluster is not None:  # the cluster's modules are imported only with --cluster
                from .solve_cluster import make_backend

                backend = make_backend(cluster, address, jobs)
            jobs = jobs or default_jobs(misere)
            _solve_all(positions, table, misere, nimber, moves, jobs, as_json, backend)
        if export is not None:
            _export(export, table, misere)
        if table is not None:
            table.close()  # the last facts committed here: a full disk then is said too
    except (TableError, WorkerError) as e:  # a damaged table, a full disk, a worker that failed
        fail(str(e))
    finally:
        if table is not None:
            with contextlib.suppress(TableError):
                table.close()
    if wrong:
        raise SystemExit(1)


def default_jobs(misere: bool) -> int:
    """``--jobs`` when not given: normal play's threads share one search, so every usable CPU.

    Misère play runs in one process: its workers are processes that share only the lands
    they prove, through the table, and each loses what the others hold in memory, so two
    were slower than one on every start measured (docs/performance.md, issue 28).
    """
    return 1 if misere else usable_cpus()


def _verify(table: Table, jobs: int, as_json: bool) -> int:
    """Prove the imported facts again; the number found wrong."""
    from ..solve.verify import Checked, verify_imported

    def show(fact: Checked) -> None:
        if as_json:
            print_json({"verified": fact.position, "rules": fact.rules, "imported": fact.imported,
                        "proved": fact.proved, "right": fact.right})  # fmt: skip
        elif not fact.right:
            line = f"wrong: {fact.position} ({fact.rules}): imported {fact.imported}, proved {fact.proved}"
            out.print(line, markup=False)

    with sigterm_as_interrupt():
        try:
            report = verify_imported(table, jobs, on_fact=show)
        except KeyboardInterrupt as e:
            err.print("verification stopped; the facts checked so far were kept", markup=False)
            raise SystemExit(interrupted_exit_code(e)) from None
    err.print(
        f"{table.path}: {report.right} imported facts proved right (now proved facts), "
        f"{len(report.wrong)} wrong (dropped)",
        markup=False,
    )
    return len(report.wrong)


def _set_memory(memory: str) -> None:
    """Pass ``--memory`` to every solver, workers included (they read ``$SPROUTS_MEMORY``)."""
    import os

    from ..solve.memory_bound import MEMORY_ENV, parse_memory

    try:
        os.environ[MEMORY_ENV] = str(parse_memory(memory))
    except ValueError as e:
        fail(f"--memory: {e}")


def _open_table(db: Path | None, no_db: bool) -> Table | None:
    if no_db:
        return None
    try:
        if db is None:
            return Table(default_path(), create_directory=True)
        return Table(db)
    except SproutsError as e:
        fail(str(e))
        raise  # fail() exits; this keeps type checkers content


def _import(path: Path, table: Table | None) -> None:
    from ..solve.importer import import_file

    assert table is not None
    if not path.exists():
        fail(f"{path}: no such file")
    table.importing = True  # kept apart from proved facts (store.py)
    try:
        with err.status(f"importing {path}") if err.is_terminal else _nothing():
            report = import_file(path, table)
    except TableError as e:
        fail(str(e))
        return
    finally:
        table.flush()
        table.importing = False
    for line, message in report.conflicts:
        err.print(f"[yellow]conflict:[/yellow] {path}: line {line}: {message}", markup=True, highlight=False)
    err.print(
        f"{path}: {report.nimbers} nimbers, {report.wins} wins and "
        f"{report.misere_losses + report.misere_wins} misère outcomes imported, "
        f"{report.already_known} already known, {report.skipped} skipped (several unknown lands), "
        f"{len(report.conflicts)} conflicts",
        markup=False,
    )


def _export(path: Path, table: Table | None, misere: bool) -> None:
    from ..solve.exporter import export_file

    assert table is not None
    try:
        count = export_file(table, path, misere=misere)
    except SproutsError as e:
        fail(str(e))
        return
    what = "facts" if path.suffix.lower() == ".csv" else ("misère losses" if misere else "nimbers")
    err.print(f"{path}: {count} {what} written from {table.path}", markup=False)


def _solve_all(
    positions: tuple[str, ...],
    table: Table | None,
    misere: bool,
    nimber: bool,
    moves: bool,
    jobs: int,
    as_json: bool,
    backend: ClusterBackend | None = None,
) -> None:
    report = Reporter(as_json)
    progress = _Progress()
    session = Session(table, jobs=jobs, misere=misere, progress=progress.update, cluster=backend)
    backend_fields = {
        "backend": session.backend,
        "workers": session.workers,
        "parallelism": session.parallelism,
    }
    if backend is not None:
        backend.search.progress = lambda _: progress.update(session.counters())
    try:
        with progress, sigterm_as_interrupt():
            read = read_items(positions)
            items: Iterator[Item | Solved] = read
            if backend is not None:
                from .solve_cluster import solve_batch

                items = solve_batch(session, list(read), misere, nimber, moves)
            for item in items:
                if not isinstance(item, Item):  # a position the cluster answered whole (``Solved``)
                    r = item
                    _print(r.text, r.position, r.result, misere, r.seconds, r.solved, as_json, backend_fields)
                    continue
                try:
                    p = read_position(item.text, "solve")
                except SproutsError as e:
                    report.bad(item, e)
                    continue
                progress.start(item.text, session.counters())
                before = session.counters()
                t = time.perf_counter()
                result = _solve_one(session, p, misere, nimber, moves)
                seconds = time.perf_counter() - t
                if session.table is not None:
                    session.table.flush()  # a result is printed once what proved it is stored
                solved = session.counters().positions_solved - before.positions_solved
                result["nodes"] = session.counters().nodes - before.nodes
                # conservative: once an imported fact was read, what this session proves may rest on it
                result["imported_facts_used"] = session.counters().imported_used > 0
                progress.clear()
                _print(item.text, p, result, misere, seconds, solved, as_json, backend_fields)
    except KeyboardInterrupt as e:  # Ctrl-C, or SIGTERM (procs.Terminated): the same clean stop
        progress.clear()
        session.close()
        kept = session.counters().positions_solved
        where = f" in {table.path}" if table is not None else " (no table: --no-db)"
        how = "terminated" if isinstance(e, Terminated) else "interrupted"
        err.print(f"{how}: {kept} facts proved were kept{where}", markup=False)
        if table is not None:
            table.close()
        raise SystemExit(interrupted_exit_code(e)) from None
    finally:
        session.close()
    report.exit()


def _solve_one(session: Session, p: Position, misere: bool, nimber: bool, moves: bool) -> dict[str, Any]:
    result: dict[str, Any] = {}
    if moves:
        children = session.child_outcomes(p)
        result["winning_moves"] = [c for c, win in children if not win]
        result["children"] = len(children)
        result["win"] = bool(result["winning_moves"]) if children else misere
    if nimber:
        result["nimber"] = session.nimber(p)
        result.setdefault("win", result["nimber"] != 0)
    if "win" not in result:
        result["win"] = session.outcome(p)
    return result


def _print(
    text: str,
    p: Position,
    result: dict[str, Any],
    misere: bool,
    seconds: float,
    solved: int,
    as_json: bool,
    where: dict[str, Any] | None = None,
) -> None:
    words: dict[str, str] = {}
    if "winning_moves" in result:
        from ..engine.naming import words_of_children

        words = words_of_children(p)
    if as_json:
        obj: dict[str, object] = {
            "input": text,
            "position": text,
            "canonical": p.canonical(),
            "rules": Rules.of(misere).value,
            "outcome": "win" if result["win"] else "loss",
        }
        if "nimber" in result:
            obj["nimber"] = result["nimber"]
        if "winning_moves" in result:
            obj["winning_moves"] = result["winning_moves"]
            obj["winning_move_words"] = [words.get(c) for c in result["winning_moves"]]
        obj["imported_facts_used"] = result["imported_facts_used"]
        obj["seconds"] = round(seconds, 3)
        obj["positions_solved"] = solved
        if "nodes" in result:
            obj["nodes"] = result["nodes"]
        obj["kernels"] = _kernels_used()
        obj.update(where or {})
        print_json(obj)
        return
    verdict = "first player wins" if result["win"] else "first player loses"
    extra = []
    if "nimber" in result:
        extra.append(f"nimber {result['nimber']}")
    if misere:
        extra.append("misère play")
    if result["imported_facts_used"]:
        extra.append("resting on imported facts; --no-imports for proved facts only")
    detail = f" ({', '.join(extra)})" if extra else ""
    out.print(f"{text}: {verdict}{detail}, {_seconds(seconds)}", markup=False)
    if "winning_moves" in result:
        wins = result["winning_moves"]
        out.print(f"  winning moves: {len(wins)} of {result['children']} children", markup=False)
        width = max((len(words.get(c, "")) for c in wins), default=0)
        for child in wins:
            out.print(f"    {words.get(child, ''):<{width}}  →  {child}", markup=False)


def _seconds(s: float) -> str:
    return f"{s:.1f} s" if s < 100 else f"{s:.0f} s"


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


class _Progress:
    """A status line on stderr (terminals only): the position, facts proved, table hits, time."""

    def __init__(self) -> None:
        self.enabled = err.is_terminal
        self.status: Status | None = None
        self.text = ""
        self.t0 = time.perf_counter()
        self.base = Counters()
        self.last = 0.0

    def __enter__(self) -> _Progress:
        if self.enabled:
            self.status = err.status("", spinner="dots")
            self.status.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.status is not None:
            self.status.__exit__(None, None, None)
            self.status = None

    def start(self, text: str, counters: Counters) -> None:
        self.text, self.t0, self.base = text, time.perf_counter(), counters
        if self.status is not None:
            self.status.start()
        self.update(counters, force=True)

    def update(self, counters: Counters, force: bool = False) -> None:
        if self.status is None:
            return
        now = time.perf_counter()
        if not force and now - self.last < 0.1:
            return
        self.last = now
        solved = counters.positions_solved - self.base.positions_solved
        hits = counters.table_hits - self.base.table_hits
        jobs = ""
        if counters.jobs_out:
            c = counters
            jobs = (
                f", jobs {c.jobs_done:,} done of {c.jobs_out:,} out, {c.facts_merged:,} facts merged,"
                f" {c.workers_alive} workers alive"
            )
        self.status.update(
            f"solving {self.text}: {solved:,} positions proved, {hits:,} table hits{jobs},"
            f" {now - self.t0:.1f} s"
        )

    def clear(self) -> None:
        """Take the status line away before a result is printed (stdout and stderr often share a
        terminal: a status line only emptied would leave its spinner in front of the result)."""
        if self.status is not None:
            self.status.update("")
            self.status.stop()  # the status is transient: stopping erases its line
