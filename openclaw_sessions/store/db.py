"""Connections (WAL, busy_timeout, foreign keys), the transaction helper and migrations."""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from openclaw_sessions.errors import StoreError
from openclaw_sessions.policy.tree import JS_SPACE

from . import paths

if TYPE_CHECKING:
    from openclaw_sessions.policy.sanitize import TextRedactor

SCHEMA_VERSION = 6
APP_ID = 0x4F43_5353  # "OCSS": marks the file as ours
BUSY_TIMEOUT_MS = 5000
PAGE_SIZE = 16384

_JS_SPACE = f"char({', '.join(str(ord(c)) for c in JS_SPACE)})"  # tree.JS_SPACE in SQL

# Migrations from version N-1 to N: each runs in one transaction with its version bump.
MIGRATIONS: dict[int, str] = {
    # v2: FTS inserts move from per-row triggers to batched INSERT ... SELECT (indexer.py).
    2: "DROP TRIGGER IF EXISTS index_rows_ai;\nDROP TRIGGER IF EXISTS index_rows_ai_cjk;\n",
    # v3: the stored active branch (branch.py); reconcile fills it for existing transcripts.
    3: """CREATE TABLE branches (
    transcript_id INTEGER PRIMARY KEY REFERENCES transcripts(transcript_id) ON DELETE CASCADE,
    revision      INTEGER NOT NULL,
    next_seq      INTEGER NOT NULL,
    leaf          TEXT,
    messages      BLOB NOT NULL
);
""",
    # v4: no trigram index (CJK terms of any length go to the bigram index, query.py).
    4: """DROP TRIGGER index_rows_ad_cjk;
DROP TABLE IF EXISTS index_trigram;
CREATE TRIGGER index_rows_ad_cjk AFTER DELETE ON index_rows WHEN old.cjk IS NOT NULL BEGIN
    INSERT INTO index_bigram(index_bigram, rowid, cjk) VALUES ('delete', old.row_id, old.cjk);
END;
""",
    # v5: the tree rules of upstream's transcript-tree.ts (tree.py). The columns the walk
    # reads are made what import now stores (a blank id is no id; a parentId that is neither
    # null nor a non-blank string puts the line on no tree), and every transcript's index and
    # stored branch are rebuilt by the next reconcile (`reindex`, or the one a search starts).
    5: f"""UPDATE events SET entry_id = NULL WHERE trim(entry_id, {_JS_SPACE}) = '';
UPDATE events SET parent_id = NULL, flags = flags | 4 WHERE trim(parent_id, {_JS_SPACE}) = '';
UPDATE events SET flags = flags | 4 WHERE parent_id IS NULL AND flags & 5 = 0
    AND type IS NOT 'session' AND json_valid(raw) AND json_type(raw, '$.parentId') != 'null';
UPDATE index_state SET needs_rebuild = 1;
DELETE FROM branches;
""",
    # v6: transcripts whose indexing failed, and against what (failures.py, stale.py).
    # IF NOT EXISTS: idempotent whatever number it ends up with (SQLite stores the statement
    # without that clause, so the schema text equals a fresh store's).
    6: """CREATE TABLE IF NOT EXISTS index_failures (
    transcript_id INTEGER PRIMARY KEY REFERENCES transcripts(transcript_id) ON DELETE CASCADE,
    revision      INTEGER NOT NULL,      -- the transcript as it was when it failed
    next_seq      INTEGER NOT NULL,
    fingerprint   TEXT NOT NULL,         -- stale.failure_key: redaction rules + tool version
    error         TEXT NOT NULL,         -- redacted, one line
    failed_at     INTEGER NOT NULL
);
""",
}


def schema_sql() -> str:
    from importlib import resources

    return resources.files(__package__).joinpath("schema.sql").read_text("utf-8")


def busy_timeout_ms() -> int:
    raw = os.environ.get("OPENCLAW_SESSIONS_BUSY_TIMEOUT_MS")
    return int(raw) if raw and raw.isdigit() else BUSY_TIMEOUT_MS


def _configure(conn: sqlite3.Connection, *, readonly: bool) -> None:
    conn.execute(f"PRAGMA busy_timeout = {busy_timeout_ms()}")
    conn.execute("PRAGMA foreign_keys = ON")
    if not readonly:
        conn.execute("PRAGMA synchronous = NORMAL")
    pages = os.environ.get("OPENCLAW_SESSIONS_MAX_PAGES", "")
    if pages.isdigit():  # a size quota (also how tests simulate a full disk)
        conn.execute(f"PRAGMA max_page_count = {int(pages)}")


def _raw_connect(path: Path, *, readonly: bool, immutable: bool = False) -> sqlite3.Connection:
    uri = path.resolve().as_uri()
    if immutable:
        uri += "?immutable=1"  # read-only media: no -shm can be made, nothing will change
    elif readonly:
        uri += "?mode=ro"
    # isolation_level=None: we issue BEGIN ourselves (BEGIN IMMEDIATE for writers).
    conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    return conn


def connect(path: Path, *, create: bool = False, readonly: bool = False) -> sqlite3.Connection:
    """Open an agent store, creating or migrating it when allowed; StoreError otherwise.

    A store on read-only media still opens for reading (writes then fail with exit 3).
    """
    if not path.exists():
        if not create:
            raise StoreError(
                f"no database at {path}",
                hint="run `openclaw-sessions import` first (or check --state-dir/--agent)",
            )
        path.parent.mkdir(parents=True, exist_ok=True)
    try:
        return _open(path, readonly=readonly, immutable=False)
    except StoreError:
        if readonly or os.access(path.parent, os.W_OK) and not _read_only_fs(path):
            raise
    return _open(path, readonly=True, immutable=True)


def _read_only_fs(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _open(path: Path, *, readonly: bool, immutable: bool) -> sqlite3.Connection:
    conn = None
    try:
        conn = _raw_connect(path, readonly=readonly, immutable=immutable)
        _configure(conn, readonly=readonly)
        version = _check_header(conn, path)
        if version == 0 and not readonly:
            _create(conn)
        elif version < SCHEMA_VERSION and not readonly:
            _migrate(conn, path, version)
        elif version == 0 or version < SCHEMA_VERSION:
            raise StoreError(
                f"database {path} needs a migration", hint="run any write command once"
            )
        if not readonly:
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                conn.execute("PRAGMA journal_mode = DELETE")
    except sqlite3.DatabaseError as exc:
        if conn is not None:
            conn.close()
        raise translate(exc, path) from None
    except BaseException:
        if conn is not None:
            conn.close()
        raise
    return conn


def _check_header(conn: sqlite3.Connection, path: Path) -> int:
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    app_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"database {path} has schema version {version}, newer than this tool's "
            f"{SCHEMA_VERSION}",
            hint="upgrade openclaw-sessions",
        )
    if version == 0 and app_id == 0:
        tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if tables:
            raise StoreError(f"{path} is not an openclaw-sessions database")
    elif app_id != APP_ID:
        raise StoreError(f"{path} is not an openclaw-sessions database")
    return version


def _create(conn: sqlite3.Connection) -> None:
    # Rows hold whole transcript lines (~0.8 KB): 16 KiB pages made import ~6% faster than
    # 4 KiB ones, with search and reindex unchanged (measured on 100k messages). It only
    # applies to a new, empty file, so it is set before the first table.
    conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
    with transaction(conn):
        if int(conn.execute("PRAGMA user_version").fetchone()[0]) != 0:
            return  # another process created it while we waited for the lock
        for stmt in _statements(schema_sql()):
            conn.execute(stmt)
        conn.execute(f"PRAGMA application_id = {APP_ID}")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _statements(sql: str) -> list[str]:
    """Split a script into complete statements (triggers contain ';')."""
    out, buf = [], ""
    for line in sql.splitlines(keepends=True):
        if not buf and line.lstrip().startswith("--"):
            continue
        buf += line
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    return [s for s in out if s]


def _migrate(conn: sqlite3.Connection, path: Path, version: int) -> None:
    """Back up the file, then apply each migration atomically with its version bump."""
    import shutil

    backup = path.with_name(f"{path.name}.v{version}.bak")
    if not backup.exists():
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        shutil.copy2(path, backup)
    for target in range(version + 1, SCHEMA_VERSION + 1):
        with transaction(conn):
            current = int(conn.execute("PRAGMA user_version").fetchone()[0])
            if current >= target:
                continue
            for stmt in _statements(MIGRATIONS[target]):
                conn.execute(stmt)
            conn.execute(f"PRAGMA user_version = {target}")


@contextmanager
def transaction(conn: sqlite3.Connection, *, write: bool = True) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE (writers) or DEFERRED (readers); commit, or roll back on any error."""
    conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:
            conn.rollback()
        raise
    else:
        conn.commit()


def translate(exc: sqlite3.Error, path: Path | None = None) -> StoreError:
    """Map SQLite failures to one-line store errors with a hint."""
    where = f" ({path})" if path else ""
    text = str(exc)
    low = text.lower()
    if "locked" in low or "busy" in low:
        return StoreError(
            f"database is locked{where}: another process held it past the timeout",
            hint="retry later, or raise OPENCLAW_SESSIONS_BUSY_TIMEOUT_MS",
        )
    if "full" in low:
        return StoreError(f"disk or database full{where}; nothing was written", hint="free space")
    if "readonly" in low or "read-only" in low:
        return StoreError(f"database is read-only{where}", hint="check file permissions")
    if "malformed" in low or "not a database" in low or "corrupt" in low:
        return StoreError(
            f"database is corrupt{where}: {text}",
            hint="restore a backup, or delete the file and re-import",
        )
    return StoreError(f"database error{where}: {text}")


def is_store_failure(exc: BaseException) -> bool:
    """Does this error belong to the store (locked, full, corrupt, read-only, I/O: exit 3,
    the run ends) rather than to the data being written (one transcript's problem)?"""
    if isinstance(exc, StoreError):
        return True
    data = (sqlite3.DataError, sqlite3.IntegrityError, sqlite3.InterfaceError,
            sqlite3.ProgrammingError)  # fmt: skip
    return isinstance(exc, sqlite3.Error) and not isinstance(exc, data)


def describe(exc: BaseException, redactor: TextRedactor | None = None) -> str:
    """One redacted line about a failure, for a report or the failures table."""
    from openclaw_sessions.policy.wellformed import text

    what = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
    return text(redactor.redact_text(what) if redactor is not None else what)


def set_meta(conn: sqlite3.Connection, **values: str) -> None:
    """Record facts about the store (table `meta`) in one write transaction."""
    with transaction(conn):
        conn.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?)"
            " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            list(values.items()),
        )


def get_meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def path_of(conn: sqlite3.Connection) -> Path:
    """The file of a connection's main database."""
    return Path(next(r[2] for r in conn.execute("PRAGMA database_list") if r[1] == "main"))


def now_ms() -> int:
    return int(time.time() * 1000)


def connect_memory() -> sqlite3.Connection:
    """A throwaway store (dry runs against an agent that has no database yet)."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    _create(conn)
    return conn


@contextmanager
def open_store(root: Path, agent: str, *, create: bool = False) -> Iterator[sqlite3.Connection]:
    """An agent's store for the length of a `with` block; SQLite errors become StoreError."""
    path = paths.db_path(root, agent)
    conn = connect(path, create=create)
    try:
        yield conn
    except sqlite3.Error as exc:
        raise translate(exc, path) from None
    finally:
        conn.close()
