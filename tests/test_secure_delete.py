"""What `delete` leaves in the store file: with ``secure_delete`` on, no page that a deleted
session freed keeps its text (the file and, after a checkpoint, the WAL); only the full-text
index's term lists still name its words until FTS5 merges their segments (README)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from helpers import Session, run_cli, write_sessions_json

PLANT = b"zqplantedword"
FTS_TABLES = ("index_fts", "index_bigram")


def _store(tmp_path: Path, state: Path) -> Path:
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    for sid, word in (("keep-1", "zqkeptword"), ("gone-1", PLANT.decode())):
        s = Session(sid)
        for i in range(60):
            s.user(f"message {i} about {word} and {word}{i} with some filler text " * 6)
            s.tool(f"tool output {i} {word} " * 12)
            s.assistant(f"reply {i}: {word} noted")
        s.write(d / f"{sid}.jsonl")
    write_sessions_json(d, {"agent:main:main": {"sessionId": "keep-1"},
                    "agent:main:other": {"sessionId": "gone-1"}})  # fmt: skip
    assert run_cli("import", str(tmp_path / "src"), "--reindex").exit_code == 0
    return state / "agents" / "main" / "openclaw-sessions.sqlite"


def _checkpoint(db: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return conn


def test_write_connections_turn_secure_delete_on(tmp_path: Path) -> None:
    from openclaw_sessions.store import db

    conn = sqlite3.connect(tmp_path / "x.sqlite")
    conn.execute("PRAGMA secure_delete = OFF")  # the default of most builds (not Debian's)
    db._configure(conn, readonly=False)
    assert conn.execute("PRAGMA secure_delete").fetchone()[0] == 1
    conn.close()


def test_deleted_text_is_gone_from_the_file_and_the_wal(tmp_path: Path, state: Path) -> None:
    path = _store(tmp_path, state)
    _checkpoint(path).close()
    assert path.read_bytes().count(PLANT) > 100
    assert run_cli("delete", "agent:main:other", "--yes").exit_code == 0
    conn = _checkpoint(path)
    wal = path.with_name(path.name + "-wal")
    assert not wal.exists() or PLANT not in wal.read_bytes()
    conn.execute("CREATE VIRTUAL TABLE temp.pages USING dbstat(main)")
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    data = path.read_bytes()
    owners = set()
    at = data.find(PLANT)
    while at >= 0:
        row = conn.execute(
            "SELECT name FROM temp.pages WHERE pageno = ?", (at // size + 1,)
        ).fetchone()
        owners.add(row[0] if row else "(free page)")
        at = data.find(PLANT, at + 1)
    # Only FTS5's term lists may still name the word (its segments keep a deleted row's terms
    # until they merge); no table, index or free page keeps the text.
    assert all(o.startswith(FTS_TABLES) for o in owners), owners
    assert b"zqkeptword" in data
    for table in FTS_TABLES:  # the README's remedy: merging the segments drops the terms
        conn.execute(f"INSERT INTO {table}({table}) VALUES('optimize')")
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    assert PLANT not in path.read_bytes()
