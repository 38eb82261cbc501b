"""``sprouts solve --cluster ray``: the split search gives the answers of one process.

The driver is checked without Ray (``InlineRunner``: the workers run one after
another in this process) with tiny budgets, so that the tree is split deep; then on
a local Ray of 2 CPUs (one Ray for the whole module), with a worker killed mid-run,
through the command line, and joining a cluster started with ``ray start --head``.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from sprouts_cli.cli import main
from sprouts_cli.engine import Position
from sprouts_cli.errors import OutputError
from sprouts_cli.solve.cluster import ClusterBackend, ClusterError, InlineRunner, RayRunner, import_ray
from sprouts_cli.solve.jobs import JobSolver, answer_job
from sprouts_cli.solve.misere import MisereSolver
from sprouts_cli.solve.nimbers import NormalSolver, position_parts
from sprouts_cli.solve.session import Session

ray = pytest.importorskip("ray", reason="the cluster extra (Ray) is installed by `make test`")

#: Positions of random games (seeded, from ``games.random_game_position``): lands of several
#: shapes, sums, heaps; each solved in well under a second by one process.
SAMPLE = [
    "33A3B|3A33C|DE333F.0|3C3EDF3B",
    "AB|CD.AB|CD.33+33a1a33b1b.0",
    "33+3333A|3331333333A+3a1a33.0*2",
    "33.0.1a1a+31333333+333333A|333A+333",
    "333A|333A+333A|B33133C|3A3BC.33+33333+33333",
    "0*3+*2",
]
#: Larger ones (seconds each), for ``make test-all``.
SLOW_SAMPLE = [
    "0.1a31313a.0",
    "3a1a3bcd1dcb3e1e",
    "A3B|3a1a333AB33133b1b",
    "AB33133C.0*2|33BAC+333.0",
    "0*2.ab1bac1c.0",
    "313ab1ba3c1c.0*2",
]


def one_process(text: str, misere: bool) -> int | bool:
    """What ``--jobs 1`` answers: the nimber (normal play) or the outcome (misère play)."""
    if misere:
        return MisereSolver().outcome(text)
    return NormalSolver().nimber(text)


def on_cluster(backend: ClusterBackend, text: str, misere: bool) -> int | bool:
    with Session(None, cluster=backend, misere=misere, parallel_lives=0) as session:
        session.cluster = backend
        answer = session.outcome(text) if misere else session.nimber(text)
        session.cluster = None  # the backend outlives the session (closed by its owner)
    return answer


# ===================================================================== no Ray
def test_a_job_within_its_budget_comes_back_undecided_with_its_facts() -> None:
    lands, k = position_parts("0*6")
    solver = JobSolver()
    partial = solver.answer(("normal", lands, k), budget=300)
    assert partial.answer is None and partial.facts and partial.nodes >= 300
    assert all(kind in ("nimber", "win") for kind, _, _ in partial.facts)
    whole = answer_job(("normal", lands, k), facts=partial.facts)
    assert whole.answer is False  # 0*6 is a loss
    assert answer_job(("misere", "0*4"), budget=None).answer is False
    detail = answer_job(("position", "0*4", False, True, True)).detail
    children = sorted(Position.from_string("0*4").children())
    winning = [c for c in children if NormalSolver().outcome(c) is False]
    assert detail == {"winning_moves": winning, "children": len(children), "win": True, "nimber": 1}


def test_facts_given_to_a_job_are_learnt_and_facts_are_taken_once() -> None:
    lands, k = position_parts("0*6")
    alone = JobSolver().answer(("normal", lands, k))
    helped = JobSolver()
    helped.give(alone.facts)  # as the driver does while a job runs: read at its next clock check
    again = helped.answer(("normal", lands, k))
    assert again.answer is alone.answer is False and again.nodes < alone.nodes // 4
    solver = JobSolver()
    partial = solver.answer(("normal", lands, k), budget=300)
    assert solver.take_facts() == []  # the result took them all
    rest = solver.answer(("normal", lands, k))
    assert not set(partial.facts) & set(rest.facts)  # each fact travels once


def test_a_worker_is_never_sent_back_its_own_facts() -> None:
    backend = ClusterBackend(InlineRunner(1), budget=150, name="inline")
    assert on_cluster(backend, "0*6", False) == one_process("0*6", False)
    assert backend.stats.jobs_out > 1 and backend.stats.facts_merged > 0
    assert backend.stats.facts_sent == 0


def test_the_trace_is_written_whole_or_not_at_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    backend = ClusterBackend(InlineRunner(2), budget=50, record_trace=True, name="inline")
    on_cluster(backend, "0*5", False)
    path = tmp_path / "trace.jsonl"
    backend.write_trace(str(path))
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(rows) == len(backend.stats.trace) > 1
    path.write_text("the trace of an earlier run\n")

    def full_disk(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("os.replace", full_disk)
    with pytest.raises(OutputError, match="No space left"):
        backend.write_trace(str(path))
    assert path.read_text() == "the trace of an earlier run\n"  # the old file kept whole
    assert [p.name for p in tmp_path.iterdir()] == ["trace.jsonl"]  # no half-written file left


@pytest.mark.parametrize("misere", [False, True])
@pytest.mark.parametrize("budget", [25, 200])
def test_split_search_without_ray_matches_one_process(misere: bool, budget: int) -> None:
    texts = ["0*1", "0*2", "0*3", "0*4", *SAMPLE[:3]]
    backend = ClusterBackend(InlineRunner(3), budget=budget, name="inline")
    for text in texts:
        assert on_cluster(backend, text, misere) == one_process(text, misere), text
    assert backend.stats.jobs_split > 0 and backend.stats.facts_merged > 0


def test_a_cluster_run_leaves_the_table_a_local_run_does(tmp_path: Path) -> None:
    from sprouts_cli.solve.store import Table

    with Table(tmp_path / "cluster.sqlite") as table:
        backend = ClusterBackend(InlineRunner(2), budget=100, name="inline")
        with Session(table, cluster=backend, parallel_lives=0) as session:
            assert session.nimber("0*5") == 1
        table.flush()
        cluster_facts = {land: n for land, n, _ in table.normal_items() if n is not None}
    with Table(tmp_path / "local.sqlite") as table:
        NormalSolver(table).nimber("0*5")
        table.flush()
        local_facts = {land: n for land, n, _ in table.normal_items() if n is not None}
    assert cluster_facts["0*5"] == local_facts["0*5"] == 1
    for land in cluster_facts.keys() & local_facts.keys():  # every fact true: they agree
        assert cluster_facts[land] == local_facts[land], land


def test_missing_ray_is_one_line_naming_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ClusterError, match=r'pip install "sprouts-cli\[cluster\]"'):
        import_ray()
    result = CliRunner().invoke(main, ["solve", "0*3", "--cluster", "ray", "--no-db"])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and 'pip install "sprouts-cli[cluster]"' in lines[0]


def test_address_needs_cluster() -> None:
    result = CliRunner().invoke(main, ["solve", "0*3", "--address", "auto", "--no-db"])
    assert result.exit_code == 2 and "--address is for --cluster ray" in result.output


def test_local_backend_json_names_backend_and_workers() -> None:
    result = CliRunner().invoke(main, ["solve", "0*3", "--jobs", "3", "--json", "--no-db"])
    assert result.exit_code == 0, result.output
    obj = json.loads(result.output.splitlines()[-1])
    assert obj["backend"] == "local" and obj["workers"] == 3


# ======================================================================= Ray
@pytest.fixture(scope="module")
def local_ray():
    """One local Ray of 2 CPUs for the module (started once: it takes seconds)."""
    started = not ray.is_initialized()
    if started:
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        options = {"include_dashboard": False, "log_to_driver": False, "logging_level": "ERROR"}
        # "local": never a cluster left running; workers at this process's priority (as
        # RayRunner starts them: Ray's default of 15 steps nicer starves them on a busy machine)
        ray.init(address="local", num_cpus=2, _system_config={"worker_niceness": 0}, **options)
    yield ray
    if started:
        ray.shutdown()


@pytest.fixture
def ray_backend(local_ray):
    """Two actors on the local Ray (each holds a CPU: closed after each test)."""
    backend = ClusterBackend(RayRunner(workers=2), budget=400)
    yield backend
    backend.close()


@pytest.mark.parametrize("misere", [False, True])
def test_ray_matches_one_process_on_small_starts_and_lands(ray_backend, misere: bool) -> None:
    texts = [f"0*{n}" for n in range(1, 6)] + SAMPLE[3:]
    for text in texts:
        assert on_cluster(ray_backend, text, misere) == one_process(text, misere), text
    assert ray_backend.stats.jobs_done > 0 and ray_backend.stats.facts_received > 0


@pytest.mark.slow
@pytest.mark.parametrize("misere", [False, True])
def test_ray_matches_one_process_on_starts_to_10(ray_backend, misere: bool) -> None:
    for n in range(1, 11):
        text = f"0*{n}"
        assert on_cluster(ray_backend, text, misere) == one_process(text, misere), text


@pytest.mark.slow
@pytest.mark.parametrize("misere", [False, True])
def test_ray_matches_one_process_on_more_lands(ray_backend, misere: bool) -> None:
    for text in SLOW_SAMPLE:
        assert on_cluster(ray_backend, text, misere) == one_process(text, misere), text


def _first_pid(runner: RayRunner) -> int | None:
    """The first actor's process id, or None while it is being restarted."""
    try:
        return runner.pids()[0]
    except Exception:  # Ray's errors for an actor that is not back yet
        return None


def test_a_worker_killed_mid_job_is_retried_and_the_answer_is_unchanged(local_ray) -> None:
    runner = RayRunner(workers=2)
    # Small jobs, so the run is still handing them out when the worker is killed: with the
    # sum search inside df-pn, 0*6 needed too few jobs of 300 nodes for the kill to happen
    # reliably, so the test solves 0*8 (a loss, nimber 0) in jobs of 50 nodes.
    backend = ClusterBackend(runner, budget=50)
    pids = runner.pids()
    killed: list[int] = []

    def kill_one(stats) -> None:
        if not killed and stats.jobs_out - stats.jobs_done >= 2:  # both workers busy
            os.kill(pids[0], signal.SIGKILL)
            killed.append(pids[0])
            # Wait for the new process before the run goes on: on a loaded machine its start
            # took longer than the other worker needed to finish the search alone, and the
            # lost job, retried on it, then never came back.
            end = time.monotonic() + 120
            while _first_pid(runner) in (None, pids[0]) and time.monotonic() < end:
                time.sleep(0.2)

    backend.search.progress = kill_one
    try:
        assert on_cluster(backend, "0*8", False) == 0
        assert killed, "the run ended before a worker could be killed"
        assert backend.stats.retries >= 1  # the job came back from a new process
        assert runner.pids()[0] != pids[0]
    finally:
        backend.close()


def test_cli_cluster_json_and_batches_in_input_order(local_ray) -> None:
    lines = ["0*4", "0*2", "not a position", "0*3+*1", "0*5"]
    result = CliRunner().invoke(
        main, ["solve", "-", "--cluster", "ray", "--json", "--no-db"], input="\n".join(lines) + "\n"
    )
    assert result.exit_code == 2  # the bad line
    rows = [json.loads(line) for line in result.output.splitlines() if line.startswith("{")]
    assert [r["input"] for r in rows] == lines  # one object per line, the refused one in its place
    assert "error" in rows[2]
    rows = rows[:2] + rows[3:]
    assert [r["position"] for r in rows] == ["0*4", "0*2", "0*3+*1", "0*5"]
    assert [r["outcome"] for r in rows] == ["win", "loss", "loss", "win"]
    assert all(r["backend"] == "ray" and r["workers"] == 2 for r in rows)
    assert "line 3" in result.output


def test_cli_cluster_nimber_and_moves_of_one_position(local_ray) -> None:
    args = ["solve", "0*4", "--cluster", "ray", "--nimber", "--moves", "--json", "--no-db"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    obj = json.loads(result.output.splitlines()[-1])
    local = json.loads(
        CliRunner().invoke(main, [*args[:2], *args[4:], "--jobs", "1"]).output.splitlines()[-1]
    )
    assert obj["nimber"] == local["nimber"] == 1
    assert obj["winning_moves"] == local["winning_moves"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_joins_a_cluster_started_with_ray_start(tmp_path: Path) -> None:
    """``ray start --head`` on localhost (started and stopped here), then ``--address``."""
    ray_cli = Path(sys.executable).with_name("ray")
    sprouts = Path(sys.executable).with_name("sprouts")
    port = _free_port()
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    head = subprocess.Popen(
        [
            str(ray_cli),
            "start",
            "--head",
            "--block",
            f"--port={port}",
            "--num-cpus=1",
            "--include-dashboard=false",
            "--node-ip-address=127.0.0.1",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
    )
    try:
        address = f"127.0.0.1:{port}"
        deadline = time.monotonic() + 240  # generous: a loaded 2-core machine starts Ray slowly
        while True:  # the head is up when a client can connect
            probe = subprocess.run(
                [
                    str(sprouts),
                    "solve",
                    "0*5",
                    "--nimber",
                    "--cluster",
                    "ray",
                    "--address",
                    address,
                    "--json",
                    "--no-db",
                ],
                capture_output=True,
                text=True,
                env=env,
                timeout=300,
            )
            if probe.returncode == 0 or time.monotonic() > deadline or head.poll() is not None:
                break
            time.sleep(1)
        assert probe.returncode == 0, probe.stderr
        obj = json.loads(probe.stdout.splitlines()[-1])
        assert obj["nimber"] == 1 and obj["backend"] == "ray" and obj["workers"] == 1
    finally:
        os.killpg(head.pid, signal.SIGTERM)
        try:
            head.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
            head.wait(timeout=10)


def test_no_cluster_at_the_address_is_one_line() -> None:
    port = _free_port()
    result = subprocess.run(
        [
            str(Path(sys.executable).with_name("sprouts")),
            "solve",
            "0*3",
            "--cluster",
            "ray",
            "--address",
            f"127.0.0.1:{port}",
            "--no-db",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ, RAY_USAGE_STATS_ENABLED="0"),
    )
    assert result.returncode == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "cannot join Ray at" in errors[0]


def test_position_from_string_is_what_the_workers_get() -> None:
    p = Position.from_string(SAMPLE[0])
    assert Position.from_string(p.canonical()).canonical() == p.canonical()


def test_sigterm_stops_the_cluster_and_keeps_what_was_proved(tmp_path: Path) -> None:
    """SIGTERM to the driver: exit 130, one line saying what was kept, the facts in the table."""
    import sqlite3

    db = tmp_path / "table.sqlite"
    sprouts = Path(sys.executable).with_name("sprouts")
    run = subprocess.Popen(
        [str(sprouts), "solve", "0*10", "--nimber", "--cluster", "ray", "--jobs", "2", "--db", str(db)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, RAY_USAGE_STATS_ENABLED="0"),
    )  # fmt: skip
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and run.poll() is None:  # until some facts are in the table
        time.sleep(2)
        if db.exists():
            with contextlib.closing(sqlite3.connect(db)) as con, contextlib.suppress(sqlite3.Error):
                if con.execute("SELECT count(*) FROM normal").fetchone()[0] > 0:
                    break
    assert run.poll() is None, "the run ended before it could be stopped"
    run.send_signal(signal.SIGTERM)
    _, errors = run.communicate(timeout=180)
    assert run.returncode == 143, errors  # as for Ctrl-C (130), with SIGTERM's own code
    assert "kept" in errors
    with contextlib.closing(sqlite3.connect(db)) as con:
        assert con.execute("SELECT count(*) FROM normal").fetchone()[0] > 0


class _FakeRay:
    """What ``RayRunner`` calls of Ray, with ``init`` putting in a SIGTERM handler as Ray's does."""

    def __init__(self) -> None:
        self.up = False

    def is_initialized(self) -> bool:
        return self.up

    def init(self, **kwargs: object) -> None:
        signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(signum))
        self.up = True

    def cluster_resources(self) -> dict[str, float]:
        return {"CPU": 1.0}

    def remote(self, **options: object):
        return lambda cls: type("Actor", (), {"remote": staticmethod(lambda: object())})

    def kill(self, actor: object) -> None:
        pass

    def shutdown(self) -> None:
        self.up = False


def test_closing_the_runner_puts_back_the_sigterm_handler_from_before_ray_started(monkeypatch) -> None:
    """Not Ray's handler (it exits with status 15, keeping nothing): a SIGTERM as a run ends still stops."""
    from sprouts_cli.solve.cluster import ray_runner

    monkeypatch.setattr(ray_runner, "import_ray", _FakeRay)

    def ours(signum: int, frame: object) -> None:
        pass

    before = signal.signal(signal.SIGTERM, ours)
    try:
        runner = RayRunner(workers=1)
        assert signal.getsignal(signal.SIGTERM) is ray_runner._sigterm_as_interrupt
        runner.close()
        assert signal.getsignal(signal.SIGTERM) is ours
    finally:
        signal.signal(signal.SIGTERM, before)
