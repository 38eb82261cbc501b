"""A killed solve leaves no worker behind, a sound table, and what it proved.

The solve is ended by SIGTERM, SIGINT, SIGHUP and SIGKILL of the main process; its workers
must be gone within a few seconds every time (SIGKILL cannot be caught: the workers
notice by themselves), the table must pass ``PRAGMA integrity_check``, and a rerun
on the same table must give the right answer.  Worker processes are what ``--jobs``
runs on the plain-Python reference (``SPROUTS_COMPILED_SEARCH=0``); on the compiled
core normal play runs threads, which a signal stops in the same clean way.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from signal_helpers import stop_signals_as_at_a_terminal

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds processes through /proc")


def workers_of(db: Path) -> list[int]:
    """The pids of live solve workers sharing the table ``db``."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if b"sprouts_cli.solve.workers" in cmd and str(db).encode() in cmd and state != "Z":
            pids.append(int(entry.name))
    return pids


def solve(db: Path, *args: str, workers: bool = True) -> subprocess.Popen:
    """``sprouts solve ARGS --db DB``: on worker processes (the reference's ``--jobs``), or on
    the compiled core's threads."""
    env = dict(os.environ, SPROUTS_COMPILED_SEARCH="0" if workers else "1")
    return subprocess.Popen(
        [sys.executable, "-m", "sprouts_cli", "solve", *args, "--db", str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=stop_signals_as_at_a_terminal,
    )


def normal_facts(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=5) as con:
            return int(con.execute("SELECT count(*) FROM normal").fetchone()[0])
    except sqlite3.Error:  # not made yet
        return 0


def stopped_by(proc: subprocess.Popen, sig: signal.Signals, ready: Callable[[], bool], why: str) -> str:
    """Send ``sig`` to a solve once ``ready()``, while it still runs; its stderr."""
    try:
        assert ready(), why
        assert proc.poll() is None, "the solve finished before it could be stopped"
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return str(err)


def wait_for(condition, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


@pytest.mark.parametrize(
    "sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGKILL], ids=lambda s: s.name
)
def test_a_killed_solve_leaves_no_worker_and_a_sound_table(sig: signal.Signals, tmp_path: Path) -> None:
    db = tmp_path / "table.sqlite"
    proc = solve(db, "0*11", "--jobs", "2")

    def started() -> bool:
        if not wait_for(lambda: len(workers_of(db)) == 2, 60):
            return False
        time.sleep(1.0)  # let them prove something
        return True

    err = stopped_by(proc, sig, started, "the workers never started")
    assert wait_for(lambda: not workers_of(db), 5), f"workers left after {sig.name}: {workers_of(db)}"
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    if sig == signal.SIGTERM:
        assert proc.returncode == 143 and "terminated" in err
    elif sig == signal.SIGHUP:  # the terminal went away: as SIGTERM, with SIGHUP's own code
        assert proc.returncode == 129 and "terminated" in err
    elif sig == signal.SIGINT:
        assert proc.returncode == 130 and "interrupted" in err
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    if sig != signal.SIGKILL:  # a clean stop keeps what was proved
        with sqlite3.connect(db) as con:
            assert con.execute("SELECT count(*) FROM normal").fetchone()[0] > 0


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=lambda s: s.name)
def test_a_signal_stops_the_threads_of_a_solve_cleanly(sig: signal.Signals, tmp_path: Path) -> None:
    """Normal play's ``--jobs 2`` on the compiled core: two threads in one process; a signal
    while they search ends it with its exit code and one line, keeping what was proved."""
    pytest.importorskip("numba")
    # the core compiled first (a cold numba cache takes minutes), so that the wait below is the search's
    warm = [sys.executable, "-m", "sprouts_cli", "solve", "0*10", "--no-db", "--jobs", "1"]
    subprocess.run(warm, capture_output=True, timeout=1800, check=True)
    db = tmp_path / "table.sqlite"
    proc = solve(db, "0*13", "--jobs", "2", workers=False)

    def proved() -> bool:
        return wait_for(lambda: normal_facts(db) > 0 or proc.poll() is not None, 300)

    err = stopped_by(proc, sig, proved, "nothing was proved")
    assert not workers_of(db)  # threads, not worker processes
    assert "Traceback" not in err, err
    assert proc.returncode == 128 + sig, err
    assert len(err.strip().splitlines()) == 1, err
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert normal_facts(db) > 0


@pytest.mark.slow
def test_a_rerun_after_every_kind_of_kill_gives_the_right_answer(tmp_path: Path) -> None:
    db = tmp_path / "table.sqlite"
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGKILL):
        proc = solve(db, "0*11", "--jobs", "2")
        assert wait_for(lambda: len(workers_of(db)) == 2, 60)
        time.sleep(2.0)
        proc.send_signal(sig)
        proc.communicate(timeout=60)
        assert wait_for(lambda: not workers_of(db), 5)
    done = subprocess.run(
        [sys.executable, "-m", "sprouts_cli", "solve", "0*11", "--jobs", "2", "--db", str(db), "--json"],
        capture_output=True,
        text=True,
        timeout=900,
        env=dict(os.environ, SPROUTS_COMPILED_SEARCH="0"),
    )
    assert done.returncode == 0, done.stderr
    assert '"outcome": "win"' in done.stdout  # 0*11 is a first-player win (Applegate, Jacobson, Sleator)
    assert not workers_of(db)


def test_a_pool_worker_ends_with_its_parent_even_after_sigkill(tmp_path: Path) -> None:
    """The ProcessPoolExecutor pools (players, layout) use ``procs.pool_initializer``."""
    script = tmp_path / "pool.py"
    marker = tmp_path / "worker.pid"
    script.write_text(
        "import os, sys, time\n"
        "from concurrent.futures import ProcessPoolExecutor\n"
        "from sprouts_cli.procs import pool_initializer\n"
        "def work(path):\n"
        "    open(path, 'w').write(str(os.getpid()))\n"
        "    time.sleep(600)\n"
        "if __name__ == '__main__':\n"
        "    ex = ProcessPoolExecutor(1, initializer=pool_initializer, initargs=(os.getpid(),))\n"
        "    ex.submit(work, sys.argv[1])\n"
        "    time.sleep(600)\n"
    )
    parent = subprocess.Popen([sys.executable, str(script), str(marker)], stderr=subprocess.PIPE, text=True)
    try:
        assert wait_for(lambda: marker.exists() and marker.read_text() != "", 60)
        worker = int(marker.read_text())
        parent.kill()
        _, err = parent.communicate(timeout=10)
    finally:
        if parent.poll() is None:
            parent.kill()

    def gone() -> bool:
        try:
            state = Path(f"/proc/{worker}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        return state == "Z"

    assert wait_for(gone, 5), "the pool worker outlived its parent"
    assert "Traceback" not in err
