"""Connections to our stores (WAL, busy timeout, foreign keys; created or migrated on open) and
to any SQLite file read-only, the one transaction helper, the `meta` table, and the mapping of
SQLite failures to store errors (exit 3)."""

from __future__ import annotations

import errno
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from openclaw_sessions import settings
from openclaw_sessions.errors import OpenClawError, StoreError
from openclaw_sessions.policy.cjk import index_bigram_text

from . import migrations, paths
from .migrations import APP_ID, PAGE_SIZE, SCHEMA_VERSION
from .rawcodec import CodecConnection

if TYPE_CHECKING:
    from openclaw_sessions.policy.sanitize import TextRedactor

BUSY_TIMEOUT_MS = 5000


def busy_timeout_ms() -> int:
    """How long a connection waits for another writer's lock."""
    ms = settings.busy_timeout_ms()
    return BUSY_TIMEOUT_MS if ms is None else ms


def _configure(conn: sqlite3.Connection, *, readonly: bool) -> None:
    conn.execute(f"PRAGMA busy_timeout = {busy_timeout_ms()}")
    conn.execute("PRAGMA foreign_keys = ON")
    if not readonly:
        conn.execute("PRAGMA synchronous = NORMAL")
        # What a write frees is overwritten with zeros, in the file and the WAL: deleted text
        # does not linger in free pages (some builds default to it; the pragma makes it so).
        conn.execute("PRAGMA secure_delete = ON")
    pages = settings.max_pages()
    if pages is not None:  # a size quota (also how tests simulate a full disk)
        conn.execute(f"PRAGMA max_page_count = {pages}")


def register_functions(conn: sqlite3.Connection) -> None:
    """The SQL functions the schema names (a view and a trigger derive the CJK bigram text)."""
    conn.create_function("ocs_cjk_bigrams", 1, index_bigram_text, deterministic=True)


def _raw_connect(path: Path, mode: str | None = None) -> sqlite3.Connection:
    """``mode``: None (read-write), "ro", or "immutable" (read-only media: no -shm can be
    made, nothing will change)."""
    try:
        resolved = path.resolve()
    except (RuntimeError, OSError) as exc:  # Python 3.11 raises RuntimeError on a loop
        raise _loop(path) from exc
    uri = resolved.as_uri() + {None: "", "ro": "?mode=ro", "immutable": "?immutable=1"}[mode]
    # isolation_level=None: we issue BEGIN ourselves (BEGIN IMMEDIATE for writers).
    conn = sqlite3.connect(
        uri, uri=True, isolation_level=None, check_same_thread=False, factory=CodecConnection
    )
    register_functions(conn)
    return conn


def open_readonly(path: Path, *, busy_ms: int | None = None) -> sqlite3.Connection:
    """Any SQLite file, read-only and as it is (never created, checked or migrated): upstream's
    agent databases, the store a TAB press completes from."""
    conn = _raw_connect(path, "ro")
    conn.execute(f"PRAGMA busy_timeout = {busy_timeout_ms() if busy_ms is None else busy_ms}")
    return conn


def connect(path: Path, *, create: bool = False, readonly: bool = False) -> sqlite3.Connection:
    """Open an agent store, creating or migrating it when allowed; StoreError otherwise.

    A store on read-only media still opens for reading (writes then fail with exit 3).
    """
    if not path.exists():
        for p in (path, path.parent):
            if p.is_symlink() and _is_loop(p):
                raise _loop(p)
        if not create:
            root = path.parent.parent.parent  # <root>/agents/<id>/<file>
            raise StoreError(
                f"no database at {path}",
                hint=f"run `openclaw-sessions import` first, which reads {paths.where(root)}",
                code="store_missing",
            )
        path.parent.mkdir(parents=True, exist_ok=True)
    elif not path.is_file():  # a directory, a FIFO (SQLite would say "disk I/O error")
        raise StoreError(
            f"the store path is not a regular file: {path}",
            hint="move it aside; `openclaw-sessions import` creates the store",
        )
    try:
        return _open(path, readonly=readonly, immutable=False)
    except StoreError:
        if readonly or os.access(path.parent, os.W_OK) and not _read_only_fs(path):
            raise
    return _open(path, readonly=True, immutable=True)


def _is_loop(path: Path) -> bool:
    try:
        os.stat(path)
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False


def _loop(path: Path) -> StoreError:
    return StoreError(
        f"the store path is a symlink loop at {path}",
        hint="remove the link or point it at a file",
    )


def _read_only_fs(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _open(path: Path, *, readonly: bool, immutable: bool) -> sqlite3.Connection:
    conn = None
    try:
        conn = _raw_connect(path, "immutable" if immutable else "ro" if readonly else None)
        conn.row_factory = sqlite3.Row
        _configure(conn, readonly=readonly)
        version = _check_header(conn, path)
        if version == 0 and not readonly:
            _create(conn)
        elif version < SCHEMA_VERSION and not readonly:
            _migrate(conn, path, version)
        elif version == 0 or version < SCHEMA_VERSION:
            raise StoreError(
                f"database {path} needs a migration",
                hint="run any write command once",
                code="store_needs_migration",
            )
        if not readonly:
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                conn.execute("PRAGMA journal_mode = DELETE")
    except BaseException as exc:
        if conn is not None:
            conn.close()
        if isinstance(exc, sqlite3.DatabaseError):
            raise translate(exc, path) from None
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
            code="store_newer",
        )
    if version == 0 and app_id == 0:
        tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if tables:
            raise StoreError(f"{path} is not an openclaw-sessions database", code="store_foreign")
    elif app_id != APP_ID:
        raise StoreError(f"{path} is not an openclaw-sessions database", code="store_foreign")
    return version


def _create(conn: sqlite3.Connection) -> None:
    # Rows hold whole transcript lines (~0.8 KB): larger pages make import faster. The page
    # size only applies to a new, empty file, so it is set before the first table.
    conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
    with transaction(conn):
        if int(conn.execute("PRAGMA user_version").fetchone()[0]) != 0:
            return  # another process created it while we waited for the lock
        schema = migrations.schema_sql() + migrations.derived_schema()
        for stmt in migrations.statements(schema):
            conn.execute(stmt)
        conn.execute(f"PRAGMA application_id = {APP_ID}")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _migrate(conn: sqlite3.Connection, path: Path, version: int) -> None:
    """Back up the file, then apply each migration atomically with its version bump; VACUUM
    after one that rewrote most of the file (it is atomic too, and gives the pages back)."""
    import shutil

    from openclaw_sessions.policy.keys import agent_of

    backup = path.with_name(f"{path.name}.v{version}.bak")
    if not backup.exists():
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        shutil.copy2(path, backup)
    rewrote = False
    conn.create_function("oc_agent_of", 1, agent_of, deterministic=True)  # v10 fills a column
    for target in range(version + 1, SCHEMA_VERSION + 1):
        with transaction(conn):
            current = int(conn.execute("PRAGMA user_version").fetchone()[0])
            if current >= target:
                continue
            step = migrations.step(target)
            if callable(step):
                step(conn)
            else:
                for stmt in migrations.statements(step):
                    conn.execute(stmt)
            conn.execute(f"PRAGMA user_version = {target}")
        rewrote = rewrote or target in migrations.VACUUM_AFTER
    if rewrote:
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


@contextmanager
def transaction(
    conn: sqlite3.Connection, *, write: bool = True, commit: bool = True
) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE (writers) or DEFERRED (readers); commit, or roll back on any error.
    ``commit=False`` (a dry run) rolls back what the block did, error or not."""
    conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:
            conn.rollback()
        raise
    if commit:
        conn.commit()
    elif conn.in_transaction:
        conn.rollback()


def translate(exc: sqlite3.Error, path: Path | None = None) -> StoreError:
    """Map SQLite failures to one-line store errors with a hint."""
    where = f" ({path})" if path else ""
    text = str(exc)
    low = text.lower()
    if "locked" in low or "busy" in low:
        return StoreError(
            f"database is locked{where}: another process held it past the timeout",
            hint="retry later, or raise OPENCLAW_SESSIONS_BUSY_TIMEOUT_MS",
            code="store_locked",
        )
    if "full" in low:
        return StoreError(
            f"disk or database full{where}; nothing was written",
            hint="free space",
            code="disk_full",
        )
    if "readonly" in low or "read-only" in low:
        return StoreError(
            f"database is read-only{where}", hint="check file permissions", code="store_read_only"
        )
    if "malformed" in low or "not a database" in low or "corrupt" in low:
        return StoreError(
            f"database is corrupt{where}: {text}",
            hint="restore a backup, or delete the file and re-import",
            code="store_corrupt",
        )
    return StoreError(f"database error{where}: {text}")


def failure(exc: OpenClawError | sqlite3.Error | OSError) -> OpenClawError:
    """A failure the core lets through, as the error family: the one translation the CLI
    (cli/guard.py) and the MCP server (mcp/tools.py) both end with."""
    if isinstance(exc, OpenClawError):
        return exc
    if isinstance(exc, sqlite3.Error):
        return translate(exc)
    return StoreError(f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": "))


def is_store_failure(exc: BaseException) -> bool:
    """Does this error belong to the store (locked, full, corrupt, read-only, I/O: exit 3,
    the run ends) rather than to the data being written (one transcript's problem)?"""
    if isinstance(exc, StoreError):
        return True
    data = (
        sqlite3.DataError,
        sqlite3.IntegrityError,
        sqlite3.InterfaceError,
        sqlite3.ProgrammingError,
    )
    return isinstance(exc, sqlite3.Error) and not isinstance(exc, data)


def describe(exc: BaseException, redactor: TextRedactor | None = None) -> str:
    """One redacted line about a failure, for a report or the failures table."""
    from openclaw_sessions.model.wellformed import text

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
    conn = sqlite3.connect(":memory:", isolation_level=None, factory=CodecConnection)
    register_functions(conn)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    _create(conn)
    return conn


@contextmanager
def open_store(root: Path, agent: str) -> Iterator[sqlite3.Connection]:
    """An agent's store for the length of a `with` block; SQLite errors become StoreError."""
    path = paths.db_path(root, agent)
    conn = connect(path)
    try:
        yield conn
    except sqlite3.Error as exc:
        raise translate(exc, path) from None
    finally:
        conn.close()
