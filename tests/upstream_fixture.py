"""Builds upstream OpenClaw agent databases (`openclaw-agent.sqlite`) for tests and benchmarks.

There is no public fixture of such a database, so it is made here from upstream's documented
DDL (openclaw/openclaw `src/state/openclaw-agent-schema.sql`, the tables an importer reads,
columns verbatim) in three shapes upstream has shipped:

- v23 (2026.9.6+): `transcript_events` with `event_zstd`/`event_utf8_bytes` (large events
  compressed, `event_json` NULL), `session_nodes` + `session_windows`;
- v21: the same with `event_json TEXT NOT NULL` only;
- v13: `sessions` + `session_entries` (before session_nodes/session_windows existed).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zstandard

_META = """
CREATE TABLE IF NOT EXISTS schema_meta (
  meta_key TEXT NOT NULL PRIMARY KEY, role TEXT NOT NULL, schema_version INTEGER NOT NULL,
  agent_id TEXT, app_version TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS auth_profile_store (
  store_key TEXT NOT NULL PRIMARY KEY, store_json TEXT NOT NULL, updated_at INTEGER NOT NULL
) STRICT;
"""

_NODES = """
CREATE TABLE IF NOT EXISTS session_nodes (
  session_key TEXT NOT NULL PRIMARY KEY,
  current_session_id TEXT NOT NULL,
  entry_json TEXT NOT NULL,
  entry_valid INTEGER NOT NULL DEFAULT 0 CHECK (entry_valid IN (-1, 0, 1)),
  updated_at INTEGER NOT NULL,
  status TEXT CHECK (status IS NULL OR status IN ('running', 'done', 'failed', 'killed', 'timeout')),
  created_at INTEGER,
  created_via TEXT,
  created_actor_type TEXT,
  created_actor_id TEXT,
  owner_actor_type TEXT,
  owner_actor_id TEXT,
  owner_assigned_by_type TEXT,
  owner_assigned_by_id TEXT,
  owner_assigned_at INTEGER,
  project_id TEXT,
  parent_session_key TEXT,
  spawned_by TEXT,
  fork_source_session_key TEXT,
  fork_source_session_id TEXT,
  fork_source_entry_id TEXT,
  label TEXT,
  display_name TEXT,
  category TEXT,
  icon TEXT,
  pinned_at INTEGER,
  archived_at INTEGER,
  last_read_at INTEGER,
  last_interaction_at INTEGER,
  last_activity_at INTEGER
) STRICT;
CREATE TABLE IF NOT EXISTS conversations (
  conversation_id TEXT NOT NULL PRIMARY KEY, channel TEXT NOT NULL, account_id TEXT NOT NULL,
  kind TEXT NOT NULL, peer_id TEXT NOT NULL, delivery_target TEXT NOT NULL,
  parent_conversation_id TEXT, thread_id TEXT, native_channel_id TEXT,
  native_direct_user_id TEXT, label TEXT, metadata_json TEXT,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS session_windows (
  session_id TEXT NOT NULL PRIMARY KEY,
  session_key TEXT NOT NULL,
  previous_session_id TEXT,
  reason TEXT CHECK (reason IS NULL OR reason IN ('initial', 'reset', 'rollover', 'fork', 'rewind', 'switch', 'recovery', 'compaction')),
  session_scope TEXT NOT NULL DEFAULT 'conversation' CHECK (session_scope IN ('conversation', 'shared-main', 'group', 'channel')),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  transcript_updated_at INTEGER DEFAULT NULL,
  transcript_observed_at INTEGER DEFAULT NULL,
  session_entry_provenance INTEGER NOT NULL DEFAULT 0 CHECK (session_entry_provenance IN (0, 1)),
  acp_owned INTEGER NOT NULL DEFAULT 0 CHECK (acp_owned IN (0, 1)),
  plugin_owner_id TEXT,
  hook_external_content_source TEXT,
  started_at INTEGER,
  ended_at INTEGER,
  status TEXT,
  chat_type TEXT CHECK (chat_type IS NULL OR chat_type IN ('direct', 'group', 'channel')),
  channel TEXT,
  account_id TEXT,
  primary_conversation_id TEXT,
  model_provider TEXT,
  model TEXT,
  agent_harness_id TEXT,
  parent_session_key TEXT,
  spawned_by TEXT,
  display_name TEXT,
  FOREIGN KEY (session_key) REFERENCES session_nodes(session_key) ON DELETE CASCADE,
  FOREIGN KEY (primary_conversation_id) REFERENCES conversations(conversation_id) ON DELETE SET NULL
) STRICT;
CREATE TABLE IF NOT EXISTS transcript_rewrite_watermarks (
  session_id TEXT NOT NULL PRIMARY KEY,
  generation TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  FOREIGN KEY (session_id) REFERENCES "session_windows"(session_id) ON DELETE CASCADE
) STRICT;
CREATE TABLE IF NOT EXISTS session_transcript_archives (
  session_id TEXT NOT NULL,
  generation TEXT NOT NULL,
  session_key TEXT NOT NULL,
  reason TEXT NOT NULL CHECK (reason IN ('deleted', 'reset')),
  encoding TEXT NOT NULL CHECK (encoding IN ('identity', 'zstd')),
  archive_blob BLOB NOT NULL,
  archive_sha256 TEXT NOT NULL CHECK (length(archive_sha256) = 64),
  archive_name TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  published_at INTEGER,
  publish_attempts INTEGER NOT NULL DEFAULT 0 CHECK (publish_attempts >= 0),
  last_publish_attempt_at INTEGER,
  last_publish_error TEXT,
  PRIMARY KEY (session_id, generation)
) STRICT;
"""  # noqa: E501 (upstream's DDL, verbatim)

_EVENTS_V21 = """
CREATE TABLE IF NOT EXISTS transcript_events (
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  event_json TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, seq),
  FOREIGN KEY (session_id) REFERENCES "session_windows"(session_id) ON DELETE CASCADE
) STRICT;
"""

# 2026.9.6 (user_version 23): large events compressed, event_json NULL for them.
_EVENTS_V23 = """
CREATE TABLE IF NOT EXISTS transcript_events (
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  event_json TEXT,
  created_at INTEGER NOT NULL,
  event_zstd BLOB,
  event_utf8_bytes INTEGER,
  navigation_json TEXT,
  PRIMARY KEY (session_id, seq)
) STRICT;
"""

_V13 = """
CREATE TABLE IF NOT EXISTS sessions (
  session_id TEXT NOT NULL PRIMARY KEY, session_key TEXT NOT NULL,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS session_entries (
  session_key TEXT NOT NULL PRIMARY KEY, session_id TEXT NOT NULL,
  entry_json TEXT NOT NULL, updated_at INTEGER NOT NULL,
  FOREIGN KEY (session_id) REFERENCES sessions(session_id) ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS transcript_events (
  session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT NOT NULL,
  created_at INTEGER NOT NULL, PRIMARY KEY (session_id, seq),
  FOREIGN KEY (session_id) REFERENCES sessions(session_id) ON DELETE CASCADE
);
"""

T0 = 1_767_225_600_000


@dataclass
class UpSession:
    """One session key with its generations; each generation is a list of JSONL lines."""

    key: str
    session_id: str
    lines: list[str]
    entry: dict[str, Any] = field(default_factory=dict)
    older: list[tuple[str, list[str]]] = field(default_factory=list)  # (session id, lines)
    spawned_by: str | None = None
    label: str | None = None


def jsonl_lines(text: str) -> list[str]:
    """The lines upstream's doctor import stores: every non-blank, parseable line, in order."""
    out = []
    for line in text.split("\n"):
        if not line.strip():
            continue
        try:
            json.loads(line)
        except ValueError:
            continue
        out.append(line)
    return out


def build(
    path: Path,
    sessions: list[UpSession],
    *,
    version: int = 23,
    compress_over: int | None = 2048,
    wal: bool = True,
    agent_id: str = "main",
) -> Path:
    """Create the database at `path` (its parents too). compress_over: v23 only, in bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        if wal:
            conn.execute("PRAGMA journal_mode = WAL")
        ddl = _META + (
            _V13 if version <= 13 else _NODES + (_EVENTS_V23 if version >= 23 else _EVENTS_V21)
        )
        conn.executescript(ddl)
        conn.execute(f"PRAGMA user_version = {version}")
        conn.execute("INSERT INTO schema_meta VALUES ('primary', 'agent', ?, ?, '2026.9.6', ?, ?)",
                     (version, agent_id, T0, T0))  # fmt: skip
        conn.execute("BEGIN")
        for s in sessions:
            add_session(conn, s, version=version, compress_over=compress_over)
        conn.execute("COMMIT")
    finally:
        conn.close()
    return path


def add_session(
    conn: sqlite3.Connection, s: UpSession, *, version: int = 23, compress_over: int | None = 2048
) -> None:
    entry = {"sessionId": s.session_id, "updatedAt": T0, **s.entry}
    gens = [*s.older, (s.session_id, s.lines)]
    for i, (sid, lines) in enumerate(gens):
        if version <= 13:
            conn.execute("INSERT INTO sessions VALUES (?, ?, ?, ?)", (sid, s.key, T0 + i, T0 + i))
        else:
            reason = "initial" if i == 0 else "reset"
            conn.execute(
                "INSERT INTO session_windows (session_id, session_key, previous_session_id, reason,"
                " created_at, updated_at, ended_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (sid, s.key, gens[i - 1][0] if i else None, reason, T0 + i, T0 + i,
                 None if sid == s.session_id else T0 + i + 1),
            )  # fmt: skip
        append(conn, sid, lines, version=version, compress_over=compress_over)
    if version <= 13:  # no promoted columns yet: the links live in the entry only
        links = {"spawnedBy": s.spawned_by, "label": s.label}
        entry.update({k: v for k, v in links.items() if v is not None})
        conn.execute("INSERT INTO session_entries VALUES (?, ?, ?, ?)",
                     (s.key, s.session_id, json.dumps(entry), T0))  # fmt: skip
    else:
        conn.execute(
            "INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at,"
            " spawned_by, label) VALUES (?, ?, ?, ?, ?, ?)",
            (s.key, s.session_id, json.dumps(entry), T0, s.spawned_by, s.label),
        )


def append(
    conn: sqlite3.Connection,
    session_id: str,
    lines: list[str],
    *,
    version: int = 23,
    compress_over: int | None = 2048,
) -> None:
    """Append rows after the session's last seq (upstream's write pattern)."""
    row = conn.execute("SELECT max(seq) FROM transcript_events WHERE session_id = ?",
                       (session_id,)).fetchone()  # fmt: skip
    seq = -1 if row[0] is None else int(row[0])
    cctx = zstandard.ZstdCompressor()
    for line in lines:
        seq += 1
        raw = line.encode("utf-8")
        if version >= 23 and compress_over is not None and len(raw) > compress_over:
            conn.execute("INSERT INTO transcript_events (session_id, seq, event_json, created_at,"
                         " event_zstd, event_utf8_bytes) VALUES (?, ?, NULL, ?, ?, ?)",
                         (session_id, seq, T0 + seq, cctx.compress(raw), len(raw)))  # fmt: skip
        else:
            conn.execute("INSERT INTO transcript_events (session_id, seq, event_json, created_at)"
                         " VALUES (?, ?, ?, ?)", (session_id, seq, line, T0 + seq))  # fmt: skip


def agent_db(root: Path, agent: str = "main") -> Path:
    return root / "agents" / agent / "agent" / "openclaw-agent.sqlite"
