"""Visibility through search: hidden sessions never show, and never change what is shown."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from helpers import Session, json_out, run_cli, write_sessions_json
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from openclaw_sessions.policy import keys, visibility


def build(root: Path, agent: str, sessions: dict[str, dict], texts: dict[str, list[str]]) -> None:
    d = root / "agents" / agent / "sessions"
    store = {}
    for i, (key, entry) in enumerate(sessions.items()):
        sid = f"{agent}-s{i}"
        s = Session(sid)
        for t in texts.get(key, []):
            s.user(t)
        s.write(d / f"{sid}.jsonl")
        store[key] = {"sessionId": sid, **entry}
    write_sessions_json(d, store)


def search(state: Path, *args: str) -> tuple[int, dict]:
    r = run_cli("search", *args, "--json", "--state-dir", str(state))
    return r.exit_code, json_out(r)


def test_self_limit_one_ignores_higher_ranked_hidden_hit(tmp_path: Path) -> None:
    build(tmp_path, "main", {"agent:main:main": {}, "agent:main:other": {}},
          {"agent:main:main": ["needle once and other words to lower the rank"],
           "agent:main:other": ["needle needle needle"]})  # fmt: skip
    run_cli("import", "--state-dir", str(tmp_path), "--reindex")
    _, op = search(tmp_path, "needle", "--limit", "1")
    assert op["results"][0]["sessionKey"] == "agent:main:other"
    assert op["truncated"]
    _, me = search(tmp_path, "needle", "--limit", "1", "--as", "agent:main:main",
                   "--visibility", "self")  # fmt: skip
    assert [h["sessionKey"] for h in me["results"]] == ["agent:main:main"]
    assert "truncated" not in me


def test_sandboxed_sees_spawned_children_and_itself(tmp_path: Path) -> None:
    sessions = {
        "agent:main:main": {},
        "agent:main:subagent:a": {"spawnedBy": "agent:main:telegram:direct:1"},
        "agent:main:subagent:b": {"spawnedBy": "agent:main:main"},
        "agent:main:telegram:direct:1": {},
        "agent:main:telegram:direct:2": {"parentSessionKey": "agent:main:telegram:direct:1"},
    }
    build(tmp_path, "main", sessions, {k: ["shared word"] for k in sessions})
    run_cli("import", "--state-dir", str(tmp_path), "--reindex")
    _, out = search(tmp_path, "shared", "--as", "agent:main:telegram:direct:1", "--sandboxed")
    keys = {h["sessionKey"] for h in out["results"]}
    assert keys == {"agent:main:telegram:direct:1", "agent:main:subagent:a",
                    "agent:main:telegram:direct:2"}  # fmt: skip


def test_incognito_never_searched_and_forbidden_as_target(tmp_path: Path) -> None:
    inc = "agent:main:dashboard:incognito-x1"
    build(tmp_path, "main", {"agent:main:main": {}, inc: {}},
          {"agent:main:main": ["visible word"], inc: ["visible word secretive"]})  # fmt: skip
    run_cli("import", "--state-dir", str(tmp_path), "--reindex")
    assert {h["sessionKey"] for h in search(tmp_path, "visible")[1]["results"]} == {
        "agent:main:main"
    }
    assert search(tmp_path, "secretive")[0] == 1
    r = run_cli("search", "visible", "--json", "--state-dir", str(tmp_path), "--as",
                "agent:main:main", "--visibility", "agent", "--session", inc)  # fmt: skip
    assert r.exit_code == 2
    assert json_out(r)["status"] == "forbidden"
    assert "not visible" in json_out(r)["error"]


def test_cross_agent_needs_all_enabled_and_allow(tmp_path: Path) -> None:
    build(tmp_path, "main", {"agent:main:main": {}}, {"agent:main:main": ["crossword here"]})
    build(tmp_path, "ops", {"agent:ops:main": {}}, {"agent:ops:main": ["crossword there"]})
    run_cli("import", "--state-dir", str(tmp_path), "--reindex")
    as_main = ["--as", "agent:main:main", "--visibility", "all"]
    both = {"agent:main:main", "agent:ops:main"}

    def config(a2a: dict) -> None:
        (tmp_path / "openclaw.json").write_text(json.dumps({"tools": {"agentToAgent": a2a}}))

    config({"enabled": False})
    _, out = search(tmp_path, "crossword", *as_main)
    assert {h["sessionKey"] for h in out["results"]} == {"agent:main:main"}
    r = run_cli("search", "crossword", "--json", "--state-dir", str(tmp_path), *as_main,
                "--session", "agent:ops:main")  # fmt: skip
    assert r.exit_code == 2
    assert json_out(r)["status"] == "forbidden"
    assert json_out(r)["error"].startswith("Agent-to-agent search is disabled.")
    # Upstream 2026.9 (PR #136755): `enabled` omitted, or no config at all, means enabled.
    (tmp_path / "openclaw.json").unlink()
    _, out = search(tmp_path, "crossword", *as_main)
    assert {h["sessionKey"] for h in out["results"]} == both
    # Upstream 2026.9.6: visibility unset is "all", so the default reaches across agents;
    # any narrower mode keeps them apart.
    _, out = search(tmp_path, "crossword", "--as", "agent:main:main")
    assert {h["sessionKey"] for h in out["results"]} == both
    _, out = search(tmp_path, "crossword", "--as", "agent:main:main", "--visibility", "agent")
    assert {h["sessionKey"] for h in out["results"]} == {"agent:main:main"}
    config({"allow": ["ma*", "ops"]})
    _, out = search(tmp_path, "crossword", *as_main)
    assert {h["sessionKey"] for h in out["results"]} == both
    config({"enabled": True, "allow": ["main"]})
    _, out = search(tmp_path, "crossword", *as_main)
    assert {h["sessionKey"] for h in out["results"]} == {"agent:main:main"}


def test_unknown_caller_and_target(tmp_path: Path) -> None:
    build(tmp_path, "main", {"agent:main:main": {}}, {"agent:main:main": ["word"]})
    run_cli("import", "--state-dir", str(tmp_path), "--reindex")
    r = run_cli("search", "word", "--json", "--state-dir", str(tmp_path), "--as", "nope-id")
    assert r.exit_code == 2
    assert json_out(r)["status"] == "error"
    r = run_cli("search", "word", "--json", "--state-dir", str(tmp_path), "--as",
                "agent:main:main", "--limit", "26")  # fmt: skip
    assert r.exit_code == 2
    assert "limit must be a positive integer" in r.stderr


KEYS = [f"agent:main:k{i}" for i in range(6)] + ["agent:main:main"]


@st.composite
def worlds(draw: st.DrawFn) -> tuple[dict[str, dict], dict[str, list[str]], str, str, bool, int]:
    sessions: dict[str, dict] = {}
    for k in KEYS:
        entry: dict[str, str] = {}
        if draw(st.booleans()):
            entry["spawnedBy"] = draw(st.sampled_from(KEYS))
        if draw(st.booleans()):
            entry["parentSessionKey"] = draw(st.sampled_from(KEYS))
        sessions[k] = entry
    texts = {k: ["alpha " * draw(st.integers(1, 4)) + f"filler {k}"] * draw(st.integers(0, 3))
             for k in KEYS}  # fmt: skip
    caller = draw(st.sampled_from(KEYS))
    vis = draw(st.sampled_from(["self", "tree", "agent", "all"]))
    return sessions, texts, caller, vis, draw(st.booleans()), draw(st.integers(1, 8))


@pytest.mark.slow
@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(worlds())
def test_results_are_the_visible_subset_of_an_unrestricted_search(world: tuple) -> None:
    sessions, texts, caller, vis, sandboxed, limit = world
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        build(root, "main", sessions, texts)
        run_cli("import", "--state-dir", str(root), "--reindex")
        # upstream's order (what --as keeps): the operator's own folds and spreads hits
        _, everything = search(root, "alpha", "--limit", "1000", "--order", "upstream")
        args = ["--as", caller, "--visibility", vis, "--limit", str(limit)]
        if sandboxed:
            args.append("--sandboxed")
        _, mine = search(root, "alpha", *args)
        refs = [keys.SessionRef(k, "main", None, e.get("spawnedBy"),
                                      e.get("parentSessionKey"), None)
                for k, e in sessions.items()]  # fmt: skip
        policy = visibility.Policy(
            visibility.Caller(caller, "main", vis, sandboxed=sandboxed), refs
        )
        upstream = [
            {k: v for k, v in h.items() if k not in ("matches", "agentId")}
            for h in everything["results"]
        ]
        allowed = [h for h in upstream if policy.visible(
            next(r for r in refs if r.key == h["sessionKey"]))]  # fmt: skip
        assert mine["results"] == allowed[:limit]
        assert bool(mine.get("truncated")) == (len(allowed) > limit)
    assert os.environ["OPENCLAW_SESSIONS_NO_BACKGROUND"] == "1"
