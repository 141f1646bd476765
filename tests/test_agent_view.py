"""The agent's view (`--as`) is upstream's answer exactly, and a key or id never silently
matches nothing: a full key names its agent, an agent's search keeps to its own namespace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import Session, installed, write_sessions_json

UPSTREAM_HIT = ["sessionKey", "timestamp", "role", "snippet", "score", "sessionId", "messageId"]


def _one(sessions_dir: Path, sid: str, text: str) -> None:
    s = Session(sid)
    s.user(text)
    s.write(sessions_dir / f"{sid}.jsonl")


@pytest.fixture
def two_agents(state: Path) -> Path:
    """main and ops, and in main's directory an entry whose key names ops (a stray)."""
    main, ops = state / "agents" / "main" / "sessions", state / "agents" / "ops" / "sessions"
    _one(main, "m1", "zebra in main")
    _one(main, "x1", "zebra stray entry")
    write_sessions_json(main, {"agent:main:main": {"sessionId": "m1", "updatedAt": 1},
                       "agent:ops:stray": {"sessionId": "x1", "updatedAt": 2}})  # fmt: skip
    _one(ops, "o1", "zebra in ops")
    write_sessions_json(ops, {"agent:ops:main": {"sessionId": "o1", "updatedAt": 1}})
    assert installed("import", "--reindex", state=state).returncode == 0
    return state


def _keys(state: Path, *args: str) -> list[str]:
    r = installed("search", "zebra", "--json", *args, state=state)
    assert r.returncode in (0, 1), r.stderr
    return sorted(h["sessionKey"] for h in json.loads(r.stdout)["results"])


@pytest.mark.slow
def test_the_agent_view_is_upstreams_result_shape(two_agents: Path) -> None:
    r = installed("search", "zebra", "--json", "--as", "main", state=two_agents)
    doc = json.loads(r.stdout)
    assert list(doc) == ["results"], doc  # no total, no unindexed, nothing unset
    # the default visibility (all): main's and ops's sessions, not the stray entry
    assert [list(h) for h in doc["results"]] == [UPSTREAM_HIT] * 2
    r = installed("search", "zebra", "--jsonl", "--as", "main", state=two_agents)
    assert [list(json.loads(x)) for x in r.stdout.splitlines()] == [UPSTREAM_HIT] * 2
    # the operator keeps the extensions, and every hit names its agent
    r = installed("search", "zebra", "--json", "--all-agents", state=two_agents)
    doc = json.loads(r.stdout)
    assert "total" in doc
    assert all("matches" in h for h in doc["results"])
    assert sorted((h["agentId"], h["sessionKey"]) for h in doc["results"]) == [
        ("main", "agent:main:main"),
        ("ops", "agent:ops:main"),
    ]
    r = installed("search", "zebra", "--jsonl", "--agent", "ops", state=two_agents)
    assert [json.loads(x)["agentId"] for x in r.stdout.splitlines()] == ["ops"]


@pytest.mark.slow
def test_as_jsonl_lines_are_as_json_results_context_included(two_agents: Path) -> None:
    """-C is asked for by name, so --as keeps it: in --json's results and in --jsonl's lines."""
    args = ("search", "zebra", "--as", "main", "-C", "1")
    doc = json.loads(installed(*args, "--json", state=two_agents).stdout)
    lines = installed(*args, "--jsonl", state=two_agents).stdout.splitlines()
    assert [json.loads(x) for x in lines] == doc["results"]
    assert all(list(h) == [*UPSTREAM_HIT, "context"] for h in doc["results"])


@pytest.mark.slow
def test_an_agents_search_keeps_to_its_own_namespace(two_agents: Path) -> None:
    assert _keys(two_agents) == ["agent:main:main"]
    assert _keys(two_agents, "--all-agents") == ["agent:main:main", "agent:ops:main"]
    assert _keys(two_agents, "--as", "agent:ops:main", "--visibility", "agent") == [
        "agent:ops:main"
    ]
    assert _keys(two_agents, "--as", "main", "--visibility", "agent") == ["agent:main:main"]
    r = installed("search", "zebra", "--count", "--all-agents", state=two_agents)
    assert r.stdout == "2\n"
    # named on purpose, the stray entry is still found where it is stored
    assert _keys(two_agents, "--session", "agent:ops:stray") == ["agent:ops:stray"]


@pytest.mark.slow
def test_a_full_key_names_its_agent(two_agents: Path) -> None:
    assert _keys(two_agents, "--session", "agent:ops:main") == ["agent:ops:main"]
    assert _keys(two_agents, "--session", "o1") == ["agent:ops:main"]  # an id of ops's
    r = installed("search", "zebra", "--session", "agent:ops:main", "--count", state=two_agents)
    assert (r.returncode, r.stdout) == (0, "1\n")
    r = installed("search", "zebra", "--session", "agent:ops:nosuch", state=two_agents)
    assert r.returncode == 2
    assert r.stderr.startswith("error: No session found: agent:ops:nosuch")
    r = installed("history", "agent:ops:main", "--json", state=two_agents)
    assert r.returncode == 0
    assert "zebra in ops" in r.stdout


@pytest.mark.slow
def test_the_operator_gets_what_limit_asks_for(state: Path) -> None:
    """The 32 KiB cap is the agent tool's: operator output is cut by --limit alone."""
    s = Session("big")
    for i in range(300):
        s.user(f"plenty {i} " + "filler words here " * 30)
    s.write(state / "agents" / "main" / "sessions" / "big.jsonl")
    write_sessions_json(
        state / "agents" / "main" / "sessions", {"agent:main:main": {"sessionId": "big"}}
    )
    assert installed("import", "--reindex", state=state).returncode == 0
    r = installed("search", "plenty", "--limit", "300", "--jsonl", state=state)
    assert len(r.stdout.splitlines()) == 300
    assert len(r.stdout) > 32768
    assert "--limit" not in r.stderr
    assert "--max-bytes" not in r.stderr
    r = installed("search", "plenty", "--limit", "300", "--json", "--max-bytes", "32768",
                  state=state)  # fmt: skip
    doc = json.loads(r.stdout)
    assert doc["truncated"]
    assert len(doc["results"]) < 300
    r = installed("search", "plenty", "--limit", "25", "--json", "--as", "main", state=state)
    assert len(r.stdout.encode()) < 32768 + 200  # the agent's cap stays


def test_context_lines_say_which_is_the_hit_and_overlaps_merge(state: Path) -> None:
    """search -C N in plain lines, as grep -C: `:` leads a hit, `-` its context; two hits
    whose windows share messages print one group, each message once, in branch order."""
    s = Session("c1")
    ids = [s.user(f"message {i}" + (" kiwi" if i in (3, 5, 9) else "")) for i in range(10)]
    s.write(state / "agents" / "main" / "sessions" / "c1.jsonl")
    write_sessions_json(
        state / "agents" / "main" / "sessions", {"agent:main:main": {"sessionId": "c1"}}
    )
    assert installed("import", "--reindex", state=state).returncode == 0
    r = installed("search", "kiwi", "-C", "1", "--order", "recent", state=state)
    groups = [[ln.split("\t") for ln in g.strip("\n").split("\n")] for g in r.stdout.split("--\n")]
    assert [[(x[0], x[2]) for x in g] for g in groups] == [
        [("-", ids[8]), (":", ids[9])],
        [("-", ids[2]), (":", ids[3]), ("-", ids[4]), (":", ids[5]), ("-", ids[6])],
    ]
    assert all(len(x) == 6 for g in groups for x in g)
    # without -C the five fields stay as they were
    r = installed("search", "kiwi", state=state)
    assert all(len(ln.split("\t")) == 5 for ln in r.stdout.splitlines())
