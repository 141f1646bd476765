"""Test helpers that read a store directly (the CLI is exercised through conftest.run_cli)."""

from __future__ import annotations

import sqlite3
from pathlib import Path


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
