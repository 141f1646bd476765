"""Who sees what by default (#33.3, #34.3): upstream 2026.9.6's default visibility (`all`, with
agent-to-agent on), cron runs left out of an agent's search unless it names one, `config.toml`
never widening an agent's view, and `indexing` told from the caller's own sessions only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import Session, json_out, run_cli, visible_keys, write_sessions_json

from openclaw_sessions import config
from openclaw_sessions.policy import visibility
from openclaw_sessions.policy.keys import SessionRef, is_cron_run_key

MAIN = "agent:main:main"
DM = "agent:main:telegram:direct:42"
OPS = "agent:ops:main"
CRON = "agent:main:cron:nightly:run:7"


def build(root: Path, agent: str, texts: dict[str, list[str]], **entries: dict) -> None:
    d = root / "agents" / agent / "sessions"
    store = {}
    for i, (key, lines) in enumerate(texts.items()):
        sid = f"{agent}-s{i}"
        s = Session(sid)
        for t in lines:
            s.user(t)
        s.write(d / f"{sid}.jsonl")
        store[key] = {"sessionId": sid, **entries.get(key, {})}
    write_sessions_json(d, store)


def world(root: Path) -> None:
    build(root, "main", {MAIN: ["beacon at home"], DM: ["beacon in a chat"],
                         CRON: ["beacon beacon beacon from the nightly job"]})  # fmt: skip
    build(root, "ops", {OPS: ["beacon over there"]})
    assert run_cli("import", "--state-dir", str(root), "--reindex", "--quiet").exit_code == 0


def openclaw_json(root: Path, data: dict) -> None:
    (root / "openclaw.json").write_text(json.dumps(data), encoding="utf-8")


def found(root: Path, *args: str) -> set[str]:
    r = run_cli("search", "beacon", "--json", "--state-dir", str(root), *args)
    assert r.exit_code in (0, 1), r.stderr
    return {h["sessionKey"] for h in json_out(r)["results"]}


# --- the default -------------------------------------------------------------------------


def test_unset_visibility_is_upstreams_all_with_agent_to_agent_on() -> None:
    assert visibility.DEFAULT_VISIBILITY == "all"
    caller = visibility.Caller(DM, "main")
    assert caller.visibility == "all"
    assert caller.agent_to_agent_enabled
    refs = [SessionRef(MAIN, "main"), SessionRef(DM, "main"), SessionRef(OPS, "ops")]
    assert visible_keys(visibility.Policy(caller, refs), refs) == sorted([MAIN, DM, OPS])
    assert config.Config().agent_to_agent_enabled


def test_default_search_as_a_session_sees_every_agent(tmp_path: Path) -> None:
    world(tmp_path)
    assert found(tmp_path, "--as", DM) == {MAIN, DM, OPS}  # no openclaw.json at all
    openclaw_json(tmp_path, {"tools": {}})  # a file that leaves it unset
    assert found(tmp_path, "--as", DM) == {MAIN, DM, OPS}


def test_openclaw_json_narrows_it(tmp_path: Path) -> None:
    world(tmp_path)
    openclaw_json(tmp_path, {"tools": {"sessions": {"visibility": "tree"}}})
    assert found(tmp_path, "--as", DM) == {DM}
    openclaw_json(tmp_path, {"tools": {"sessions": {"visibility": "agent"}}})
    assert found(tmp_path, "--as", DM) == {MAIN, DM}
    openclaw_json(tmp_path, {"tools": {"agentToAgent": {"enabled": False}}})
    assert found(tmp_path, "--as", DM) == {MAIN, DM}
    openclaw_json(tmp_path, {"tools": {"agentToAgent": {"allow": ["main"]}}})
    assert found(tmp_path, "--as", DM) == {MAIN, DM}


def test_sandboxed_caller_is_still_clamped_under_the_default(tmp_path: Path) -> None:
    world(tmp_path)
    assert found(tmp_path, "--as", DM, "--sandboxed") == {DM}
    openclaw_json(
        tmp_path, {"agents": {"defaults": {"sandbox": {"sessionToolsVisibility": "all"}}}}
    )
    assert found(tmp_path, "--as", DM, "--sandboxed") == {MAIN, DM, OPS}


def test_an_agents_own_sandbox_setting_does_not_lift_the_clamp(tmp_path: Path) -> None:
    """2026.9.6's session tools read the clamp from agents.defaults only: an agent's own
    `sandbox.sessionToolsVisibility` (valid in its schema) leaves the clamp on, as the real
    gateway answers (tests/test_real_openclaw_diff_more.py, config agent-sbxall)."""
    world(tmp_path)
    own = {"id": "main", "sandbox": {"sessionToolsVisibility": "all"}}
    openclaw_json(tmp_path, {"agents": {"list": [own, {"id": "ops"}]}})
    assert found(tmp_path, "--as", DM, "--sandboxed") == {DM}


def test_a_session_entry_that_requires_a_sandbox_makes_its_caller_sandboxed(
    tmp_path: Path,
) -> None:
    """`--as` reads who is sandboxed as OpenClaw does (shouldSandboxSession): an entry's
    `sandbox: "required"` wins, even over its own `sandboxMode: "off"`."""
    build(tmp_path, "main", {MAIN: ["beacon at home"], DM: ["beacon in a chat"]},
          **{DM: {"sandbox": "required", "sandboxMode": "off"}})  # fmt: skip
    assert run_cli("import", "--state-dir", str(tmp_path), "--reindex", "--quiet").exit_code == 0
    assert found(tmp_path, "--as", DM) == {DM}
    assert found(tmp_path, "--as", MAIN) == {MAIN, DM}


@pytest.mark.parametrize(
    ("sandbox", "dm", "main"),
    [
        ({"mode": "off"}, {MAIN, DM, OPS}, {MAIN, DM, OPS}),
        ({"mode": "all"}, {DM}, {MAIN}),
        ({"mode": "non-main"}, {DM}, {MAIN, DM, OPS}),  # the agent's main runs unsandboxed
    ],
)
def test_the_agents_sandbox_mode_says_whose_sessions_are_sandboxed(
    tmp_path: Path, sandbox: dict, dm: set[str], main: set[str]
) -> None:
    world(tmp_path)
    openclaw_json(tmp_path, {"agents": {"defaults": {"sandbox": sandbox}}})
    assert found(tmp_path, "--as", DM) == dm
    assert found(tmp_path, "--as", MAIN) == main


def test_an_agents_own_mode_wins_over_the_defaults_and_an_entry_may_opt_out(
    tmp_path: Path,
) -> None:
    build(tmp_path, "main", {MAIN: ["beacon at home"], DM: ["beacon in a chat"]},
          **{DM: {"sandboxMode": "off"}})  # fmt: skip
    build(tmp_path, "ops", {OPS: ["beacon over there"]})
    assert run_cli("import", "--state-dir", str(tmp_path), "--reindex", "--quiet").exit_code == 0
    own = {"id": "main", "sandbox": {"mode": "off"}}
    openclaw_json(tmp_path, {"agents": {"defaults": {"sandbox": {"mode": "all"}}, "list": [own]}})
    assert found(tmp_path, "--as", MAIN) == {MAIN, DM, OPS}
    openclaw_json(tmp_path, {"agents": {"defaults": {"sandbox": {"mode": "all"}}}})
    assert found(tmp_path, "--as", MAIN) == {MAIN}
    assert found(tmp_path, "--as", DM) == {MAIN, DM, OPS}  # its entry opts out


def test_a_bad_sandbox_mode_is_a_config_error(tmp_path: Path) -> None:
    world(tmp_path)
    openclaw_json(tmp_path, {"agents": {"defaults": {"sandbox": {"mode": "sometimes"}}}})
    r = run_cli("search", "beacon", "--json", "--state-dir", str(tmp_path), "--as", DM)
    assert r.exit_code != 0
    assert "agents.defaults.sandbox.mode" in r.stderr


def test_history_and_sessions_follow_the_default(tmp_path: Path) -> None:
    world(tmp_path)
    r = run_cli("history", OPS, "--as", DM, "--json", "--state-dir", str(tmp_path))
    assert r.exit_code == 0, r.stderr
    r = run_cli("sessions", "--as", DM, "--json", "--state-dir", str(tmp_path))
    assert r.exit_code == 0, r.stderr
    assert {s["sessionKey"] for s in json_out(r)["sessions"]} == {MAIN, DM, OPS}  # no cron run


def test_command_line_visibility_is_the_operators_choice(tmp_path: Path) -> None:
    world(tmp_path)
    openclaw_json(tmp_path, {"tools": {"sessions": {"visibility": "self"}}})
    assert found(tmp_path, "--as", DM) == {DM}
    assert found(tmp_path, "--as", DM, "--visibility", "agent") == {MAIN, DM}


def test_cross_agent_denial_is_upstreams_text(tmp_path: Path) -> None:
    world(tmp_path)
    openclaw_json(tmp_path, {"tools": {"sessions": {"visibility": "agent"}}})
    r = run_cli("search", "beacon", "--json", "--state-dir", str(tmp_path), "--as", DM,
                "--session", OPS)  # fmt: skip
    assert r.exit_code == 2
    assert json_out(r)["error"] == (
        "Session search visibility is restricted. Set tools.sessions.visibility=all to allow"
        " cross-agent access; use tools.agentToAgent to restrict permitted agent pairs."
    )


# --- cron runs ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        (CRON, True),
        ("agent:main:cron:nightly:run:7:extra", True),
        ("AGENT:Main:CRON:j:RUN:r", True),
        ("agent:main:cron:nightly", False),  # the job's base key, not a run
        ("agent:main:cron:nightly:run:", False),
        ("agent:main:cron::run:7", False),
        ("agent:main:telegram:group:cron:x:run:y", False),
        ("cron:nightly:run:7", False),  # unscoped: not a run (upstream parses agent keys)
    ],
)
def test_cron_run_keys(key: str, expected: bool) -> None:
    assert is_cron_run_key(key) is expected


def test_agent_search_leaves_cron_runs_out_unless_named(tmp_path: Path) -> None:
    world(tmp_path)
    assert CRON not in found(tmp_path, "--as", MAIN)
    assert found(tmp_path, "--as", MAIN, "--session", CRON) == {CRON}
    assert CRON in found(tmp_path, "--as", CRON)  # a cron run searching sees itself
    assert CRON in found(tmp_path)  # the operator's search keeps them
    r = run_cli("search", "beacon", "--json", "--count", "--state-dir", str(tmp_path))
    assert json_out(r)["count"] == 3  # agent main's three sessions, its cron run among them


def test_cron_runs_never_fill_the_agents_page(tmp_path: Path) -> None:
    many = {f"agent:main:cron:j:run:{i}": ["beacon " * 5] for i in range(30)}
    build(tmp_path, "main", {MAIN: ["a lone beacon"], **many})
    run_cli("import", "--state-dir", str(tmp_path), "--reindex", "--quiet")
    r = run_cli("search", "beacon", "--json", "--limit", "1", "--state-dir", str(tmp_path),
                "--as", MAIN)  # fmt: skip
    out = json_out(r)
    assert [h["sessionKey"] for h in out["results"]] == [MAIN]
    assert "truncated" not in out


# --- indexing ----------------------------------------------------------------------------


def test_hidden_pending_sessions_do_not_say_indexing(tmp_path: Path) -> None:
    src = tmp_path / "src"
    d = src / "agents" / "main" / "sessions"
    sessions = {MAIN: Session("m"), DM: Session("d"), CRON: Session("c")}
    roots = {}
    for key, s in sessions.items():
        roots[key] = s.user(f"beacon in {key}")
        s.assistant("an answer")
        s.write(d / f"{s.session_id}.jsonl")
    write_sessions_json(d, {k: {"sessionId": s.session_id} for k, s in sessions.items()})
    state = tmp_path / "state"
    run_cli("import", str(src), "--state-dir", str(state), "--reindex", "--quiet")
    openclaw_json(state, {"tools": {"sessions": {"visibility": "self"}}})

    def indexing(*args: str) -> bool:
        r = run_cli("search", "beacon", "--json", "--state-dir", str(state), *args)
        return bool(json_out(r).get("indexing"))

    def pend(key: str) -> None:  # a rewind: that session waits for its rebuild
        sessions[key].navigate(roots[key])
        sessions[key].assistant("another answer", parent=roots[key])
        sessions[key].write(d / f"{sessions[key].session_id}.jsonl")
        run_cli("import", str(src), "--state-dir", str(state), "--quiet", "--no-reindex")

    pend(CRON)
    assert indexing()  # the operator searches every session: it is pending
    assert not indexing("--as", MAIN)
    assert not indexing("--as", MAIN, "--visibility", "agent")  # not searched: a cron run
    assert indexing("--as", MAIN, "--visibility", "agent", "--session", CRON)
    pend(DM)
    assert not indexing("--as", MAIN)
    assert not indexing("--as", MAIN, "--visibility", "agent", "--session", MAIN)
    assert indexing("--as", MAIN, "--visibility", "agent")
    assert indexing("--as", DM)
    pend(MAIN)
    assert indexing("--as", MAIN)


# --- config.toml -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('visibility = "all"\n', "visibility"),
        ('visibility = "self"\n', "visibility"),  # not even to narrow: one source, openclaw.json
        ('[search]\nvisibility = "agent"\n', "search.visibility"),
        ('[history]\nvisibility = "all"\n', "history.visibility"),
        ('[sessions]\nvisibility = "all"\n', "sessions.visibility"),
        ('[export]\nvisibility = "all"\n', "export.visibility"),
        ('[mcp]\nvisibility = "all"\n', "mcp.visibility"),
    ],
)
def test_config_toml_never_sets_an_agents_visibility(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, key: str
) -> None:
    world(tmp_path / "state")
    openclaw_json(tmp_path / "state", {"tools": {"sessions": {"visibility": "tree"}}})
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setenv("OPENCLAW_SESSIONS_CONFIG", str(path))
    r = run_cli("search", "beacon", "--json", "--as", DM)
    assert r.exit_code == 2
    assert r.stdout == ""
    first = r.stderr.splitlines()[0]
    assert first.startswith(f"error: config file {path}: {key}")
    assert "command line" in first


def test_config_toml_may_still_sandbox_a_caller(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`sandboxed` only ever narrows (the clamp): the file may set it."""
    world(tmp_path / "state")
    path = tmp_path / "config.toml"
    path.write_text("[search]\nsandboxed = true\n", encoding="utf-8")
    monkeypatch.setenv("OPENCLAW_SESSIONS_CONFIG", str(path))
    r = run_cli("search", "beacon", "--json", "--as", DM)
    assert r.exit_code == 0, r.stderr
    assert {h["sessionKey"] for h in json_out(r)["results"]} == {DM}


def test_mcp_server_follows_the_default_and_openclaw_json(tmp_path: Path) -> None:
    from openclaw_sessions.cli.commands.mcp import McpOptions
    from openclaw_sessions.mcp import identity

    world(tmp_path)
    ident = identity.resolve(McpOptions(DM, False, tmp_path, "main"))
    assert identity.describe(ident) == f"session {DM} (visibility all)"
    openclaw_json(tmp_path, {"tools": {"sessions": {"visibility": "tree"}}})
    ident = identity.resolve(McpOptions(DM, False, tmp_path, "main"))
    assert identity.describe(ident) == f"session {DM} (visibility tree)"
