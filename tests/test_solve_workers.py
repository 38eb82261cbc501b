"""``--jobs``: the same answers for any number of threads or workers; Ctrl-C keeps what was proved."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from brute import brute_misere_win, brute_nimber

from sprouts_cli.engine import Position
from sprouts_cli.solve.compiled import CompiledNormalSolver, compiled_available
from sprouts_cli.solve.session import Session, _root_or_children_decide
from sprouts_cli.solve.store import Table
from sprouts_cli.solve.workers import WorkerPool

POSITIONS = ["0*4", "0.1a1a.AB|AB", "0*2.AB|0*2.AB", "0*3+*1", "1a1a+0.12", "0*2.1a1a"]


def answers(session: Session) -> list[tuple]:
    out = []
    for text in POSITIONS:
        out.append((session.outcome(text), session.nimber(text), session.child_outcomes(text)))
    return out


def test_two_workers_give_the_same_answers_as_one(tmp_path) -> None:
    with Table(tmp_path / "one.sqlite") as t1, Session(t1, jobs=1) as one:
        expected = answers(one)
    with Table(tmp_path / "two.sqlite") as t2, Session(t2, jobs=2, parallel_lives=8, threads=False) as two:
        assert answers(two) == expected
        assert two._pool is not None  # the workers were used
        assert two.parallelism == "processes"
        assert two.counters().positions_solved > 0
    for text, (win, nimber, children) in zip(POSITIONS, expected, strict=True):
        p = Position.from_string(text)
        if p.total_lives <= 12:
            assert nimber == brute_nimber(p.canonical()), text
        assert win == (nimber != 0) == any(not w for _, w in children)


def test_workers_without_a_table_use_a_temporary_one() -> None:
    with Session(None, jobs=2, parallel_lives=8, threads=False) as s:
        assert s.outcome("0*5") is True
        tmp = s._tmpdir
        assert tmp is not None and os.path.isdir(tmp)
    assert not os.path.exists(tmp)


@pytest.mark.skipif(not compiled_available(), reason="threads run the compiled core (numba)")
@pytest.mark.parametrize("jobs", [2, 4])
@pytest.mark.parametrize("with_table", [False, True])
def test_threads_give_the_answers_of_one_search(jobs: int, with_table: bool, tmp_path) -> None:
    """Normal play's jobs are threads of one compiled search in this process (no workers,
    no temporary table): the answers of ``--jobs 1`` on the starts to ``0*10`` and on lands."""
    texts = [f"0*{n}" for n in range(1, 11)] + POSITIONS
    with Session(None, jobs=1) as one:
        want = [(one.outcome(t), one.nimber(t)) for t in texts]
    table = Table(tmp_path / "t.sqlite") if with_table else None
    try:
        with Session(table, jobs=jobs, parallel_lives=8) as many:
            assert many.parallelism == "threads"
            assert isinstance(many.normal, CompiledNormalSolver) and many.normal.threads == jobs
            many.normal.compile_lives = 0  # every question on the core, where the threads are
            assert [(many.outcome(t), many.nimber(t)) for t in texts] == want
            assert many.child_outcomes("0*4") == [(c, w) for c, w in one_children("0*4")]
            assert many._pool is None and many._tmpdir is None
    finally:
        if table is not None:
            table.close()
    assert [w for w, _ in want[:10]] == [n % 6 in (3, 4, 5) for n in range(1, 11)]


def one_children(text: str) -> list[tuple[str, bool]]:
    with Session(None, jobs=1) as one:
        return one.child_outcomes(text)


def test_misere_on_workers_matches_brute_force(tmp_path) -> None:
    with Table(tmp_path / "t.sqlite") as t, Session(t, jobs=2, misere=True, parallel_lives=6) as s:
        for text in ["0*3", "0*2.AB|AB", "0.1a1a", "0*4"]:
            key = Position.from_string(text).canonical()
            assert s.outcome(text) is brute_misere_win(key), text


def test_misere_on_workers_answers_as_one_process_does() -> None:
    """The first worker takes the whole position, the others its children from the other
    end; the answers are those of one process, for wins and losses."""
    texts = ["0*4", "0*5", "0*2.AB|AB", "0*3.AB|AB"]
    with Session(None, jobs=1, misere=True) as one:
        want = [one.outcome(t) for t in texts]
    assert True in want and False in want
    with Session(None, jobs=2, misere=True, parallel_lives=6) as s:
        assert [s.outcome(t) for t in texts] == want


def test_the_root_or_its_children_decide() -> None:
    decides = _root_or_children_decide(2)
    assert decides(2, True) is False  # one child of two proved a win: not settled
    assert decides(1, True) is True  # every child a win: the root is lost
    assert _root_or_children_decide(3)(3, False) is True  # a lost child: the root wins
    assert _root_or_children_decide(3)(0, False) is True  # the root's own answer


def test_the_pool_stops_at_the_first_loss(tmp_path) -> None:
    Table(tmp_path / "t.sqlite").close()
    with WorkerPool(2, tmp_path / "t.sqlite") as pool:
        qs = [
            ("normal", ("0*3",), 1),
            ("normal", ("0*6",), 0),
            ("normal", ("0*4",), 0),
            ("normal", ("0*9",), 1),
        ]
        got = pool.answer(qs, stop_at_loss=True)
        assert got.get(0) is False  # 0*3 has nimber 1
        assert 3 not in got  # never asked: the answer was known
        all_answers = pool.answer(qs[:3])
        assert all_answers == {0: False, 1: False, 2: True}


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a process group")
def test_ctrl_c_stops_cleanly_and_keeps_what_was_proved(tmp_path) -> None:
    db = tmp_path / "t.sqlite"
    proc = subprocess.Popen(
        [sys.executable, "-m", "sprouts_cli", "solve", "0*14", "--jobs", "2", "--db", str(db), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # ignored in a background job
    )
    time.sleep(6)
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal does: the whole group gets it
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert out == ""
    with Table(db) as t:
        assert t._db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        counts = t.counts()
        assert counts["nimbers"] + counts["lands_with_wins_only"] > 0
    row = subprocess.run(
        [sys.executable, "-m", "sprouts_cli", "solve", "0*4", "--db", str(db), "--json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert json.loads(row)["outcome"] == "win"


def test_messages_that_arrive_together_are_all_read() -> None:
    # a buffered read could pull the second message out of select's sight: the pool hung
    from sprouts_cli.solve.workers import _send, _Worker

    r, w = os.pipe()
    worker = _Worker.__new__(_Worker)
    worker.stdout = os.fdopen(r, "rb")
    worker._inbox = bytearray()
    with os.fdopen(w, "wb") as out:
        _send(out, ("stats", None, None, {}))
        _send(out, ("done", 7, True, {"cpu_ms": 1}))
        assert [m[0] for m in worker.receive()] == ["stats", "done"]
    assert worker.receive() is None  # the worker's end is closed


def test_a_stop_asked_before_the_worker_started_waits_for_it(tmp_path) -> None:
    Table(tmp_path / "t.sqlite").close()
    with WorkerPool(1, tmp_path / "t.sqlite") as pool:
        (w,) = pool._workers.values()
        w.ask(0, 0, ("normal", ("0*3",), 0))
        w.stop()  # not started yet: noted, not signalled (the worker would forget it)
        assert w.stop_pending and not w.started
        while not w.started:
            for worker, msg in pool._messages():
                if msg[0] == "started":
                    worker.on_started(msg[1])
        assert w.started
        while w.task is not None:  # stopped or done, but answered either way
            for _, msg in pool._messages():
                if msg[0] in ("done", "stopped"):
                    w.task = None


def test_a_misere_worker_stops_when_asked(tmp_path) -> None:
    # the root decided, a worker's misère search is no longer needed: it stops, keeping its facts
    Table(tmp_path / "t.sqlite").close()
    with WorkerPool(1, tmp_path / "t.sqlite") as pool:
        (w,) = pool._workers.values()
        w.ask(0, 0, ("misere", "0*12"))  # minutes of search
        while not w.started:
            for worker, msg in pool._messages():
                if msg[0] == "started":
                    worker.on_started(msg[1])
        time.sleep(1.0)
        w.stop()
        end = time.monotonic() + 30
        kinds: list[str] = []
        while "stopped" not in kinds and time.monotonic() < end:
            kinds += [msg[0] for _, msg in pool._messages()]
        assert "stopped" in kinds


def test_a_misere_worker_reports_what_it_proved_while_it_searches(tmp_path) -> None:
    # the progress line and "N facts proved were kept" on Ctrl-C read these reports
    Table(tmp_path / "t.sqlite").close()
    with WorkerPool(1, tmp_path / "t.sqlite") as pool:
        (w,) = pool._workers.values()
        w.ask(0, 0, ("misere", "0*12"))
        end = time.monotonic() + 60
        solved = 0
        while not solved and time.monotonic() < end:
            for worker, msg in pool._messages():
                if msg[0] == "started":
                    worker.on_started(msg[1])
                elif msg[0] == "stats":
                    solved = msg[3].get("positions_solved", 0)
        assert solved > 0
        w.stop()


def test_a_ctrl_c_while_kernels_load_is_raised_when_they_are_loaded() -> None:
    # numba drops a KeyboardInterrupt raised inside its C code: the pool holds it instead
    from sprouts_cli.solve.workers import ctrl_c_held

    steps = []
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # ignored when run as a background job
    with pytest.raises(KeyboardInterrupt), ctrl_c_held():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)  # the handler has run by now; nothing was raised inside the block
        steps.append("loaded")
    assert steps == ["loaded"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    signal.signal(signal.SIGINT, before)
