"""The table of solved positions under pressure: a disk that fills while it is written, and
a table or directory that may not be written.  Each gives one line and exit code 2, never a
traceback, and leaves the table sound, with what was committed before kept.

A full disk is injected, not made: SQLite's ``max_page_count`` stops the file from growing
with ``SQLITE_FULL`` ("database or disk is full"), the very error SQLite gives when a
write of the file fails with ``ENOSPC``, through the same code (the transaction given up
inside SQLite).  In worker processes it is set by a ``sitecustomize`` module on their
``PYTHONPATH``.  A read-only place is injected as SQLite's read-only mode (running as root,
as CI may, no directory is read-only); a real read-only directory is tried when not root.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from sprouts_cli.cli import main
from sprouts_cli.errors import TableError
from sprouts_cli.solve.store import Table
from sprouts_cli.solve.workers import WorkerPool

#: A sitecustomize that gives every table a worker opens room for ``SPROUTS_TEST_PAGES`` more pages.
SITECUSTOMIZE = """
import os, sys
if sys.argv[:1] == ["-m"]:  # a worker (python -m sprouts_cli.solve.workers), not the main process
    from sprouts_cli.solve import store
    _setup = store.Table._setup
    def _setup_and_cap(self):
        _setup(self)
        pages = self._db.execute("PRAGMA page_count").fetchone()[0]
        self._db.execute(f"PRAGMA max_page_count = {pages + int(os.environ['SPROUTS_TEST_PAGES'])}")
    store.Table._setup = _setup_and_cap
"""


def cap_pages(monkeypatch: pytest.MonkeyPatch, more: int) -> None:
    """Every table opened from now on may grow by ``more`` pages, then the disk is full."""
    setup = Table._setup

    def setup_and_cap(self: Table) -> None:
        setup(self)
        pages = self._db.execute("PRAGMA page_count").fetchone()[0]
        self._db.execute(f"PRAGMA max_page_count = {pages + more}")

    monkeypatch.setattr(Table, "_setup", setup_and_cap)


def read_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every table opened from now on is opened as a file SQLite may not write."""
    connect = sqlite3.connect

    def connect_read_only(path: str, *args: object, **kwargs: object) -> sqlite3.Connection:
        return connect(f"file:{path}?mode=ro", *args, uri=True, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(sqlite3, "connect", connect_read_only)  # the module store opens its tables with


def sound(path: Path) -> int:
    """The table passes SQLite's integrity check and opens as ours; its count of normal facts."""
    db = sqlite3.connect(path)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        db.close()
    with Table(path) as t:
        return sum(1 for _ in t.normal_items())


def one_line_error(output: str) -> str:
    lines = output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in output, output
    return lines[0]


def test_a_full_disk_keeps_the_error_and_what_was_committed(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    with Table(path) as t:
        t.put_nimber("kept", 3)
    with Table(path, flush_seconds=3600) as t:
        pages = t._db.execute("PRAGMA page_count").fetchone()[0]
        t._db.execute(f"PRAGMA max_page_count = {pages}")
        for i in range(2000):
            t.put_nimber(f"land{i:05d}", i % 7)
        with pytest.raises(
            TableError, match=r"t.sqlite: cannot write the table \(database or disk is full\)"
        ):
            t.flush()  # the full disk, not SQLite's "cannot rollback" after its own rollback
        assert t.get_nimber("kept") == 3 and not t._db.in_transaction
        t._db.execute(f"PRAGMA max_page_count = {pages + 1000}")  # room again: the buffer was kept
        assert t.flush() == 2000
    assert sound(path) == 2001


def test_solve_on_a_full_disk_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "t.sqlite"
    assert CliRunner().invoke(main, ["solve", "0*3", "--db", str(path)]).exit_code == 0
    before = sound(path)
    cap_pages(monkeypatch, 0)
    r = CliRunner().invoke(main, ["solve", "0*7", "--db", str(path), "--jobs", "1"])
    assert r.exit_code == 2
    assert one_line_error(r.output) == f"error: {path}: cannot write the table (database or disk is full)"
    assert sound(path) >= before and sorted(p.name for p in tmp_path.iterdir()) == ["t.sqlite"]


def worker_site(tmp_path: Path, pages: int) -> dict[str, str]:
    """The environment of worker processes whose tables may grow by ``pages`` pages."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)
    return {"PYTHONPATH": path, "SPROUTS_TEST_PAGES": str(pages)}


def test_a_worker_on_a_full_disk_reports_the_table_error(tmp_path: Path, monkeypatch) -> None:
    for name, value in worker_site(tmp_path, 0).items():
        monkeypatch.setenv(name, value)
    path = tmp_path / "t.sqlite"
    Table(path).close()
    with WorkerPool(1, path) as pool, pytest.raises(TableError) as error:
        pool.answer([("normal", ("0*6",), 0)])
    assert str(error.value) == f"{path}: cannot write the table (database or disk is full)"
    sound(path)


@pytest.mark.slow
def test_solve_with_workers_on_a_full_disk_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    r = subprocess.run(
        [sys.executable, "-m", "sprouts_cli", "solve", "0*7", "--db", str(path), "--jobs", "2"],
        capture_output=True, text=True, env={**os.environ, **worker_site(tmp_path, 1)}, timeout=600,
    )  # fmt: skip
    assert r.returncode == 2 and r.stdout == ""
    assert one_line_error(r.stderr) == f"error: {path}: cannot write the table (database or disk is full)"
    sound(path)  # what the workers committed before is whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site", "t.sqlite"]


def test_a_table_that_may_not_be_written_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "t.sqlite"
    assert CliRunner().invoke(main, ["solve", "0*3", "--db", str(path)]).exit_code == 0
    before = sound(path)
    with monkeypatch.context() as m:
        read_only(m)
        r = CliRunner().invoke(main, ["solve", "0*6", "--db", str(path), "--jobs", "1"])
        assert r.exit_code == 2
        line = one_line_error(r.output)
        assert line == f"error: {path}: cannot write the table (attempt to write a readonly database)"
        r = CliRunner().invoke(main, ["solve", "0*3", "--db", str(tmp_path / "new.sqlite")])
        assert r.exit_code == 2
        line = one_line_error(r.output)
        assert line.startswith(f"error: {tmp_path / 'new.sqlite'}: cannot write the table: ")
        assert "unable to open database file" in line
    assert sound(path) == before and sorted(p.name for p in tmp_path.iterdir()) == ["t.sqlite"]


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root writes read-only directories"
)
def test_a_read_only_directory_is_named(tmp_path: Path) -> None:
    closed = tmp_path / "closed"
    closed.mkdir()
    closed.chmod(0o555)
    try:
        r = CliRunner().invoke(main, ["solve", "0*3", "--db", str(closed / "t.sqlite")])
        assert r.exit_code == 2
        assert f"the directory {str(closed)!r} is read-only" in one_line_error(r.output)
        assert not list(closed.iterdir())
    finally:
        closed.chmod(0o755)


def test_an_export_onto_a_full_disk_leaves_the_old_file(tmp_path: Path, monkeypatch) -> None:
    path, out = tmp_path / "t.sqlite", tmp_path / "facts.spr"
    assert CliRunner().invoke(main, ["solve", "0*4", "--db", str(path), "--export", str(out)]).exit_code == 0
    old = out.read_bytes()
    write_text = Path.write_text

    def half_then_full(self: Path, text: str, *args: object, **kwargs: object) -> int:
        write_text(self, text[: len(text) // 2], *args, **kwargs)  # type: ignore[arg-type]
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(Path, "write_text", half_then_full)
    r = CliRunner().invoke(main, ["solve", "--db", str(path), "--export", str(out)])
    assert r.exit_code == 2
    assert one_line_error(r.output) == f"error: {out}: cannot write ({os.strerror(errno.ENOSPC)})"
    assert out.read_bytes() == old and sorted(p.name for p in tmp_path.iterdir()) == ["facts.spr", "t.sqlite"]
