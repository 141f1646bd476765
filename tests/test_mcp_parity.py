"""The MCP tools answer what `search --as … --json` and `history --as … --json` answer, for the
same caller, in every visibility case the CLI's `--as` tests cover: each caller kind, each
visibility mode, sandboxed or not, agent-to-agent settings, every kind of target (keys,
aliases, session ids, hidden, incognito, cross-agent, unknown); and no answer ever names a
session the caller may not see."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import Session, run_cli, write_sessions_json

pytest.importorskip("mcp")

from mcp_support import (  # noqa: E402
    CALLERS,
    IDS,
    WORDS,
    body,
    build_world,
    calls,
    cli_json,
    texts,
    who,
)

from openclaw_sessions.mcp import batch  # noqa: E402

TARGETS = (
    "agent:main:main",
    "main",
    "current",
    "agent:main:subagent:grand",
    "b0",  # bob's session id
    "agent:ops:subagent:x",
    "agent:ops:main",
    "agent:main:dashboard:incognito-zz",
    "agent:main:unknown",
    "nope-id",
)
MODES = [
    [*vis, *sandboxed]
    for vis in ([], ["--visibility", "self"], ["--visibility", "agent"], ["--visibility", "all"])
    for sandboxed in ([], ["--sandboxed"])
]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mcpworld")
    build_world(root / "src", root / "state")
    return root / "state"


def plan(caller: str, mode: list[str]) -> list[tuple[tuple[str, dict[str, Any]], list[str]]]:
    """(tool call, the CLI command that must answer the same) pairs for one identity."""
    me = ["--as", caller, *mode]
    out: list[tuple[tuple[str, dict[str, Any]], list[str]]] = [
        (("sessions_search", {"query": "shared"}), ["search", "shared", *me]),
        (
            ("sessions_search", {"query": "shared", "limit": 2}),
            ["search", "shared", "-n", "2", *me],
        ),
        (("sessions_search", {"query": "zzabsent"}), ["search", "zzabsent", *me]),
        (
            ("sessions_history", {"sessionKey": "main", "includeTools": True, "limit": 2}),
            ["history", "main", "--include-tools", "--limit", "2", *me],
        ),
    ]
    for t in TARGETS:
        out.append(
            (
                ("sessions_search", {"query": "shared", "sessionKey": t}),
                ["search", "shared", "--session", t, *me],
            )
        )
        out.append((("sessions_history", {"sessionKey": t}), ["history", t, *me]))
    return out


def for_agent(text: str, identity: Any) -> str:
    from openclaw_sessions.mcp.tools import for_agent as reword

    return reword(text, identity)


def same(result: Any, cli: tuple[int, dict[str, Any] | None, str], what: str) -> None:
    code, doc, stderr = cli
    got = body(result)
    if code in (0, 1):
        assert not result.is_error, what
        assert got == doc, what
    elif doc is not None:  # forbidden / not found: upstream's {status, error} on both, the
        # agent's words for what the CLI names a shell command for (tools.for_agent)
        assert result.is_error, what
        assert got == {**doc, "error": for_agent(doc["error"], None)}, what
    else:
        assert result.is_error, what
        assert got["status"] == "error", what
        assert for_agent(stderr, None).startswith(f"error: {got['error']}"), (what, stderr, got)


def visible(state: Path, caller: str, mode: list[str]) -> set[str]:
    code, doc, _ = cli_json(state, "sessions", "--as", caller, *mode)
    assert code in (0, 1)
    assert doc is not None
    return {row["sessionKey"] for row in doc["sessions"]}


def no_leak(result: Any, hidden: set[str], named: str | None) -> None:
    """No word of a hidden session, and no hidden key the call did not name itself."""
    text = texts(result) + json.dumps(result.structured_content)
    for key in hidden:
        assert WORDS[key] not in text, key
        if key != named:
            assert key not in text, (key, text)


@pytest.mark.slow
@pytest.mark.parametrize("caller", CALLERS)
def test_every_mode_answers_as_the_cli(world: Path, caller: str) -> None:
    everyone = set(WORDS)
    for mode in MODES:
        pairs = plan(caller, mode)
        results = calls(who(world, caller, *mode), [call for call, _ in pairs])
        hidden = everyone - visible(world, caller, mode)
        for (call, cmd), result in zip(pairs, results, strict=True):
            same(result, cli_json(world, *cmd), f"{cmd}")
            no_leak(result, hidden, call[1].get("sessionKey"))


@pytest.mark.slow
@pytest.mark.parametrize(
    "a2a",
    [{"enabled": False}, {"enabled": True, "allow": ["main"]}, {"allow": ["ma*", "ops"]}, None],
)
def test_agent_to_agent_settings_answer_as_the_cli(world: Path, a2a: dict | None) -> None:
    cfg = world / "openclaw.json"
    if a2a is not None:
        cfg.write_text(json.dumps({"tools": {"agentToAgent": a2a}}))
    try:
        for caller in ("agent:main:main", "agent:ops:main"):
            mode = ["--visibility", "all"]
            pairs = plan(caller, mode)
            results = calls(who(world, caller, *mode), [call for call, _ in pairs])
            hidden = set(WORDS) - visible(world, caller, mode)
            for (call, cmd), result in zip(pairs, results, strict=True):
                same(result, cli_json(world, *cmd), f"{a2a} {cmd}")
                no_leak(result, hidden, call[1].get("sessionKey"))
    finally:
        cfg.unlink(missing_ok=True)


@pytest.mark.slow
@pytest.mark.parametrize("caller", CALLERS)
def test_a_batch_is_the_cli_searches_interleaved(world: Path, caller: str) -> None:
    queries = ["shared", "kidword", "opsword", "bobword question"]
    for mode in (["--visibility", "all"], ["--sandboxed"]):
        (result,) = calls(
            who(world, caller, *mode), [("sessions_search", {"queries": queries, "limit": 3})]
        )
        states = []
        for q in queries:
            code, doc, _ = cli_json(world, "search", q, "-n", "3", "--as", caller, *mode)
            assert doc is not None
            states.append(
                batch.QueryState(
                    doc["results"], bool(doc.get("indexing")), bool(doc.get("truncated"))
                )
            )
        got = body(result)
        assert got == batch.cap_batch(states, 3, 32 * 1024)
        assert got["batch"] is True
        assert got["queryCount"] == 4
        for i, state in enumerate(states):
            mine = [
                {k: v for k, v in h.items() if k != "queryIndex"}
                for h in got["results"]
                if h["queryIndex"] == i
            ]
            assert mine == state.hits
        # the queries with no visible hit say why, each in its own note
        empty = [i for i, s in enumerate(states) if not s.hits]
        assert [b.text.split(":")[0] for b in result.content[1:]] == [
            f"queries[{i}]" for i in empty
        ]


def test_operator_sees_every_agent_but_incognito(world: Path) -> None:
    ident = who(world, None)
    (found, hist, inc) = calls(
        ident,
        [
            ("sessions_search", {"query": "shared", "limit": 25}),
            ("sessions_history", {"sessionKey": "agent:ops:discord:direct:eve"}),
            ("sessions_history", {"sessionKey": "agent:main:dashboard:incognito-zz"}),
        ],
    )
    keys = {h["sessionKey"] for h in body(found)["results"]}
    assert keys == set(WORDS) - {"agent:main:dashboard:incognito-zz"}
    code, doc, _ = cli_json(world, "history", "agent:ops:discord:direct:eve")
    assert body(hist) == doc
    assert inc.is_error
    assert body(inc)["status"] == "forbidden"
    assert "secretword" not in texts(inc)


@pytest.mark.slow
def test_session_ids_resolve_as_the_cli_does(world: Path) -> None:
    for caller in CALLERS:
        for sid in IDS.values():
            mode = ["--visibility", "agent"]
            (result,) = calls(
                who(world, caller, *mode), [("sessions_history", {"sessionKey": sid})]
            )
            same(result, cli_json(world, "history", sid, "--as", caller, *mode), f"{caller} {sid}")


def _write(root: Path, agent: str, sessions: dict[str, tuple[str, dict[str, str], str]]) -> None:

    d = root / "agents" / agent / "sessions"
    store = {}
    for key, (sid, entry, text) in sessions.items():
        if not (d / f"{sid}.jsonl").exists():
            s = Session(sid)
            s.user(text)
            s.write(d / f"{sid}.jsonl")
        store[key] = {"sessionId": sid, **entry}
    write_sessions_json(d, store)


@pytest.mark.slow
def test_shared_ids_incognito_children_and_duplicate_ids(tmp_path: Path) -> None:
    """The CLI's leak cases: two keys on one transcript id, an incognito subagent of the
    caller, the same session id in two agents' stores."""

    src, state = tmp_path / "src", tmp_path / "state"
    _write(src, "main", {
        "agent:main:main": ("caller-1", {}, "zzleak caller words"),
        "agent:main:discord:direct:alice": ("shared-1", {}, "zzleak shared words"),
        "agent:main:discord:direct:bob": ("shared-1", {}, "zzleak shared words"),
        "agent:main:subagent:kid": ("kid-1", {"spawnedBy": "agent:main:main"}, "zzleak kid"),
        "agent:main:subagent:incognito-k": (
            "inck-1", {"spawnedBy": "agent:main:main"}, "zzleak incognito kid"
        ),
        "agent:main:subagent:mine": ("dup-1", {"spawnedBy": "agent:main:main"}, "zzleak mine"),
    })  # fmt: skip
    _write(src, "work", {
        "agent:work:main": ("work-main", {}, "zzleak work"),
        "agent:work:direct:carol": ("dup-1", {"spawnedBy": "agent:work:main"}, "zzleak carol"),
    })  # fmt: skip
    assert run_cli("import", str(src), "--reindex", "--state-dir", str(state)).exit_code == 0
    targets = ["shared-1", "kid-1", "inck-1", "dup-1", "agent:main:subagent:incognito-k"]
    callers = ["agent:main:main", "agent:main:subagent:kid", "agent:work:main"]
    for caller in callers:
        for mode in (["--visibility", "self"], [], ["--visibility", "agent"], ["--sandboxed"],
                     ["--visibility", "all"]):  # fmt: skip
            me = ["--as", caller, *mode]
            pairs: list[tuple[tuple[str, dict[str, Any]], list[str]]] = [
                (("sessions_search", {"query": "zzleak"}), ["search", "zzleak", *me])
            ]
            for t in targets:
                pairs.append((("sessions_history", {"sessionKey": t}), ["history", t, *me]))
                pairs.append(
                    (
                        ("sessions_search", {"query": "zzleak", "sessionKey": t}),
                        ["search", "zzleak", "--session", t, *me],
                    )
                )
            results = calls(who(state, caller, *mode), [c for c, _ in pairs])
            seen = visible(state, caller, mode)
            hidden_keys = {
                "agent:main:discord:direct:alice",
                "agent:main:discord:direct:bob",
                "agent:work:direct:carol",
                "agent:main:subagent:incognito-k",
            } - seen
            for (call, cmd), result in zip(pairs, results, strict=True):
                same(result, cli_json(state, *cmd), f"{cmd}")
                text = texts(result)
                assert "incognito kid" not in text
                for key in hidden_keys - {call[1].get("sessionKey")}:
                    assert key not in text, (cmd, key, text)
