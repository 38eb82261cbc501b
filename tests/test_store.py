"""The table of solved positions: facts survive, several writers are safe, a kill corrupts nothing."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sqlite3
import time

import pytest

from sprouts_cli.errors import TableError
from sprouts_cli.solve.store import SCHEMA_VERSION, Table, default_path, open_table


def test_facts_are_kept_across_openings(tmp_path) -> None:
    path = tmp_path / "t.sqlite"
    with Table(path) as t:
        t.put_nimber("0*3", 1)
        t.put_win("0*4", 0)
        t.put_win("0*4", 2)
        t.put_misere("0*2", "tree text")
        t.put_misere_outcome("0*5", True)
        assert t.get_normal("0*4") == (None, 0b101)  # buffered facts are seen at once
    with Table(path) as t:
        assert t.get_nimber("0*3") == 1
        assert t.get_normal("0*4") == (None, 0b101)
        assert t.get_normal("0*9") is None
        assert t.get_misere("0*2") == "tree text"
        assert t.get_misere_outcome("0*5") is True
        assert t.get_misere_outcome("0*6") is None
        t.put_nimber("0*4", 1)
    with Table(path) as t:
        assert t.get_normal("0*4") == (1, 0b101)
        assert t.counts()["nimbers"] == 2


def test_win_masks_merge_and_a_nimber_is_never_forgotten(tmp_path) -> None:
    path = tmp_path / "t.sqlite"
    with Table(path) as a, Table(path) as b:
        a.put_nimber("1a1a", 2)
        a.flush()
        b.put_win("1a1a", 0)
        b.flush()
    with Table(path) as t:
        assert t.get_normal("1a1a") == (2, 1)


def _writer(path: str, start: int, count: int) -> None:
    t = Table(path, flush_seconds=0.0)
    for i in range(start, start + count):
        t.put_nimber(f"land{i}", i % 7)
    t.close()


def test_several_processes_write_at_once(tmp_path) -> None:
    path = str(tmp_path / "t.sqlite")
    Table(path).close()
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(path, 1000 * w, 300)) for w in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    with Table(path) as t:
        assert t.counts()["nimbers"] == 900
        assert t.get_nimber("land2005") == 2005 % 7


def _endless_writer(path: str, ready) -> None:
    t = Table(path, flush_seconds=0.0)
    i = 0
    while True:
        t.put_nimber(f"land{i}", i % 5)
        i += 1
        if i == 50:
            ready.set()


def test_a_killed_writer_leaves_a_sound_table(tmp_path) -> None:
    path = str(tmp_path / "t.sqlite")
    Table(path).close()
    ctx = mp.get_context("spawn")
    ready = ctx.Event()
    p = ctx.Process(target=_endless_writer, args=(path, ready))
    p.start()
    assert ready.wait(60)
    time.sleep(0.3)
    os.kill(p.pid, signal.SIGKILL)
    p.join(10)
    with Table(path) as t:
        assert t._db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        n = t.counts()["nimbers"]
        assert n >= 50
        for i in range(n):  # everything committed is there, in order, and true
            assert t.get_nimber(f"land{i}") == i % 5


def test_a_file_that_is_not_a_table_is_refused(tmp_path) -> None:
    path = tmp_path / "junk.sqlite"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(TableError, match="not a usable table"):
        Table(path)


def test_a_table_of_another_layout_is_refused(tmp_path) -> None:
    path = tmp_path / "t.sqlite"
    Table(path).close()
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (str(SCHEMA_VERSION + 1),))
    db.commit()
    db.close()
    with pytest.raises(TableError, match="layout version"):
        Table(path)


def test_old_keys_are_rekeyed(tmp_path) -> None:
    path = tmp_path / "t.sqlite"
    Table(path).close()
    db = sqlite3.connect(path)
    db.execute("INSERT INTO normal VALUES ('0.0.0.}]!', 1, 0)")  # a GLOP 1 string, not our key
    db.execute("UPDATE meta SET value = '0' WHERE key = 'keys'")
    db.commit()
    db.close()
    with Table(path) as t:
        assert t.get_nimber("0*3") == 1


def test_default_path_is_in_the_data_directory(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert default_path() == tmp_path / "data" / "sprouts" / "solved.sqlite"
    assert open_table(None, use_db=False) is None


class _CountingConnection:
    """An SQLite connection that counts the SELECTs made through it."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.selects: list[str] = []

    def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
        if sql.lstrip().upper().startswith("SELECT"):
            self.selects.append(sql)
        return self.db.execute(sql, *args)

    def __getattr__(self, name: str) -> object:
        return getattr(self.db, name)


def _counted(t: Table) -> _CountingConnection:
    counting = _CountingConnection(t._db)
    t._db = counting  # type: ignore[assignment]
    return counting


def test_a_misere_miss_makes_no_query_once_the_keys_are_read(tmp_path) -> None:
    path = tmp_path / "t.sqlite"
    with Table(path) as t:
        t.put_misere("0*2", "tree text")
        t.put_misere_outcome("0*5", True)
    with Table(path) as t:
        db = _counted(t)
        assert t.get_misere("0*3") is None  # the first lookup reads the keys: one SELECT a table
        first = len(db.selects)
        assert 1 <= first <= 4 and all("WHERE" not in q for q in db.selects)
        for land in ["0*3", "0*4", "0*6", "1a1a"]:
            assert t.get_misere(land) is None
            assert t.get_misere_outcome(land) is None
        assert len(db.selects) == first  # misses: no query
        assert t.queries == 0
        assert t.get_misere("0*2") == "tree text" and t.get_misere_outcome("0*5") is True
        assert len(db.selects) == first + 2 and t.queries == 2  # hits are read from the file
        # what this process writes is held too: found once committed, with no refresh
        t.put_misere("0*3", "another tree")
        t.put_misere_outcome("0*3", False)
        t.flush()
        assert t.get_misere("0*3") == "another tree" and t.get_misere_outcome("0*3") is False
        assert t.key_count() == 4


def test_a_misere_fact_another_connection_writes_is_seen_after_a_refresh(tmp_path, monkeypatch) -> None:
    path = tmp_path / "t.sqlite"
    with Table(path) as reader, Table(path) as writer:
        assert reader.get_misere("0*2") is None and reader.get_misere_outcome("0*4") is None
        assert not reader.refresh_keys(force=True)  # nobody wrote: the keys are not read again
        writer.put_misere("0*2", "tree text")
        writer.put_misere_outcome("0*4", False)
        writer.flush()
        assert reader.get_misere("0*2") is None  # not seen before a refresh
        assert reader.get_misere_outcome("0*4") is None
        monkeypatch.setattr("sprouts_cli.solve.store.RESCAN_FACTOR", 1e9)
        assert not reader.refresh_keys()  # too soon after the last reading
        monkeypatch.setattr("sprouts_cli.solve.store.RESCAN_FACTOR", 0)
        assert reader.refresh_keys()
        assert reader.get_misere("0*2") == "tree text"
        assert reader.get_misere_outcome("0*4") is False
        # imported facts too, read only when the reader uses them
        writer.importing = True
        writer.put_misere("0*3", "imported tree")
        writer.put_misere_outcome("0*3", True)
        writer.flush()
        assert reader.refresh_keys()
        assert reader.get_misere("0*3") == "imported tree" and reader.get_misere_outcome("0*3") is True
        reader.use_imports = False
        assert reader.get_misere("0*3") is None and reader.get_misere_outcome("0*3") is None
