"""Which chat is it: `--kind`, `--not-kind` and `--key GLOB` narrow `search`, `sessions`
and `log` to kinds of session by OpenClaw's key grammar (operator mode only)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import Session, json_out, run_cli, write_sessions_json

from openclaw_sessions.policy import kinds

KEYS = {
    "agent:main:main": "k-main",
    "agent:main:telegram:direct:42": "k-dm",
    "agent:main:discord:group:7": "k-group",
    "agent:main:subagent:abc": "k-sub",
    "agent:main:cron:nightly:run:1": "k-cron",
}


@pytest.fixture
def store(tmp_path: Path) -> Path:
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    for sid in KEYS.values():
        s = Session(sid)
        s.user(f"deploy status from {sid}")
        s.write(d / f"{sid}.jsonl")
    write_sessions_json(d, {k: {"sessionId": sid} for k, sid in KEYS.items()})
    state = tmp_path / "state"
    assert (
        run_cli("import", str(tmp_path / "src"), "--quiet", "--state-dir", str(state)).exit_code
        == 0
    )
    return state


def _keys(state: Path, command: str, *args: str) -> set[str]:
    base = ["search", "deploy"] if command == "search" else [command]
    r = run_cli(*base, *args, "--json", "--state-dir", str(state))
    doc = json_out(r)
    rows = doc["results"] if "results" in doc else doc["sessions"]
    return {row["sessionKey"] for row in rows}


@pytest.mark.parametrize("command", ["search", "sessions", "log"])
def test_kinds_keys_and_exclusions(store: Path, command: str) -> None:
    assert _keys(store, command) == set(KEYS)
    assert _keys(store, command, "--kind", "direct") == {"agent:main:telegram:direct:42"}
    assert _keys(store, command, "--kind", "direct", "--kind", "group") == {
        "agent:main:telegram:direct:42",
        "agent:main:discord:group:7",
    }
    assert _keys(store, command, "--not-kind", "cron") == set(KEYS) - {
        "agent:main:cron:nightly:run:1"
    }
    assert _keys(store, command, "--key", "agent:*:TELEGRAM:*") == {"agent:main:telegram:direct:42"}
    assert _keys(store, command, "--kind", "main", "--key", "agent:*:telegram:*") == set()


@pytest.mark.parametrize("command", ["search", "sessions"])
def test_they_are_the_operators(store: Path, command: str) -> None:
    base = ["search", "deploy"] if command == "search" else [command]
    r = run_cli(*base, "--as", "agent:main:main", "--kind", "direct", "--state-dir", str(store))
    assert r.exit_code == 2
    assert "operator options" in r.stderr


def test_an_unknown_kind_names_the_known_ones() -> None:
    with pytest.raises(Exception, match="no session kind"):
        kinds.key_filter(["dm"], None, None)
    assert kinds.where(kinds.key_filter(None, ["cron"], None), "k") == (
        ["NOT (k GLOB ?)"],
        ["agent:*:cron:*"],
    )
