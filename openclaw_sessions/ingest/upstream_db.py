"""Read upstream OpenClaw's per-agent SQLite database, strictly read-only, while it is live.

Since the July 2026 "flip sessions and transcripts to sqlite storage", upstream keeps each agent's
sessions in `<root>/agents/<agentId>/agent/openclaw-agent.sqlite`. What this module reads, from
upstream's own DDL (openclaw/openclaw `src/state/openclaw-agent-schema.sql`, all tables STRICT)
and its readers:

- `transcript_events(session_id, seq, event_json, created_at)`, PK (session_id, seq): one row per
  former JSONL line (header included), read back `ORDER BY seq`. Since 2026.9.6 (user_version 23)
  a large event is stored zstd-compressed: `event_json` NULL, `event_zstd` BLOB (one zstd frame
  of the UTF-8 JSON) and `event_utf8_bytes` (its decompressed size); `navigation_json` is a
  derived column we do not need.
- `session_nodes(session_key PK, current_session_id, entry_json, …, parent_session_key,
  spawned_by, label, display_name, …)` (user_version ≥ 14): `entry_json` is the old
  sessions.json entry; `session_windows(session_id PK, session_key, previous_session_id, reason
  initial|reset|rollover|fork|rewind|switch|recovery|compaction, created_at, updated_at, ended_at…)`
  is one row per transcript generation.
- Before that (user_version 4–13): `session_entries(session_key PK, session_id, entry_json,
  updated_at)` and `sessions(session_id PK, session_key, created_at, updated_at, …)`.
- `transcript_rewrite_watermarks(session_id PK, generation, updated_at)` (≥ v5): bumped when
  upstream rewrites a transcript; part of our rewrite fingerprint when present.
- `session_transcript_archives(session_id, generation, session_key, reason deleted|reset,
  encoding identity|zstd, archive_blob, archive_sha256, archive_name, …)`: reclaimed generations
  kept in the database (the derived `<sid>.jsonl.<reason>.<ts>[.zst]` file may or may not exist);
  reason `deleted` is what `sessions.delete` leaves of a session (upstream_gone.py).
- `session_transcript_cold_archives(session_id PK, generation, archive_name, archive_sha256,
  event_count, raw_bytes, archive_bytes, last_seq, archived_at, storage file|sqlite,
  archive_blob)`: generations `session.maintenance.coldStorage` moved out of transcript_events
  (their rows are gone; upstream_cold.py reads the archive).

The connection is `mode=ro` plus `PRAGMA query_only`: never a write, never `BEGIN IMMEDIATE`. In
WAL mode (upstream's) a reader never blocks the gateway's writer, so each session is read inside
one short read transaction (a consistent snapshot); in any other journal mode every query is its
own statement-long read, in slices, so a writer waits at most one slice.
"""

from __future__ import annotations

import functools
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from openclaw_sessions.errors import UsageError
from openclaw_sessions.model import wellformed
from openclaw_sessions.store.db import open_readonly, translate

from . import line_sources
from .regular import open_regular

DB_NAME = "openclaw-agent.sqlite"
KNOWN_VERSION = 23  # newest upstream user_version this reader was written against
_MAGIC = b"SQLite format 3\x00"


def is_database_file(path: Path) -> bool:
    try:
        with open_regular(path) as f:  # never blocks on a FIFO
            return f.read(16) == _MAGIC
    except OSError:
        return False


class Layout(NamedTuple):
    version: int  # PRAGMA user_version
    meta: str  # "nodes" (session_nodes) | "entries" (session_entries)
    windows: str | None  # session_windows | sessions | None
    window_cols: frozenset[str]
    compressed: bool  # transcript_events.event_zstd exists
    watermarks: bool
    archives: bool
    cold: bool = False  # session_transcript_cold_archives exists


class Generation(NamedTuple):
    """One transcript (upstream session id) and what it belongs to."""

    session_id: str
    session_key: str | None  # None: rows without a window (an orphan)
    current: bool  # the key's current generation
    has_rows: bool  # transcript_events holds rows for it
    ended_at: int | None = None  # epoch ms, older generations only


class Archive(NamedTuple):
    name: str
    session_id: str
    session_key: str
    reason: str
    sha256: str
    created_at: int | None = None


class ColdArchive(NamedTuple):
    """A row of `session_transcript_cold_archives` (upstream_cold.py reads its archive)."""

    session_id: str
    generation: str
    archive_name: str
    archive_sha256: str
    event_count: int
    raw_bytes: int
    archive_bytes: int
    last_seq: int
    archived_at: int
    storage: str  # file | sqlite


def _cols(conn: sqlite3.Connection, table: str) -> frozenset[str]:
    return frozenset(r[1] for r in conn.execute(f"PRAGMA table_info({table})"))


def _unknown(path: Path, version: int, tables: list[str], why: str) -> UsageError:
    found = ", ".join(tables) if tables else "no tables"
    return UsageError(
        f"{path}: unknown upstream database layout ({why}; user_version {version}; "
        f"found: {found}); nothing was imported",
        hint="this reader knows OpenClaw agent databases with user_version 4 to "
        f"{KNOWN_VERSION} (transcript_events plus session_nodes or session_entries)",
    )


def detect(conn: sqlite3.Connection, path: Path) -> Layout | None:
    """The layout, None for an agent database that holds no transcripts yet (pre-flip)."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    tables = sorted(
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"
            " AND name NOT LIKE 'sqlite_%'"
        )
    )
    names = set(tables)
    if "transcript_events" not in names:
        if "schema_meta" in names and _is_agent_db(conn):
            return None
        raise _unknown(path, version, tables, "no transcript_events table")
    ev = _cols(conn, "transcript_events")
    if not {"session_id", "seq", "event_json"} <= ev:
        raise _unknown(
            path, version, tables, f"transcript_events has columns {', '.join(sorted(ev))}"
        )
    if "session_nodes" in names and {"session_key", "current_session_id", "entry_json"} <= _cols(
        conn, "session_nodes"
    ):
        meta, windows = "nodes", "session_windows" if "session_windows" in names else None
    elif "session_entries" in names and {"session_key", "session_id", "entry_json"} <= _cols(
        conn, "session_entries"
    ):
        meta, windows = "entries", "sessions" if "sessions" in names else None
    else:
        raise _unknown(path, version, tables, "no session_nodes or session_entries table")
    wcols = _cols(conn, windows) if windows else frozenset()
    if windows and not {"session_id", "session_key"} <= wcols:
        windows, wcols = None, frozenset()
    return Layout(
        version,
        meta,
        windows,
        wcols,
        "event_zstd" in ev,
        "transcript_rewrite_watermarks" in names,
        "session_transcript_archives" in names,
        "session_transcript_cold_archives" in names,
    )


def _is_agent_db(conn: sqlite3.Connection) -> bool:
    try:
        row = conn.execute("SELECT role FROM schema_meta LIMIT 1").fetchone()
    except sqlite3.DatabaseError:
        return False
    return bool(row and row[0] == "agent")


def _text(v: Any) -> str | None:
    return v.strip() if isinstance(v, str) and v.strip() else None


@dataclass
class AgentDatabase:
    """One upstream agent database, opened read-only; the layout is checked on open."""

    path: Path
    conn: sqlite3.Connection
    layout: Layout | None
    wal: bool
    counters: line_sources.Counters = field(default_factory=line_sources.Counters)

    @classmethod
    def open(cls, path: Path) -> AgentDatabase:
        try:
            conn = open_readonly(path)
        except sqlite3.Error as exc:
            raise UsageError(f"cannot open upstream database {path}: {exc}") from None
        try:
            conn.execute("PRAGMA query_only = ON")
            layout = detect(conn, path)
            wal = str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() == "wal"
        except BaseException as exc:
            conn.close()
            if not isinstance(exc, sqlite3.DatabaseError):
                raise
            if any(w in str(exc).lower() for w in ("locked", "busy")):
                raise translate(exc, path) from None  # exit 3: held past the busy timeout
            raise UsageError(f"{path} is not a readable SQLite database: {exc}") from None
        return cls(path, conn, layout, wal)

    def close(self) -> None:
        self.conn.close()

    def agent_hint(self) -> str | None:
        """schema_meta.agent_id, when upstream recorded it."""
        try:
            row = self.conn.execute("SELECT agent_id FROM schema_meta LIMIT 1").fetchone()
        except sqlite3.DatabaseError:
            return None
        return _text(row[0]) if row else None

    @functools.cached_property
    def nodes(self) -> list[tuple[str, str, dict[str, Any]]]:
        """(session key, current session id, store entry) per session key."""
        if self.layout is None:
            return []
        if self.layout.meta == "entries":
            rows = self.conn.execute(
                "SELECT session_key, session_id, entry_json FROM session_entries ORDER BY 1"
            )
            return [(str(k).strip().lower(), str(s), _entry(e, s)) for k, s, e in rows]
        cols = _cols(self.conn, "session_nodes")
        extra = [
            c for c in ("spawned_by", "parent_session_key", "label", "display_name") if c in cols
        ]
        sql = ", ".join(["session_key", "current_session_id", "entry_json", *extra])
        out = []
        for row in self.conn.execute(f"SELECT {sql} FROM session_nodes ORDER BY 1"):
            entry = _entry(row[2], row[1])
            for col, value in zip(extra, row[3:], strict=True):
                name = _camel(col)
                if _text(value) and not _text(entry.get(name)):
                    entry[name] = value
            out.append((str(row[0]).strip().lower(), str(row[1]), entry))
        return out

    def generations(self) -> list[Generation]:
        """Every transcript: windows first (current or older), then rows without a window."""
        if self.layout is None:
            return []
        current = {sid: key for key, sid, _ in self.nodes}
        keys = set(current.values())
        with_rows = [
            str(r[0])
            for r in self.conn.execute(
                "SELECT session_id FROM transcript_events GROUP BY session_id ORDER BY 1"
            )
        ]
        has = set(with_rows)
        out: list[Generation] = []
        seen: set[str] = set()
        if self.layout.windows:
            end = [c for c in ("ended_at", "updated_at") if c in self.layout.window_cols]
            stamp = f"coalesce({', '.join(end)}, NULL)" if end else "NULL"
            for raw_sid, key, ended in self.conn.execute(
                f"SELECT session_id, session_key, {stamp} FROM {self.layout.windows} ORDER BY 1"
            ):
                sid, key = str(raw_sid), str(key).strip().lower()
                is_current = current.get(sid) == key or key not in keys
                ended = None if is_current else ended
                out.append(Generation(sid, key, is_current, sid in has, ended))
                seen.add(sid)
        for sid, key in current.items():
            if sid not in seen:
                out.append(Generation(sid, key, True, sid in has))
                seen.add(sid)
        out.extend(Generation(sid, None, True, True) for sid in with_rows if sid not in seen)
        return out

    def archives(self) -> list[Archive]:
        if self.layout is None or not self.layout.archives:
            return []
        rows = self.conn.execute(
            "SELECT archive_name, session_id, session_key, reason, archive_sha256, created_at"
            " FROM session_transcript_archives ORDER BY archive_name"
        )
        return [Archive(n, s, str(k).strip().lower(), r, h, c) for n, s, k, r, h, c in rows]

    def cold_archives(self) -> dict[str, ColdArchive]:
        """session id → its cold archive's row (upstream ≥ coldStorage; else none)."""
        if self.layout is None or not self.layout.cold:
            return {}
        cols = ", ".join(ColdArchive._fields)
        rows = self.conn.execute(f"SELECT {cols} FROM session_transcript_cold_archives")
        return {str(r[0]): ColdArchive(*r) for r in rows}

    def cold_blob(self, session_id: str) -> bytes | None:
        """The archive bytes of a cold archive kept in the database (storage 'sqlite')."""
        row = self.conn.execute(
            "SELECT archive_blob FROM session_transcript_cold_archives WHERE session_id = ?",
            (session_id,),
        ).fetchone()
        self.counters.rows_checked += 1
        return None if row is None or row[0] is None else bytes(row[0])

    def watermark(self, session_id: str) -> str:
        """The generation EventSource fingerprints a transcript with ('-': none)."""
        if self.layout is None or not self.layout.watermarks:
            return "-"
        row = self.conn.execute(
            "SELECT generation FROM transcript_rewrite_watermarks WHERE session_id = ?",
            (session_id,),
        ).fetchone()
        return str(row[0]).replace(" ", "_") if row else "-"

    def archive_blob(self, name: str) -> tuple[bytes, str]:
        row = self.conn.execute(
            "SELECT archive_blob, encoding FROM session_transcript_archives WHERE archive_name = ?",
            (name,),
        ).fetchone()
        self.counters.rows_checked += 1
        return bytes(row[0]), str(row[1])

    def events(self, session_id: str) -> line_sources.EventSource:
        """The session's rows as a line source (the layout holds transcripts)."""
        assert self.layout is not None
        return line_sources.EventSource(
            self.conn,
            session_id,
            compressed=self.layout.compressed,
            watermarks=self.layout.watermarks,
            wal=self.wal,
            counters=self.counters,
        )


def _camel(col: str) -> str:
    head, *rest = col.split("_")
    return head + "".join(p.title() for p in rest)


def _entry(raw: Any, session_id: Any) -> dict[str, Any]:
    try:
        entry = wellformed.loads(raw) if isinstance(raw, str) else {}
    except (ValueError, RecursionError):
        entry = {}
    entry = entry if isinstance(entry, dict) else {}
    entry.setdefault("sessionId", session_id)
    return entry
