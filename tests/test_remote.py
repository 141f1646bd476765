"""The fleet's search: the same hits as local search on the same data, for every planted word
and common, accented and CJK words, with every filter; --as as the caller on its own host;
nothing a local search must not find, no secret and no incognito text centrally."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import Session, write_sessions_json

from tests import remote_env as env

SHARED = "fleetshared"
PLANTS_A = ["zanzibarquux", "quokkafleet", SHARED]
PLANTS_B = ["xylophonerix", SHARED]
WORDS = ["deploy", "rollback", "the", "Ärger", "arger", "数据", "据", "問題", "déploiement",
         "deploiement", "migration timeout", "sk-fake", "zz-no-such", "ver"]  # fmt: skip


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    env.server()
    root = tmp_path_factory.mktemp("fleet")
    a, ma = env.make_host(root, 1, PLANTS_A)
    b, mb = env.make_host(root, 2, PLANTS_B)
    (a / "openclaw.json").write_text(
        json.dumps(
            {"tools": {"sessions": {"visibility": "all"}, "agentToAgent": {"enabled": True}}}
        )
    )
    target = env.new_db()
    env.push(target, a, "gw-a")
    env.push(target, b, "gw-b")
    return {"dsn": target, "hosts": {"gw-a": a, "gw-b": b}, "manifests": {"gw-a": ma, "gw-b": mb}}


def _local(state: Path, word: str, *args: str) -> set[tuple[str, str, str]]:
    r = env.cli("search", word, "--state-dir", str(state), "--json", "-n", "100000",
                "--all-agents", *args)  # fmt: skip
    assert r.exit_code in (0, 1), r.stderr
    # an exchange's words (no one message holds them all) are matched locally only (README)
    hits = [h for h in json.loads(r.stdout)["results"] if "exchange" not in h]
    return {(h["agentId"], h["sessionKey"], h["messageId"]) for h in hits}


def _remote(fleet: dict[str, Any], word: str, *args: str) -> list[dict[str, Any]]:
    r = env.cli("search", word, "--remote", fleet["dsn"], "--json", "-n", "100000", *args)
    assert r.exit_code in (0, 1), r.stderr
    return json.loads(r.stdout)["results"]  # type: ignore[no-any-return]


def _by_host(hits: list[dict[str, Any]], host: str) -> set[tuple[str, str, str]]:
    return {(h["agentId"], h["sessionKey"], h["messageId"]) for h in hits if h["host"] == host}


@pytest.mark.slow
def test_planted_words_are_found_where_local_search_finds_them(fleet: dict[str, Any]) -> None:
    for host, manifest in fleet["manifests"].items():
        for p in manifest["planted"]:
            hits = _remote(fleet, p["word"])
            assert (host, p["sessionKey"], p["messageId"]) in {
                (h["host"], h["sessionKey"], h["messageId"]) for h in hits
            }, p
            assert _by_host(hits, host) == _local(fleet["hosts"][host], p["word"])


@pytest.mark.slow
@pytest.mark.parametrize("word", WORDS)
@pytest.mark.parametrize(
    "args",
    [(), ("--prefix",), ("--role", "user"), ("--order", "recent"), ("--since", "2026-03-01")],
    ids=["plain", "prefix", "role", "recent", "since"],
)
def test_same_hits_as_local_search(fleet: dict[str, Any], word: str, args: tuple[str, ...]) -> None:
    hits = _remote(fleet, word, *args)
    assert {h["host"] for h in hits} <= set(fleet["hosts"])
    for host, state in fleet["hosts"].items():
        assert _by_host(hits, host) == _local(state, word, *args), (host, word, args)
        narrowed = _remote(fleet, word, "--host", host, *args)
        assert {h["host"] for h in narrowed} <= {host}
        assert _by_host(narrowed, host) == _by_host(hits, host)


def test_every_operator_hit_names_its_host_and_agent(fleet: dict[str, Any]) -> None:
    hits = _remote(fleet, SHARED)
    assert {h["host"] for h in hits} == {"gw-a", "gw-b"}
    assert all(list(h)[:2] == ["host", "sessionKey"] and "agentId" in h for h in hits)


def test_agent_filter_counts_and_sessions_match_local(fleet: dict[str, Any]) -> None:
    a = fleet["hosts"]["gw-a"]
    for agent in ("main", "ops"):
        got = _by_host(_remote(fleet, "deploy", "--host", "gw-a", "--agent", agent), "gw-a")
        r = env.cli("search", "deploy", "--state-dir", str(a), "--json", "-n", "100000",
                    "--agent", agent)  # fmt: skip
        want = {
            (h["agentId"], h["sessionKey"], h["messageId"]) for h in json.loads(r.stdout)["results"]
        }
        assert got == want
        assert got
    r = env.cli("search", "deploy", "--remote", fleet["dsn"], "--host", "gw-a", "--count")
    local = env.cli("search", "deploy", "--state-dir", str(a), "--all-agents", "--count")
    assert (r.exit_code, r.stdout) == (0, local.stdout)
    r = env.cli("search", "deploy", "--remote", fleet["dsn"], "--host", "gw-a", "--sessions",
                "--json")  # fmt: skip
    local = env.cli(
        "search", "deploy", "--state-dir", str(a), "--all-agents", "--sessions", "--json"
    )
    got_s = {(s["host"], s["sessionKey"], s["count"]) for s in json.loads(r.stdout)["sessions"]}
    want_s = {("gw-a", s["sessionKey"], s["count"]) for s in json.loads(local.stdout)["sessions"]}
    assert got_s == want_s


def test_limit_cuts_and_totals(fleet: dict[str, Any]) -> None:
    r = env.cli("search", "the", "--remote", fleet["dsn"], "--json", "-n", "3")
    doc = json.loads(r.stdout)
    assert len(doc["results"]) == 3
    assert doc["truncated"] is True
    assert doc.get("total", doc.get("totalAtLeast", 0)) > 3


def _callers(state: Path) -> list[str]:
    from helpers import query

    keys = [k for (k,) in query(state, "SELECT session_key FROM sessions ORDER BY session_key")]
    subs = [k for k in keys if ":subagent:" in k][:2]
    return ["agent:main:main", *subs, keys[len(keys) // 2]]


@pytest.mark.slow
@pytest.mark.parametrize("host", ["gw-a", "gw-b"])
@pytest.mark.parametrize("vis", [None, "self", "tree", "agent", "all"])
def test_as_central_equals_local(fleet: dict[str, Any], host: str, vis: str | None) -> None:
    state = fleet["hosts"][host]
    extra = ("--visibility", vis) if vis else ()
    for key in _callers(state):
        for word in ("deploy", SHARED, "数据"):
            local = env.cli("search", word, "--state-dir", str(state), "--as", key, "--json",
                            "-n", "25", "--order", "recent", *extra)  # fmt: skip
            remote = env.cli("search", word, "--remote", fleet["dsn"], "--host", host, "--as",
                             key, "--json", "-n", "25", "--order", "recent", *extra)  # fmt: skip
            assert remote.exit_code == local.exit_code, (key, word, remote.stderr, local.stderr)
            if local.exit_code > 1:
                assert remote.stderr == local.stderr
                continue
            ld, rd = json.loads(local.stdout), json.loads(remote.stdout)
            assert list(rd) == list(ld)
            assert [list(h) for h in rd["results"]] == [list(h) for h in ld["results"]]
            pick = [(h["sessionKey"], h["messageId"], h["timestamp"]) for h in ld["results"]]
            assert [
                (h["sessionKey"], h["messageId"], h["timestamp"]) for h in rd["results"]
            ] == pick


def test_as_needs_one_host(fleet: dict[str, Any]) -> None:
    r = env.cli("search", "deploy", "--remote", fleet["dsn"], "--as", "agent:main:main")
    assert r.exit_code == 2
    assert "--host" in r.stderr


@pytest.mark.slow
def test_nothing_local_search_must_not_find(tmp_path: Path) -> None:
    """Incognito sessions, thinking, tool calls and results, secrets and abandoned branches
    never reach the central tables; none of it is found there."""
    state = tmp_path / "state"
    sdir = state / "agents" / "main" / "sessions"
    s = Session("s1")
    s.user("hello visiblefleetword here")
    old = s.assistant("a reply", thinking="thinkingsecretword")
    s.tool("toolresultword output")
    call = {"type": "toolCall", "id": "c1", "name": "exec", "arguments": {"cmd": "toolcallword"}}
    s.add({"message": {"role": "assistant", "content": [call]}})
    s.user("my key is sk-fakeAbCdEfGhIjKlMnOpQrStUvWxYz0123456789 and password=hunter2hunter2")
    s.user("abandonedbranchword is on a branch left behind")
    s.navigate(old)
    s.user("after rewind visiblefleetword")
    s.write(sdir / "s1.jsonl")
    inc = Session("inc1")
    inc.user("incognitotextword must stay home")
    inc.write(sdir / "inc1.jsonl")
    incognito = "agent:main:dashboard:incognito-abc"
    write_sessions_json(sdir, {"agent:main:main": {"sessionId": "s1", "updatedAt": 1},
                       incognito: {"sessionId": "inc1", "updatedAt": 2}})  # fmt: skip
    r = env.cli("import", "--reindex", "--state-dir", str(state), "--quiet")
    assert r.exit_code in (0, 4), r.stderr
    target = env.new_db()
    env.push(target, state, "gw")
    dump = json.dumps(env.admin(
        "SELECT (SELECT json_agg(r) FROM openclaw_sessions.ocs_rows r)::text,"
        " (SELECT json_agg(s) FROM openclaw_sessions.ocs_sessions s)::text,"
        " (SELECT json_agg(t) FROM openclaw_sessions.ocs_transcripts t)::text",
        db=target.split("dbname=")[1].split()[0],
    ), ensure_ascii=False)  # fmt: skip
    assert "visiblefleetword" in dump
    for word in ("incognito", "thinkingsecretword", "toolresultword", "toolcallword",
                 "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "hunter2hunter2"):  # fmt: skip
        assert word not in dump, word
    for word in ("incognitotextword", "thinkingsecretword", "toolresultword", "hunter2hunter2"):
        r = env.cli("search", word, "--remote", target, "--json")
        assert r.exit_code == 1, word
        assert json.loads(r.stdout)["results"] == [], word
    for word in ("abandonedbranchword", "visiblefleetword", "sk-fake"):
        local = env.cli("search", word, "--state-dir", str(state), "--json")
        remote = env.cli("search", word, "--remote", target, "--json")
        assert remote.exit_code == local.exit_code
        mids = [[h["messageId"] for h in json.loads(x.stdout)["results"]] for x in (local, remote)]
        assert sorted(mids[0]) == sorted(mids[1]), word
    assert "abandonedbranchword" not in dump


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [
        ("deploy", "--json"),
        ("deploy", "--agent", "ops", "--json"),
        ("deploy", "--agent", "main", "--jsonl", "-n", "3"),
        ("数据", "--count"),
        ("deploy", "--sessions", "--format", "plain"),
        ("deploy", "-n", "2", "--format", "plain"),
        ("deploy", "--context", "2"),
    ],
)
def test_the_installed_command_searches_the_fleet_as_in_process(
    fleet: dict[str, Any], args: tuple[str, ...]
) -> None:
    argv = ["search", *args, "--remote", fleet["dsn"]]
    script = Path(sys.executable).parent / "openclaw-sessions"
    for _ in range(2):  # no state carried from one run in process to the next
        proc = subprocess.run([script, *argv], capture_output=True, text=True)
        r = env.cli(*argv)
        assert (proc.returncode, proc.stdout, proc.stderr) == (r.exit_code, r.stdout, r.stderr)
    if "--agent" in args and "--json" in args:
        agent = args[args.index("--agent") + 1]
        assert {h["agentId"] for h in json.loads(r.stdout)["results"]} == {agent}


def test_a_local_search_leaves_nothing_behind_for_the_next(fleet: dict[str, Any]) -> None:
    a = fleet["hosts"]["gw-a"]
    assert env.cli("search", "deploy", "--agent", "ops", "--state-dir", str(a)).exit_code == 0
    r = env.cli("search", "deploy", "--remote", fleet["dsn"], "--json", "-n", "500")
    assert r.exit_code == 0
    assert {h["agentId"] for h in json.loads(r.stdout)["results"]} == {"main", "ops"}


def test_as_with_a_session_filter_and_its_refusals(fleet: dict[str, Any]) -> None:
    state = fleet["hosts"]["gw-b"]
    keys = _callers(state)
    base = ("search", "deploy", "--json", "--as", keys[0])
    for extra in (("--session", keys[-1]), ("--session", keys[-1], "--visibility", "self"),
                  ("--session", "agent:main:nosuch"), ("--visibility", "bogus")):  # fmt: skip
        local = env.cli(*base, *extra, "--state-dir", str(state))
        remote = env.cli(*base, *extra, "--remote", fleet["dsn"], "--host", "gw-b")
        assert (remote.exit_code, remote.stdout, remote.stderr) == (
            local.exit_code, local.stdout if local.exit_code > 1 else remote.stdout, local.stderr
        ), extra  # fmt: skip
        if local.exit_code < 2:
            ids = [
                [h["messageId"] for h in json.loads(x.stdout)["results"]] for x in (local, remote)
            ]
            assert sorted(ids[0]) == sorted(ids[1])
    r = env.cli(*base, "--remote", fleet["dsn"], "--host", "gw-nowhere")
    assert r.exit_code == 2
    assert "has not pushed" in r.stderr


@pytest.mark.slow
def test_a_row_too_large_for_a_tsvector_is_still_found(tmp_path: Path) -> None:
    state = tmp_path / "state"
    sdir = state / "agents" / "main" / "sessions"
    s = Session("big")
    s.user(" ".join(f"w{i:07d}" for i in range(60_000)) + " hugetailword")
    s.user("a small hugetailword message")
    s.write(sdir / "big.jsonl")
    write_sessions_json(sdir, {"agent:main:main": {"sessionId": "big", "updatedAt": 1}})
    assert env.cli("import", "--reindex", "--state-dir", str(state), "--quiet").exit_code == 0
    target = env.new_db()
    env.push(target, state, "gw")
    db = target.split("dbname=")[1].split()[0]
    assert (
        env.admin("SELECT count(*) FROM openclaw_sessions.ocs_rows WHERE tsv IS NULL", db=db)[0][0]
        == 1
    )
    for word, n in (("hugetailword", 2), ("w0000007-w0000008", 1), ("w0000008-w0000007", 0)):
        for extra in ((), ("--prefix",)):
            local = env.cli("search", word, "--state-dir", str(state), "--json", *extra)
            remote = env.cli("search", word, "--remote", target, "--json", *extra)
            assert len(json.loads(remote.stdout)["results"]) == n
            assert len(json.loads(local.stdout)["results"]) == n
