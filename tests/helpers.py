"""Test helpers that read a store directly (the CLI is exercised through conftest.run_cli),
and that walk JSONL text lines the way import stores them."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

from openclaw_sessions.policy import transcript, tree
from openclaw_sessions.policy.transcript import Entry


def db_file(state: Path, agent: str = "main") -> Path:
    return state / "agents" / agent / "openclaw-sessions.sqlite"


def query(state: Path, sql: str, *params: object, agent: str = "main") -> list[tuple]:
    conn = sqlite3.connect(db_file(state, agent))
    try:
        return [tuple(r) for r in conn.execute(sql, params).fetchall()]
    finally:
        conn.close()


def events_dump(state: Path, agent: str = "main") -> list[tuple]:
    return query(
        state,
        "SELECT t.source_name, e.seq, e.line_no, e.raw FROM events e JOIN"
        " transcripts t USING (transcript_id) ORDER BY 1, 2",
        agent=agent,
    )


def index_dump(state: Path, agent: str = "main") -> list[tuple]:
    return query(
        state,
        "SELECT t.source_name, r.seq, r.message_id, r.role, r.text FROM index_rows"
        " r JOIN transcripts t USING (transcript_id) ORDER BY 1, 2",
        agent=agent,
    )


def integrity(state: Path, agent: str = "main") -> None:
    conn = sqlite3.connect(db_file(state, agent))
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        for t in ("index_fts", "index_bigram"):
            conn.execute(f"INSERT INTO {t}({t}, rank) VALUES ('integrity-check', 1)")
    finally:
        conn.close()


def undo_v10(conn: sqlite3.Connection) -> None:
    """Take schema v10's objects out of a fresh store (tests that fake an older one): the
    counters and the pending set with their triggers, the sessions' agent and indexes, the
    stats of the files read."""
    for kind, name in conn.execute(
        "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'trigger', 'index')"
        " AND (name GLOB 'counts*' OR name GLOB 'pending_*' OR name = 'index_pending'"
        " OR name GLOB 'sessions_by_*' OR name = 'transcripts_by_session_id_nocase'"
        " OR name = 'source_stats')"
    ).fetchall():
        conn.execute(f"DROP {kind.upper()} IF EXISTS {name}")
    conn.execute("ALTER TABLE sessions DROP COLUMN agent_id")
    conn.execute("DELETE FROM meta WHERE key GLOB 'pending_*' OR key GLOB 'store_stat:*'")


def parse_entries(lines: Sequence[str]) -> list[Entry]:
    """JSONL text lines -> entries, as import builds them (v1 files get ids by position)."""
    out: list[Entry] = []
    legacy = False
    for seq, line in enumerate(lines):
        obj = transcript.parse_line(line)
        if seq == 0 and obj.get("type") == "session":
            legacy = transcript.header_version(obj) is None
        out.append(transcript.make_entry(obj, seq, legacy=legacy))
    return out


def walk(entries: Iterable[Entry]) -> tree.Walk:
    """The one tree walk (tree.walk), over entries."""
    return tree.walk(map(transcript.tree_row, entries))


def active_seqs(entries: Iterable[Entry]) -> list[int]:
    """The seqs of every line on the active branch, in order."""
    return walk(entries).seqs
