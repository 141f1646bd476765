"""`sql`: read-only SQL over the redacted `sessions` and `messages` views, and nothing else:
no raw line, no unredacted text, no other table, no write, whatever the statement says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import Session, installed, json_out, run_cli, write_sessions_json

TOKEN = "ghp_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7c"
INCOGNITO = "agent:main:dashboard:incognito-1a2b"


@pytest.fixture
def store(tmp_path: Path) -> Path:
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    for sid, text in (("s1", f"deploy with {TOKEN} now"), ("s2", "private zzsecretword")):
        s = Session(sid)
        s.user(text)
        s.assistant("done")
        s.write(d / f"{sid}.jsonl")
    write_sessions_json(d, {
        "agent:main:main": {"sessionId": "s1", "label": f"ops {TOKEN}"},
        INCOGNITO: {"sessionId": "s2"},
    })  # fmt: skip
    state = tmp_path / "state"
    assert (
        run_cli("import", str(tmp_path / "src"), "--quiet", "--state-dir", str(state)).exit_code
        == 0
    )
    return state


def sql(state: Path, statement: str, *extra: str):
    return run_cli("sql", statement, *extra, "--state-dir", str(state))


def test_the_views_hold_redacted_text_and_no_incognito_session(store: Path) -> None:
    rows = json_out(sql(store, "SELECT * FROM messages ORDER BY timestamp", "--json"))
    assert [(r["session_key"], r["role"]) for r in rows] == [
        ("agent:main:main", "user"),
        ("agent:main:main", "assistant"),
    ]
    assert set(rows[0]) == {"agent_id", "session_key", "session_id", "message_id", "role",
                            "timestamp", "text"}  # fmt: skip
    assert TOKEN not in rows[0]["text"]
    assert "deploy" in rows[0]["text"]
    sessions = json_out(sql(store, "SELECT session_key, label FROM sessions", "--json"))
    assert [s["session_key"] for s in sessions] == ["agent:main:main"]
    assert TOKEN not in sessions[0]["label"]


@pytest.mark.parametrize(
    "statement",
    [
        "SELECT raw FROM a0.events",
        "SELECT text FROM a0.index_rows",
        "SELECT * FROM a0.sessions",
        "WITH messages AS (SELECT raw FROM a0.events) SELECT * FROM messages",
        "WITH sessions(x) AS (SELECT entry_json FROM a0.sessions) SELECT x FROM sessions",
        "SELECT * FROM (SELECT text FROM a0.index_rows) AS messages",
        "SELECT sql FROM sqlite_temp_master",
        "SELECT name FROM sqlite_master",
        "PRAGMA table_info(messages)",
        "DELETE FROM a0.sessions",
        "CREATE TEMP TABLE t AS SELECT 1",
        "ATTACH DATABASE ':memory:' AS x",
        "SELECT 1; SELECT 2",
        "SELECT * FROM messages WHERE text LIKE '%zzsecretword%' UNION SELECT raw_text(raw)"
        " FROM a0.events",
    ],
)
def test_nothing_else_is_reachable(store: Path, statement: str) -> None:
    r = sql(store, statement)
    assert r.exit_code == 2, r.stdout
    assert r.stdout == ""
    assert r.stderr.startswith("error: SQL: ")
    assert "zzsecretword" not in r.stderr
    assert TOKEN not in r.stderr


def test_plain_output_is_tab_separated_with_a_header(store: Path) -> None:
    proc = installed("sql", "SELECT role, count(*) AS n FROM messages GROUP BY role", state=store)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["role\tn", "assistant\t1", "user\t1"]
    lines = installed("sql", "SELECT role FROM messages", "--jsonl", state=store).stdout
    assert sorted(json.loads(line)["role"] for line in lines.splitlines()) == ["assistant", "user"]


def test_nothing_is_written(store: Path) -> None:
    db = store / "agents" / "main" / "openclaw-sessions.sqlite"
    before = db.read_bytes()
    assert sql(store, "SELECT count(*) FROM messages").exit_code == 0
    assert db.read_bytes() == before
