"""The table of solved positions: an SQLite file that keeps what the solvers proved.

Normal play keeps, per land (its reduced form, ``engine/reduce.py``), its nimber when
known and the heaps ``k`` for which "land + *k" is proved a win for the player to move
(a bit mask; a proved *loss* of land + *k is its nimber, k).  Misère play keeps, per
land, its misère canonical tree as text (``misere_trees.TreeStore.to_text``) and the
misère outcomes of searched positions.

Why it is safe:

* The file is in WAL mode: readers never block the writer, and a commit is atomic, so a
  run that is killed (even with SIGKILL) leaves every committed fact and nothing half
  written.  ``synchronous=NORMAL`` is enough for that (it only gives up durability of
  the last commits against a power cut, never consistency).
* Several worker processes may write at once: each write is one short transaction
  (``BEGIN IMMEDIATE``), and a busy file is waited for (``busy_timeout``) and retried.
* Facts are kept in a small buffer and committed together at most ``flush_seconds``
  after they were proved (and at every ``flush()``/``close()``), so proving thousands of
  small facts a second does not cost a commit each.
* The file is marked as ours (SQLite ``application_id`` and ``user_version``); a file
  of another program, or one that is damaged, is refused with one line, and no table
  is ever added to a file that is not ours.
* Imported facts (``--import``: another program's database, not proved here) are kept
  apart from proved ones, in the ``imported_*`` tables.  The solvers read them only
  when asked to trust them (``use_imports``); a lookup they answer is counted
  (``imported_used``), and from then on whatever this process proves rests on them and
  is written to the imported tables too.  ``sprouts solve --verify-table`` proves them
  again and moves the right ones over.
* A misère lookup is made in a search for every land and lone-land state it meets, and
  most of them miss: the table keeps the hashes of the misère keys it holds in memory
  (read once, at the first misère lookup; kept up to date with what this process
  writes; read again by ``refresh_keys`` when another process has written), so a key
  not among them is a miss without a query.  A key written by another process is seen
  after the next ``refresh_keys``, as a land asked for before its refresh is.
* Every fact is a true statement about the position its key names: a key is a
  position string, so even a table written by an older canonical form holds only true
  facts (they are just not found under the new keys).  The canonical form's version is
  kept in ``meta`` and an old table is re-keyed on opening (``rekey``).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import TableError

if TYPE_CHECKING:  # sqlite3 is imported where a table is opened: a solve with --no-db loads none of it
    import sqlite3

#: Version of the table's layout; a table with another version is refused.
SCHEMA_VERSION = 1
#: Version of the reduced form used for keys (bump when ``engine/reduce.py`` changes keys).
KEY_VERSION = 1
#: The largest heap whose "land + *k is a win" fact fits the bit mask (SQLite integers are 64-bit).
MAX_MASK_HEAP = 62
#: Marks our files (SQLite ``PRAGMA application_id``): "Sprt".
APPLICATION_ID = 0x53707274
#: A rescan of the misère keys after another process wrote waits at least this many times as
#: long as the last scan took (``Table.refresh_keys``): a large table is not read whole every second.
RESCAN_FACTOR = 20
#: The misère tables whose keys a table keeps in memory (``Table.refresh_keys``), and their key columns.
MISERE_KEYED = {
    "misere": "land",
    "misere_outcome": "position",
    "imported_misere": "land",
    "imported_misere_outcome": "position",
}
#: The tables of our files; a file holding others belongs to another program.
OUR_TABLES = frozenset(
    {"meta", "normal", "misere", "misere_outcome"}
    | {"imported_normal", "imported_misere", "imported_misere_outcome"}
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS normal (
    land TEXT PRIMARY KEY,      -- reduced form of one land
    nimber INTEGER,             -- NULL while unknown
    wins INTEGER NOT NULL DEFAULT 0  -- bit k set: land + *k is a win for the player to move
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS misere (
    land TEXT PRIMARY KEY,      -- reduced form of one land
    tree TEXT NOT NULL          -- its misère canonical tree (TreeStore.to_text)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS misere_outcome (
    position TEXT PRIMARY KEY,  -- reduced form of a position
    win INTEGER NOT NULL        -- 1: a misère win for the player to move
) WITHOUT ROWID;
-- the same, for facts imported from other programs' databases (not proved here)
CREATE TABLE IF NOT EXISTS imported_normal (
    land TEXT PRIMARY KEY, nimber INTEGER, wins INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS imported_misere (land TEXT PRIMARY KEY, tree TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS imported_misere_outcome (
    position TEXT PRIMARY KEY, win INTEGER NOT NULL
) WITHOUT ROWID;
"""


TABLE_NAME = "solved.sqlite"


def default_path() -> Path:
    """Where the table lives unless ``--db`` says otherwise: the user's data directory.

    Proofs are not a cache (a cache may be cleared at any time), so the table lives in
    the data directory.  Versions before it kept the table in the cache directory: a
    table found there when the data directory has none is copied over first
    (``migrate_table``), so what was proved is still read.
    """
    from platformdirs import user_cache_dir, user_data_dir

    path = Path(user_data_dir("sprouts", appauthor=False)) / TABLE_NAME
    migrate_table(Path(user_cache_dir("sprouts", appauthor=False)) / TABLE_NAME, path)
    return path


def migrate_table(old: Path, new: Path) -> bool:
    """Copy the table at ``old`` to ``new`` when only the old one exists; True if copied.

    SQLite's backup API copies a consistent snapshot even while another process
    writes the old table; the copy is written beside ``new`` and renamed, so a run
    killed half way leaves no half table.  The old file is left where it was.
    """
    if new.exists() or not old.is_file():
        return False
    import sqlite3
    new.parent.mkdir(parents=True, exist_ok=True)
    partial = new.with_name(f".{new.name}.{os.getpid()}.partial")
    try:
        source = sqlite3.connect(f"file:{old}?mode=ro", uri=True)
        try:
            target = sqlite3.connect(str(partial))
            try:
                source.backup(target)
            finally:
                target.close()
        finally:
            source.close()
        os.replace(partial, new)
    except (sqlite3.Error, OSError):
        partial.unlink(missing_ok=True)
        return False  # an unreadable old table is not copied; a fresh table is made
    return True


class Table:
    """A table of solved positions in one SQLite file, shared safely by several processes.

    ``Table(path)`` creates the file when it does not exist.  Reads see what any process
    has committed.  Writes are buffered for at most ``flush_seconds``.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        flush_seconds: float = 0.5,
        timeout: float = 60.0,
        create_directory: bool = False,
        use_imports: bool = True,
        importing: bool = False,
    ):
        self.path = Path(path)
        self.flush_seconds = flush_seconds
        self.use_imports = use_imports  # read imported facts too (they are not proved here)
        self.importing = importing  # write into the imported tables (``--import``)
        self.imported_used = 0  # lookups answered (in part) by imported facts
        self._lock = threading.RLock()
        self._pending_normal: dict[str, tuple[int | None, int]] = {}
        self._pending_tree: dict[str, str] = {}
        self._pending_outcome: dict[str, int] = {}
        self._imported_normal: dict[str, tuple[int | None, int]] = {}
        self._imported_tree: dict[str, str] = {}
        self._imported_outcome: dict[str, int] = {}
        self._last_flush = time.monotonic()
        #: Hashes of the keys each misère table holds (``MISERE_KEYED``); None until the first
        #: misère lookup reads them (a normal-play solve never does).
        self._keys: dict[str, set[int]] | None = None
        self._keys_version = -1  # ``PRAGMA data_version`` when the keys were read
        self._keys_seconds = 0.0  # how long that reading took
        self._keys_read_at = 0.0
        self.reads = 0
        self.queries = 0  # SELECTs made by lookups (a miss told by the keys makes none)
        self.hits = 0
        self.written = 0
        import sqlite3

        try:
            if create_directory:  # the default place in the cache; a --db path's directory must exist
                self.path.parent.mkdir(parents=True, exist_ok=True)
            elif not self.path.parent.is_dir():
                where = str(self.path.parent)
                raise TableError(f"{self.path}: no such directory {where!r} (it is not created)")
            self._db = sqlite3.connect(str(self.path), timeout=timeout, isolation_level=None)
            self._db.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
            self._check_ours()  # before anything could change a file that is not ours
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA synchronous = NORMAL")
            self._setup()
        except sqlite3.DatabaseError as e:
            raise self._open_error(e) from e
        except OSError as e:
            raise TableError(f"{self.path}: cannot open the table ({e.strerror or e})") from e

    def _open_error(self, e: sqlite3.DatabaseError) -> TableError:
        """What went wrong as the table was opened: a file or directory it may not write
        (SQLite makes its ``-wal`` and ``-shm`` files beside the table), a full disk, or a
        file that is not a table."""
        text = str(e)
        if self.path.is_dir():
            return TableError(f"{self.path}: a directory, not a table of solved positions")
        if "unable to open" in text or "readonly" in text:
            parent = self.path.parent
            where = (
                f"the directory {str(parent)!r} is read-only"
                if not os.access(parent, os.W_OK)
                else "the table and its directory must be writable"
            )
            return TableError(f"{self.path}: cannot write the table: {where} ({e})")
        if "full" in text:
            return TableError(f"{self.path}: cannot write the table ({e})")
        return TableError(f"{self.path}: not a usable table of solved positions ({e})")

    # ------------------------------------------------------------------ setup
    def _check_ours(self) -> None:
        """Refuse a file that another program made (before anything is written to it)."""
        db = self._db
        app = db.execute("PRAGMA application_id").fetchone()[0]
        if app == APPLICATION_ID:
            return
        if app != 0:
            raise TableError(
                f"{self.path}: an SQLite file of another program (application_id {app:#x}), "
                "not a table of solved positions; nothing was written to it"
            )
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not names:
            return  # a new, empty file: it becomes ours
        if names <= OUR_TABLES and "meta" in names:
            cols = {r[1] for r in db.execute("PRAGMA table_info(meta)")}
            if cols == {"key", "value"}:
                return  # ours, written before files were marked
        shown = ", ".join(sorted(names)[:5]) + (", …" if len(names) > 5 else "")
        raise TableError(
            f"{self.path}: an SQLite file of another program (tables {shown}), not a table of "
            "solved positions; nothing was written to it"
        )

    def _setup(self) -> None:
        with self._write() as db:
            for statement in _SCHEMA.strip().split(";"):
                if statement.strip():
                    db.execute(statement)
            row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if row is None:
                db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
                db.execute("INSERT INTO meta VALUES ('keys', ?)", (str(KEY_VERSION),))
            elif row[0] != str(SCHEMA_VERSION):
                raise TableError(
                    f"{self.path}: table layout version {row[0]}, this program reads version {SCHEMA_VERSION}"
                )
            if db.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
                db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        row = self._db.execute("SELECT value FROM meta WHERE key = 'keys'").fetchone()
        if row is not None and row[0] != str(KEY_VERSION):
            self.rekey()

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, retried while another process holds the file."""
        import sqlite3

        for attempt in range(20):
            try:
                self._db.execute("BEGIN IMMEDIATE")
                break
            except sqlite3.OperationalError as e:
                if "locked" not in str(e) and "busy" not in str(e):
                    raise
                time.sleep(0.05 * (attempt + 1))
        else:
            raise TableError(f"{self.path}: the table stayed locked by another process")
        try:
            yield self._db
            self._db.execute("COMMIT")
        except BaseException:
            # SQLite may have rolled back already (a full disk, a file it could not grow):
            # the error that stopped the transaction is the one to report, not the rollback's
            if self._db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
            raise

    def rekey(self) -> int:
        """Re-key every land by the current reduced form (after the form changed); returns the count."""
        from ..engine.position import Position
        from ..engine.reduce import reduced_lands

        moved = 0
        with self._write() as db:
            rows = db.execute("SELECT land, nimber, wins FROM normal").fetchall()
            db.execute("DELETE FROM normal")
            for land, nimber, wins in rows:
                keys = reduced_lands(Position.from_string(land))
                if len(keys) != 1:
                    continue
                db.execute(_UPSERT_NORMAL, (keys[0], nimber, wins))
                moved += 1
            trees = db.execute("SELECT land, tree FROM misere").fetchall()
            db.execute("DELETE FROM misere")
            for land, tree in trees:
                keys = reduced_lands(Position.from_string(land))
                if len(keys) == 1:
                    db.execute("INSERT OR REPLACE INTO misere VALUES (?, ?)", (keys[0], tree))
            db.execute("DELETE FROM misere_outcome")
            db.execute("INSERT OR REPLACE INTO meta VALUES ('keys', ?)", (str(KEY_VERSION),))
        self._keys = None  # read again at the next misère lookup
        return moved

    # ------------------------------------------------------------ normal play
    @property
    def tainted(self) -> bool:
        """True once an imported fact was used: what this process proves from then on rests on it."""
        return self.imported_used > 0

    def _query(self, sql: str, args: tuple[object, ...]) -> tuple[Any, ...] | None:
        import sqlite3

        self.queries += 1
        try:
            row: tuple[Any, ...] | None = self._db.execute(sql, args).fetchone()
        except sqlite3.DatabaseError as e:
            message = f"{self.path}: the table cannot be read ({e}); move it away or use --no-db"
            raise TableError(message) from e
        return row

    def _normal_row(
        self, table: str, pending: dict[str, tuple[int | None, int]], land: str
    ) -> tuple[int | None, int] | None:
        row = self._query(f"SELECT nimber, wins FROM {table} WHERE land = ?", (land,))
        extra = pending.get(land)
        if row is None and extra is None:
            return None
        nimber, wins = row if row is not None else (None, 0)
        if extra is not None:
            nimber = extra[0] if extra[0] is not None else nimber
            wins |= extra[1]
        return nimber, wins

    def get_normal(self, land: str) -> tuple[int | None, int] | None:
        """(nimber or None, win mask) for a land, or None when the table knows nothing of it.

        Imported facts count only with ``use_imports``, and only where they add to the proved ones.
        """
        with self._lock:
            self.reads += 1
            proved = self._normal_row("normal", self._pending_normal, land)
            if self.use_imports and (proved is None or proved[0] is None):
                imported = self._normal_row("imported_normal", self._imported_normal, land)
                if imported is not None:
                    nimber, wins = proved if proved is not None else (None, 0)
                    merged = (nimber if nimber is not None else imported[0], wins | imported[1])
                    if merged != proved:
                        self.imported_used += 1
                        proved = merged
        if proved is None:
            return None
        self.hits += 1
        return proved

    def get_nimber(self, land: str) -> int | None:
        hit = self.get_normal(land)
        return None if hit is None else hit[0]

    def put_nimber(self, land: str, nimber: int) -> None:
        """Record that ``land`` has this nimber (so land + *k is a loss exactly for k = nimber)."""
        self._merge_normal(land, nimber, 0)

    def put_win(self, land: str, heap: int) -> None:
        """Record that ``land + *heap`` is a win for the player to move."""
        if heap <= MAX_MASK_HEAP:
            self._merge_normal(land, None, 1 << heap)

    def _merge_normal(self, land: str, nimber: int | None, wins: int) -> None:
        with self._lock:
            pending = self._imported_normal if self.importing or self.tainted else self._pending_normal
            old = pending.get(land)
            if old is not None:
                nimber = nimber if nimber is not None else old[0]
                wins |= old[1]
            pending[land] = (nimber, wins)
        self._maybe_flush()

    # ------------------------------------------------------------- misère play
    def get_misere(self, land: str) -> str | None:
        """The misère canonical tree (text) of a land, or None."""
        with self._lock:
            pending = self._pending_tree.get(land)
            if pending is not None:
                return pending
            self.reads += 1
            row = self._held_row("misere", "SELECT tree FROM misere WHERE land = ?", land)
            if row is None and self.use_imports:
                row = (self._imported_tree.get(land),)
                if row[0] is None:
                    sql = "SELECT tree FROM imported_misere WHERE land = ?"
                    row = self._held_row("imported_misere", sql, land)
                if row is not None:
                    self.imported_used += 1
        if row is not None:
            self.hits += 1
            tree: str = row[0]
            return tree
        return None

    def put_misere(self, land: str, text: str) -> None:
        with self._lock:
            (self._imported_tree if self.importing or self.tainted else self._pending_tree)[land] = text
        self._maybe_flush()

    def get_misere_outcome(self, key: str) -> bool | None:
        """The misère outcome (win for the player to move) of a position by reduced form, or None."""
        with self._lock:
            pending = self._pending_outcome.get(key)
            if pending is not None:
                return bool(pending)
            self.reads += 1
            row = self._held_row("misere_outcome", "SELECT win FROM misere_outcome WHERE position = ?", key)
            if row is None and self.use_imports:
                row = (self._imported_outcome.get(key),)
                if row[0] is None:
                    sql = "SELECT win FROM imported_misere_outcome WHERE position = ?"
                    row = self._held_row("imported_misere_outcome", sql, key)
                if row is not None:
                    self.imported_used += 1
        if row is not None:
            self.hits += 1
            return bool(row[0])
        return None

    def put_misere_outcome(self, key: str, win: bool) -> None:
        with self._lock:
            pending = self._imported_outcome if self.importing or self.tainted else self._pending_outcome
            pending[key] = int(win)
        self._maybe_flush()

    def _held_row(self, table: str, sql: str, key: str) -> tuple[Any, ...] | None:
        """``sql``'s row for ``key`` if the misère ``table`` holds the key (by the hashes kept in
        memory, read at the first lookup), else None without a query."""
        keys = self._keys if self._keys is not None else self._read_keys()
        return self._query(sql, (key,)) if hash(key) in keys[table] else None

    def _read_keys(self) -> dict[str, set[int]]:
        """Read the hashes of every misère key the file holds (one SELECT a table)."""
        import sqlite3

        start = time.monotonic()
        try:
            # the version first: whatever another process commits during the reading is read again
            version = self._db.execute("PRAGMA data_version").fetchone()[0]
            keys = {
                table: {hash(k) for (k,) in self._db.execute(f"SELECT {column} FROM {table}")}
                for table, column in MISERE_KEYED.items()
            }
        except sqlite3.DatabaseError as e:
            message = f"{self.path}: the table cannot be read ({e}); move it away or use --no-db"
            raise TableError(message) from e
        self._keys, self._keys_version = keys, version
        self._keys_read_at = time.monotonic()
        self._keys_seconds = self._keys_read_at - start
        return keys

    def refresh_keys(self, force: bool = False) -> bool:
        """Read the misère keys again if another process has written since they were read.

        Unless ``force``, not before ``RESCAN_FACTOR`` times the last reading's time has
        passed since it (the keys of a large table take a while to read).  True if read.
        """
        with self._lock:
            if self._keys is None:
                return False
            now = time.monotonic()
            if not force and now - self._keys_read_at < RESCAN_FACTOR * self._keys_seconds:
                return False
            if self._db.execute("PRAGMA data_version").fetchone()[0] == self._keys_version:
                return False
            self._read_keys()
            return True

    def key_count(self) -> int:
        """How many misère keys the table holds in memory (0 before the first misère lookup)."""
        return 0 if self._keys is None else sum(map(len, self._keys.values()))

    # ---------------------------------------------------------------- writing
    def _maybe_flush(self) -> None:
        if time.monotonic() - self._last_flush >= self.flush_seconds:
            self.flush()

    def flush(self) -> int:
        """Commit every buffered fact in one transaction; returns how many were written."""
        import sqlite3

        with self._lock:
            normal, trees, outcomes = self._pending_normal, self._pending_tree, self._pending_outcome
            imp_normal, imp_trees = self._imported_normal, self._imported_tree
            imp_outcomes = self._imported_outcome
            self._last_flush = time.monotonic()
            if not (normal or trees or outcomes or imp_normal or imp_trees or imp_outcomes):
                return 0
            try:
                with self._write() as db:
                    both = (("", normal, trees, outcomes), ("imported_", imp_normal, imp_trees, imp_outcomes))
                    for prefix, n, t, o in both:
                        db.executemany(
                            _UPSERT_NORMAL.replace("normal", f"{prefix}normal"),
                            [(k, nim, w) for k, (nim, w) in n.items()],
                        )
                        db.executemany(f"INSERT OR REPLACE INTO {prefix}misere VALUES (?, ?)", [*t.items()])
                        db.executemany(
                            f"INSERT OR REPLACE INTO {prefix}misere_outcome VALUES (?, ?)", list(o.items())
                        )
            except sqlite3.DatabaseError as e:
                raise TableError(f"{self.path}: cannot write the table ({e})") from e
            keys = self._keys
            if keys is not None:  # what this process wrote is held now
                for table, written in (
                    ("misere", trees),
                    ("misere_outcome", outcomes),
                    ("imported_misere", imp_trees),
                    ("imported_misere_outcome", imp_outcomes),
                ):
                    keys[table].update(map(hash, written))
            count = len(normal) + len(trees) + len(outcomes)
            count += len(imp_normal) + len(imp_trees) + len(imp_outcomes)
            self.written += count
            self._pending_normal, self._pending_tree, self._pending_outcome = {}, {}, {}
            self._imported_normal, self._imported_tree, self._imported_outcome = {}, {}, {}
            return count

    def close(self) -> None:
        """Commit what is buffered and close the file."""
        with self._lock:
            if self._db is None:
                return
            try:
                self.flush()
            finally:
                self._db.close()
                self._db = None  # type: ignore[assignment]  # closed: only ``close`` looks again

    def __enter__(self) -> Table:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ stats
    def counts(self) -> dict[str, int]:
        """How many lands each part of the table holds (committed facts only)."""
        q = self._db.execute
        return {
            "nimbers": q("SELECT count(*) FROM normal WHERE nimber IS NOT NULL").fetchone()[0],
            "lands_with_wins_only": q("SELECT count(*) FROM normal WHERE nimber IS NULL").fetchone()[0],
            "misere_trees": q("SELECT count(*) FROM misere").fetchone()[0],
            "misere_outcomes": q("SELECT count(*) FROM misere_outcome").fetchone()[0],
        }

    def normal_items(self, imported: bool = False) -> Iterable[tuple[str, int | None, int]]:
        """Every (land, nimber or None, win mask) committed, in key order (proved, or imported)."""
        table = "imported_normal" if imported else "normal"
        return self._db.execute(f"SELECT land, nimber, wins FROM {table} ORDER BY land").fetchall()

    def misere_tree_items(self, imported: bool = False) -> Iterable[tuple[str, str]]:
        """Every (land, misère tree text) committed, in key order (proved, or imported)."""
        table = "imported_misere" if imported else "misere"
        return self._db.execute(f"SELECT land, tree FROM {table} ORDER BY land").fetchall()

    def misere_outcome_items(self, imported: bool = False) -> Iterable[tuple[str, bool]]:
        """Every (land, misère win for the player to move) committed, in key order (proved or imported)."""
        table = "imported_misere_outcome" if imported else "misere_outcome"
        rows = self._db.execute(f"SELECT position, win FROM {table} ORDER BY position").fetchall()
        return [(key, bool(win)) for key, win in rows]

    def forget_imported(self, rules: str, key: str) -> None:
        """Drop one imported fact (normal: a land; misère: a land's tree and outcome)."""
        with self._write() as db:
            if rules == "normal":
                db.execute("DELETE FROM imported_normal WHERE land = ?", (key,))
            else:
                db.execute("DELETE FROM imported_misere WHERE land = ?", (key,))
                db.execute("DELETE FROM imported_misere_outcome WHERE position = ?", (key,))


_UPSERT_NORMAL = """
INSERT INTO normal (land, nimber, wins) VALUES (?, ?, ?)
ON CONFLICT (land) DO UPDATE SET
    nimber = coalesce(excluded.nimber, normal.nimber),
    wins = normal.wins | excluded.wins
"""


def open_table(db: str | os.PathLike[str] | None, use_db: bool = True) -> Table | None:
    """The table the command line asked for: ``--db PATH``, the default one, or none (``--no-db``)."""
    if not use_db:
        return None
    if db is None:
        return Table(default_path(), create_directory=True)
    return Table(db)
