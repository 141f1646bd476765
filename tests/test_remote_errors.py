"""Every way the central database can fail gives one clear error line and a documented exit
code, the password never shows, and the local store is left as it was: a bad DSN (2), a
server that is down (3), a role without the privileges (3), a schema from a newer version (3)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from helpers import Session, db_file, run_cli, write_sessions_json

from tests import remote_env as env


@pytest.fixture
def state(tmp_path: Path) -> Path:
    state = tmp_path / "state"
    sdir = state / "agents" / "main" / "sessions"
    s = Session("s1")
    s.user("errorsword in a message")
    s.write(sdir / "s1.jsonl")
    write_sessions_json(sdir, {"agent:main:main": {"sessionId": "s1", "updatedAt": 1}})
    r = env.cli("import", "--reindex", "--state-dir", str(state), "--quiet")
    assert r.exit_code == 0, r.stderr
    return state


def _digest(state: Path) -> str:
    return hashlib.sha256(db_file(state).read_bytes()).hexdigest()


def _fails(state: Path, code: int, *args: str) -> str:
    """Run args (push or search), expect one error line and exit ``code``, the store intact."""
    before = _digest(state)
    r = env.cli(*args, "--state-dir", str(state))
    assert r.exit_code == code, (r.exit_code, r.stdout, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("error: "), r.stderr
    assert _digest(state) == before
    return lines[0]


def _both(state: Path, target: str, code: int) -> list[str]:
    return [
        _fails(state, code, "push", target, "--host", "gw"),
        _fails(state, code, "search", "errorsword", "--remote", target),
    ]


def test_a_bad_dsn_is_a_usage_error(state: Path) -> None:
    for line in _both(state, "host=x dbname", 2):
        assert "bad DSN" in line


def test_no_dsn_at_all(state: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENCLAW_SESSIONS_REMOTE", raising=False)
    assert "no central database" in _fails(state, 2, "push")
    assert "no central database" in _fails(state, 2, "search", "x", "--remote", "-")


def test_the_dsn_can_come_from_the_environment(
    state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = env.new_db()
    monkeypatch.setenv("OPENCLAW_SESSIONS_REMOTE", target)
    r = env.cli("push", "--host", "gw", "--state-dir", str(state), "--json")
    assert r.exit_code == 0
    assert json.loads(r.stdout)["upserted"] == 1
    r = env.cli("search", "errorsword", "--remote", "-", "--json")
    assert r.exit_code == 0
    assert len(json.loads(r.stdout)["results"]) == 1


def test_a_server_that_is_down(state: Path, tmp_path: Path) -> None:
    target = f"host={tmp_path / 'no-server-here'} dbname=fleet user=push"
    for line in _both(state, target, 3):
        assert "cannot reach the central database" in line


def test_the_password_never_shows(state: Path, tmp_path: Path) -> None:
    sock = tmp_path / "nowhere"
    for target in (
        f"postgresql://push:s3cretpw0rd@/fleet?host={sock}",
        f"host={sock} dbname=fleet user=push password=s3cretpw0rd",
    ):
        for args in (("push", target, "--json"), ("search", "x", "--remote", target, "--json")):
            r = env.cli(*args, "--state-dir", str(state))
            assert r.exit_code == 3
            assert "s3cretpw0rd" not in r.stdout + r.stderr
    ok = env.new_db() + " password=s3cretpw0rd"  # trust auth: the password is not needed
    r = env.cli("push", ok, "--host", "gw", "--state-dir", str(state), "--json")
    assert r.exit_code == 0, r.stderr
    assert "s3cretpw0rd" not in r.stdout
    assert "***" in json.loads(r.stdout)["remote"]


def test_permission_denied(state: Path) -> None:
    target = env.new_db()
    env.push(target, state, "gw")
    db = target.split("dbname=")[1].split()[0]
    env.admin("DROP ROLE IF EXISTS ocs_nobody")
    env.admin("CREATE ROLE ocs_nobody LOGIN")
    denied = target.replace("user=postgres", "user=ocs_nobody")
    for line in _both(state, denied, 3):
        assert "permission denied" in line
    # the documented grants: a read-only search role
    env.admin("GRANT USAGE ON SCHEMA openclaw_sessions TO ocs_nobody", db=db)
    env.admin("GRANT SELECT ON ALL TABLES IN SCHEMA openclaw_sessions TO ocs_nobody", db=db)
    r = env.cli("search", "errorsword", "--remote", denied, "--json")
    assert r.exit_code == 0, r.stderr
    assert "permission denied" in _fails(state, 3, "push", denied, "--host", "gw2")
    # and a push role
    env.admin(
        "GRANT INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA openclaw_sessions TO ocs_nobody",
        db=db,
    )
    r = env.cli("push", denied, "--host", "gw2", "--state-dir", str(state), "--json")
    assert r.exit_code == 0, r.stderr


def test_a_newer_schema_is_refused(state: Path) -> None:
    target = env.new_db()
    env.push(target, state, "gw")
    db = target.split("dbname=")[1].split()[0]
    env.admin("UPDATE openclaw_sessions.ocs_meta SET value = '99' WHERE key = 'schema_version'",
              db=db)  # fmt: skip
    for line in _both(state, target, 3):
        assert "version 99" in line


def test_search_before_any_push(state: Path) -> None:
    assert "no openclaw-sessions schema" in _fails(
        state, 3, "search", "errorsword", "--remote", env.new_db()
    )


def test_remote_takes_the_local_option_rules() -> None:
    """--remote checks an option as local search does (one rule), then refuses what only the
    local store can answer; no server is needed to say so."""

    r = run_cli("search", "x", "--remote", "postgresql:///nowhere", "--order", "sideways")
    assert r.exit_code == 2
    assert "order must be relevance, recent or upstream" in r.stderr
    r = run_cli("search", "x", "--remote", "postgresql:///nowhere", "--relax")
    assert r.exit_code == 2
    assert "--relax does not go with --remote" in r.stderr
