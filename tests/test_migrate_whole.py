"""A migration loses nothing: `export --all-agents -o DIR/` (or `--agent ID`) writes every
session of every agent (incognito ones too: the operator's data), every generation, raw, in
one process, laid out as a state root, and `import DIR` into an empty state dir gives the
same `status` counts and the same `sessions --json` rows. The agent's view never shows an
incognito session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import Session, generate_corpus, installed, json_out, run_cli, write_sessions_json

INCOGNITO = "agent:main:dashboard:incognito-7f3a"


def _state_with_incognito(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    generate_corpus(src, 300, agents=2, seed=5)
    sessions = src / "agents" / "main" / "sessions"
    store = json.loads((sessions / "sessions.json").read_text())
    s = Session("incog-1")
    s.user("a private deploy question zzincog")
    s.assistant("a private answer")
    s.write(sessions / "incog-1.jsonl")
    store[INCOGNITO] = {"sessionId": "incog-1", "updatedAt": 1_767_225_600_000}
    write_sessions_json(sessions, store)
    return src


def _counts(state: Path) -> list[tuple[Any, ...]]:
    r = run_cli("status", "--all-agents", "--json", "--state-dir", str(state))
    doc = json_out(r)
    agents = doc if isinstance(doc, list) else doc["agents"]
    return sorted((a["agentId"], a["sessions"], a["events"], a["indexedMessages"]) for a in agents)


def _rows(state: Path) -> list[dict[str, Any]]:
    doc = json_out(run_cli("sessions", "--all-agents", "--json", "--state-dir", str(state)))
    return sorted(doc["sessions"], key=lambda s: (s["agentId"], s["sessionKey"]))


@pytest.mark.slow
def test_every_agent_round_trips_with_its_incognito_sessions(tmp_path: Path) -> None:
    state, there = tmp_path / "state", tmp_path / "there"
    src = _state_with_incognito(tmp_path)
    assert (
        run_cli("import", str(src), "--reindex", "--quiet", "--state-dir", str(state)).exit_code
        == 0
    )
    proc = installed("export", "--all-agents", "-o", f"{tmp_path / 'mig'}/", state=state)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "mig" / "agents" / "main" / "sessions" / "incog-1.jsonl").is_file()
    store = json.loads((tmp_path / "mig/agents/main/sessions/sessions.json").read_text())
    assert INCOGNITO in store
    proc = installed("import", str(tmp_path / "mig"), "--quiet", state=there)
    assert proc.returncode == 0, proc.stderr
    assert _counts(there) == _counts(state)
    assert _rows(there) == _rows(state)
    # what the incognito session holds came along, for the operator's raw export
    raw = run_cli("export", INCOGNITO, "--format", "jsonl", "--state-dir", str(there))
    assert raw.exit_code == 0, raw.stderr
    assert "zzincog" in raw.stdout
    # and an agent still never sees it
    seen = run_cli("search", "zzincog", "--as", "agent:main:main", "--visibility", "all",
                   "--json", "--state-dir", str(there))  # fmt: skip
    assert json_out(seen)["results"] == []


def test_one_agent_goes_under_its_own_id(tmp_path: Path) -> None:
    state = tmp_path / "state"
    src = _state_with_incognito(tmp_path)
    assert run_cli("import", str(src), "--quiet", "--state-dir", str(state)).exit_code == 0
    r = run_cli("export", "--agent", "ops", "-o", f"{tmp_path / 'one'}/", "--state-dir", str(state))
    assert r.exit_code == 0, r.stderr
    assert [p.name for p in (tmp_path / "one" / "agents").iterdir()] == ["ops"]
    there = tmp_path / "there"
    assert (
        run_cli("import", str(tmp_path / "one"), "--quiet", "--state-dir", str(there)).exit_code
        == 0
    )
    assert [a[0] for a in _counts(there)] == ["ops"]
    assert _counts(there) == [c for c in _counts(state) if c[0] == "ops"]


def test_an_incognito_key_exports_for_the_operator_only(tmp_path: Path) -> None:
    state = tmp_path / "state"
    src = _state_with_incognito(tmp_path)
    assert run_cli("import", str(src), "--quiet", "--state-dir", str(state)).exit_code == 0
    md = run_cli("export", INCOGNITO, "--state-dir", str(state))
    assert md.exit_code == 0, md.stderr
    assert "zzincog" in md.stdout
    refused = run_cli("export", INCOGNITO, "--as", "agent:main:main", "--visibility", "all",
                      "--state-dir", str(state))  # fmt: skip
    assert refused.exit_code == 2
    assert "zzincog" not in refused.stdout + refused.stderr


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        ([], "into a directory"),
        (["-o", "-"], "into a directory"),
        (["--format", "md", "-o", "d/"], "--format jsonl"),
        (["--as", "agent:main:main", "-o", "d/"], "operator"),
        (["agent:main:main", "--all-agents"], "no KEY"),
    ],
)
def test_a_whole_export_says_what_it_needs(tmp_path: Path, argv: list[str], says: str) -> None:
    r = run_cli("export", *argv, "--state-dir", str(tmp_path / "state"))
    assert r.exit_code == 2
    assert r.stderr.startswith("error: ")
    assert says in r.stderr
