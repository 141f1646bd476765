"""The fleet stores only what local search would show, and is safe to expose (issues #34.4 and
#39.3), on a real PostgreSQL: labels are redacted before they leave, a host's redaction
patterns never do, one session the central database cannot hold is named and left out, names
with invisible characters are escaped, a DSN to another machine needs a checked TLS
connection, and `push --retire HOST` removes a host."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import Session, run_cli, write_sessions_json

from tests import remote_env as env

TOKEN = "ghp_" + "Zy9xWv8uTs7rQp6oNm5lKj4iHg3fEd2cBa1z"
LITERAL = "hunter2-literal-secret-zz"


def _state(tmp_path: Path, keys: dict[str, str]) -> Path:
    state = tmp_path / "state"
    sdir = state / "agents" / "main" / "sessions"
    for sid in keys.values():
        s = Session(sid)
        s.user(f"pelicanword from {sid}")
        s.write(sdir / f"{sid}.jsonl")
    write_sessions_json(sdir, {k: {"sessionId": sid, "label": f"ops {TOKEN}"}
                               for k, sid in keys.items()})  # fmt: skip
    (state / "openclaw.json").write_text(
        json.dumps({"logging": {"redactPatterns": [LITERAL]}}), encoding="utf-8"
    )
    r = run_cli("import", "--reindex", "--quiet", "--state-dir", str(state))
    assert r.exit_code in (0, 4), r.stderr
    return state


def _db(target: str) -> str:
    return target.split("dbname=")[1].split()[0]


def test_labels_are_redacted_and_patterns_never_leave(tmp_path: Path) -> None:
    target = env.new_db()
    state = _state(tmp_path, {"agent:main:main": "s1"})
    env.push(target, state, "gw1")
    db = _db(target)
    labels = env.admin("SELECT label FROM openclaw_sessions.ocs_sessions", db=db)
    assert labels
    assert all(TOKEN not in (label or "") for (label,) in labels)
    config = env.admin("SELECT config::text FROM openclaw_sessions.ocs_hosts", db=db)
    assert LITERAL not in config[0][0]
    assert "redactPatterns" not in config[0][0]
    assert "redactFingerprint" in config[0][0]


def test_one_session_the_database_cannot_hold_is_named_and_the_rest_pushed(
    tmp_path: Path,
) -> None:
    target = env.new_db()
    state = _state(tmp_path, {"agent:main:main": "s1", "agent:main:bad\x00key": "s2"})
    r = run_cli("push", target, "--host", "gw1", "--state-dir", str(state), "--json")
    assert r.exit_code == 4, r.stderr
    report = json.loads(r.stdout)
    assert report["skipped"] == ["agent:main:bad\x00key"]
    assert "agent:main:bad\\x00key" in r.stderr
    keys = env.admin("SELECT session_key FROM openclaw_sessions.ocs_sessions", db=_db(target))
    assert keys == [("agent:main:main",)]
    found = run_cli("search", "pelicanword", "--remote", target, "--json")
    assert [h["sessionKey"] for h in json.loads(found.stdout)["results"]] == ["agent:main:main"]


def test_invisible_characters_in_host_names_are_escaped(tmp_path: Path) -> None:
    target = env.new_db()
    state = _state(tmp_path, {"agent:main:main": "s1"})
    env.push(target, state, "gw\u202eevil")
    r = run_cli("search", "pelicanword", "--remote", target, "--format", "plain")
    assert r.exit_code == 0, r.stderr
    assert "\u202e" not in r.stdout
    assert "gw\\u202eevil/agent:main:main" in r.stdout


@pytest.mark.parametrize(
    ("dsn", "refused"),
    [
        ("postgresql://u@db.example/fleet", True),
        ("host=db.example dbname=fleet sslmode=require", True),
        ("host=db.example,localhost dbname=fleet sslmode=prefer", True),
        ("postgresql://u@db.example/fleet?sslmode=verify-full", False),
        ("host=10.0.0.5 dbname=fleet sslmode=verify-ca", False),
    ],
)
def test_a_dsn_to_another_machine_needs_a_checked_tls_connection(
    tmp_path: Path, dsn: str, refused: bool
) -> None:
    from openclaw_sessions.errors import UsageError
    from openclaw_sessions.remote import dsn as dsns

    pytest.importorskip("psycopg")
    if refused:
        with pytest.raises(UsageError, match="checked TLS"):
            dsns.resolve(dsn)
        assert dsns.resolve(dsn, trusted_network=True) == dsn
    else:
        assert dsns.resolve(dsn) == dsn


def test_local_dsns_need_no_tls(tmp_path: Path) -> None:
    target = env.new_db()  # a unix socket: this machine
    state = _state(tmp_path, {"agent:main:main": "s1"})
    env.push(target, state, "gw1")
    r = run_cli("push", "postgresql://u@db.example/f", "--state-dir", str(state))
    assert r.exit_code == 2
    assert "sslmode=verify-full" in r.stderr


def test_retire_removes_a_host_and_nothing_else(tmp_path: Path) -> None:
    target = env.new_db()
    state = _state(tmp_path, {"agent:main:main": "s1"})
    env.push(target, state, "gw-old")
    env.push(target, state, "gw-new")
    r = run_cli("push", target, "--retire", "gw-old", "--json")
    assert r.exit_code == 0, r.stderr
    done = json.loads(r.stdout)
    assert done["retired"] == "gw-old"
    assert done["deleted"] >= 1
    hosts = env.admin("SELECT DISTINCT host FROM openclaw_sessions.ocs_rows", db=_db(target))
    assert hosts == [("gw-new",)]
    for table in ("ocs_postings", "ocs_terms", "ocs_stats"):  # nothing of it is left
        left = env.admin(f"SELECT DISTINCT host FROM openclaw_sessions.{table}", db=_db(target))
        assert left == [("gw-new",)], table
    env.assert_postings_match_rows(target)
    again = run_cli("push", target, "--retire", "gw-old")
    assert again.exit_code == 1
    assert "nothing to retire" in again.stderr


def test_a_defaulted_host_name_says_how_to_pin_it(tmp_path: Path) -> None:
    target = env.new_db()
    state = _state(tmp_path, {"agent:main:main": "s1"})
    r = run_cli("push", target, "--state-dir", str(state))
    assert r.exit_code == 0, r.stderr
    assert "pin it with --host NAME" in r.stderr
    quiet = run_cli("push", target, "--state-dir", str(state), "--host", "gw1")
    assert "pin it" not in quiet.stderr
