"""`log`: what the agents said lately, newest first, across sessions and agents, with no
query; in the forms `search` prints; windows by --since/--until; labels; redacted."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import Session, installed, json_out, run_cli, write_sessions_json

T0 = 1_767_225_600_000  # 2026-01-01


def _state(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    for agent, sid, key, label, t0 in (
        ("main", "a1", "agent:main:main", None, T0),
        ("main", "a2", "agent:main:telegram:direct:42", "Bob on Telegram", T0 + 3_600_000),
        ("ops", "o1", "agent:ops:main", None, T0 + 7_200_000),
    ):
        d = src / "agents" / agent / "sessions"
        s = Session(sid, ts0=t0)
        s.user(f"question in {sid}")
        s.assistant(f"answer in {sid} with token sk-proj-{'a1B2' * 8}")
        s.write(d / f"{sid}.jsonl")
        known = d / "sessions.json"
        store = json.loads(known.read_text()) if known.exists() else {}
        store[key] = {"sessionId": sid, **({"label": label} if label else {})}
        write_sessions_json(d, store)
    state = tmp_path / "state"
    assert run_cli("import", str(src), "--quiet", "--state-dir", str(state)).exit_code == 0
    return state


def test_newest_first_across_sessions_and_agents(tmp_path: Path) -> None:
    state = _state(tmp_path)
    doc = json_out(run_cli("log", "--all-agents", "--json", "--state-dir", str(state)))
    got = [(h["sessionKey"], h["role"]) for h in doc["results"]]
    assert got == [
        ("agent:ops:main", "assistant"),
        ("agent:ops:main", "user"),
        ("agent:main:telegram:direct:42", "assistant"),
        ("agent:main:telegram:direct:42", "user"),
        ("agent:main:main", "assistant"),
        ("agent:main:main", "user"),
    ]
    stamps = [h["timestamp"] for h in doc["results"]]
    assert stamps == sorted(stamps, reverse=True)
    labelled = [h for h in doc["results"] if h["sessionKey"].endswith(":42")]
    assert {h["label"] for h in labelled} == {"Bob on Telegram"}
    assert all("a1B2a1B2a1B2" not in h["snippet"] for h in doc["results"])  # redacted


def test_limit_window_and_one_agent(tmp_path: Path) -> None:
    state = _state(tmp_path)
    r = run_cli("log", "-n", "1", "--json", "--state-dir", str(state))
    doc = json_out(r)
    assert [h["sessionKey"] for h in doc["results"]] == ["agent:main:telegram:direct:42"]
    assert doc["truncated"] is True
    since = "2026-01-01T00:30:00Z"
    r = run_cli("log", "--since", since, "--json", "--state-dir", str(state))
    assert {h["sessionKey"] for h in json_out(r)["results"]} == {"agent:main:telegram:direct:42"}
    r = run_cli("log", "--until", "2020-01-01", "--state-dir", str(state))
    assert r.exit_code == 1
    assert "no messages" in r.stderr


def test_plain_lines_are_searchs_shape(tmp_path: Path) -> None:
    state = _state(tmp_path)
    proc = installed("log", "--all-agents", "--role", "user", state=state)
    assert proc.returncode == 0, proc.stderr
    rows = [line.split("\t") for line in proc.stdout.splitlines()]
    assert [r[0] for r in rows] == ["agent:ops:main", "agent:main:telegram:direct:42",
                                    "agent:main:main"]  # fmt: skip
    assert all(len(r) == 5 and r[3] == "user" for r in rows)
    jsonl = installed("log", "--jsonl", "-n", "2", state=state)
    assert [json.loads(line)["role"] for line in jsonl.stdout.splitlines()] == ["assistant", "user"]
