"""A killed solve leaves no worker behind, a sound table, and what it proved.

The solve is ended by SIGTERM, SIGINT and SIGKILL of the main process; its workers
must be gone within a few seconds every time (SIGKILL cannot be caught: the workers
notice by themselves), the table must pass ``PRAGMA integrity_check``, and a rerun
on the same table must give the right answer.
"""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

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


def solve(db: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "sprouts_cli", "solve", *args, "--db", str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_default_sigint,  # a shell's background job would pass SIGINT on ignored
    )


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def wait_for(condition, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL], ids=lambda s: s.name)
def test_a_killed_solve_leaves_no_worker_and_a_sound_table(sig: signal.Signals, tmp_path: Path) -> None:
    db = tmp_path / "table.sqlite"
    proc = solve(db, "0*11", "--jobs", "2")
    try:
        assert wait_for(lambda: len(workers_of(db)) == 2, 60), "the workers never started"
        time.sleep(1.0)  # let them prove something
        assert proc.poll() is None, "0*11 finished before it could be killed"
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert wait_for(lambda: not workers_of(db), 5), f"workers left after {sig.name}: {workers_of(db)}"
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    if sig == signal.SIGTERM:
        assert proc.returncode == 143 and "terminated" in err
    elif sig == signal.SIGINT:
        assert proc.returncode == 130 and "interrupted" in err
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    if sig != signal.SIGKILL:  # a clean stop keeps what was proved
        with sqlite3.connect(db) as con:
            assert con.execute("SELECT count(*) FROM normal").fetchone()[0] > 0


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
