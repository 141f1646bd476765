"""Nothing hidden leaks out (issue #15 C): redaction of every field, explain counts, session-id
resolution, existence oracles, terminal injection, markup/emoji, import issues and errors."""

from __future__ import annotations

import json
import random
import re
import string
from pathlib import Path
from typing import Any

import pytest
from helpers import Session, json_out, run_cli, visible_keys, write_sessions_json

_R = random.Random(15)
GHP = "ghp_" + "".join(_R.choice(string.ascii_letters + string.digits) for _ in range(36))
SK = "sk-ant-api03-" + "".join(_R.choice(string.ascii_letters + string.digits) for _ in range(60))
SECRETS = (GHP, SK)
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def leaked(text: str) -> list[str]:
    """The planted secrets whose unmasked middle appears in ``text``."""
    return [s for s in SECRETS if s[6:-4] in text]


def sdir(root: Path, agent: str = "main") -> Path:
    return root / "agents" / agent / "sessions"


def imported(root: Path) -> None:
    r = run_cli("import", str(root), "--reindex")
    assert r.exit_code in (0, 4), r.output


# --- C1: history --json --include-tools redacts every field ---------------------------------


def hostile_message_session(root: Path) -> None:
    s = Session("c1-1")
    s.user("hello zzc1")
    s.add({"message": {"role": "assistant", "content": {"kind": "object", "token": GHP}}})
    s.add({"message": {"role": "assistant", "content": [
        {"type": "redacted_thinking", "data": f"opaque {SK}"},
        {"type": "my_custom_block", "payload": {"nested": [f"x {GHP}"]}, GHP: "key is secret"},
        {"type": "text", "text": "visible zzc1 answer"},
        f"a bare string block {SK}",
    ], "metadata": {"note": f"api key {SK}"}, "provider": f"prov {GHP}",
        "attachments": [{"name": "a.txt", "body": f"file body {GHP}"}]}})  # fmt: skip
    s.tool(f"tool output {SK}")
    s.write(sdir(root) / "c1-1.jsonl")
    write_sessions_json(sdir(root), {"agent:main:main": {"sessionId": "c1-1"}})


def test_history_json_include_tools_redacts_every_field(tmp_path: Path) -> None:
    hostile_message_session(tmp_path / "src")
    imported(tmp_path / "src")
    for extra in ((), ("--include-tools",)):
        r = run_cli("history", "agent:main:main", "--json", *extra)
        assert r.exit_code == 0
        assert leaked(r.stdout) == [], extra
        out = json_out(r)
        assert out["contentRedacted"] is True
    body = json.dumps(out, ensure_ascii=False)
    # Walked, not dropped: the unknown fields are still there, masked.
    for kept in ("redacted_thinking", "my_custom_block", "payload", "metadata", "attachments",
                 "a bare string block", "file body", "tool output"):  # fmt: skip
        assert kept in body, kept
    assert "ghp_" + GHP[4:6] + "…" + GHP[-4:] in body  # the mask, also as an object key
    table = run_cli("history", "agent:main:main", "--include-tools")
    assert table.exit_code == 0
    assert leaked(table.stdout + table.stderr) == []


# --- C2: --explain counts only redacted, visible text -----------------------------------------


def explain_session(root: Path) -> None:
    s = Session("c2-1")
    s.user("first question")
    fork = s.leaf
    # An abandoned branch: a tool call carrying the secret, and plain text with a word.
    s.add({"message": {"role": "assistant", "content": [
        {"type": "toolCall", "id": "c", "name": "exec", "arguments": {"token": GHP}},
        {"type": "text", "text": f"the zzabandoned word and the key {GHP}"}]}})  # fmt: skip
    s.assistant("the active reply", parent=fork)
    s.write(sdir(root) / "c2-1.jsonl")
    inc = Session("c2-2")
    inc.user("zzincognito words")
    fork = inc.leaf
    inc.user("zzincabandoned words")
    inc.assistant("reply", parent=fork)
    inc.write(sdir(root) / "c2-2.jsonl")
    store = {"agent:main:main": {"sessionId": "c2-1"}}
    store["agent:main:dashboard:incognito-z"] = {"sessionId": "c2-2"}
    write_sessions_json(sdir(root), store)


def why(term: str) -> dict[str, Any]:
    r = run_cli("search", term, "--json", "--explain")
    assert r.exit_code == 1, (term, r.output)
    (item,) = json_out(r)["explain"]["agents"]["main"]["why"]
    return dict(item)


def test_explain_counts_only_redacted_visible_text(tmp_path: Path) -> None:
    explain_session(tmp_path / "src")
    imported(tmp_path / "src")
    assert why("zzabandoned")["abandonedOrUnindexedMatches"] == 1  # visible text still counts
    # A secret cannot be recovered one character at a time from the counts: neither its
    # characters in the tool call nor in the (masked) text are counted.
    for n in (8, 12, 20, 30, len(GHP)):
        assert why(GHP[:n])["abandonedOrUnindexedMatches"] == 0, n
    assert why(GHP[10:30])["abandonedOrUnindexedMatches"] == 0
    assert why("exec")["abandonedOrUnindexedMatches"] == 0  # a tool name is not text
    # Incognito sessions count nowhere: neither their indexed text nor their branches.
    inc = why("zzincognito")
    assert inc["indexedMatches"] == 0
    assert inc["abandonedOrUnindexedMatches"] == 0
    assert why("zzincabandoned")["abandonedOrUnindexedMatches"] == 0


def test_explain_counts_unindexed_sessions_with_the_index_rules(tmp_path: Path) -> None:
    s = Session("c2-3")
    s.user("Ünïcödé café crème zzpending")
    s.write(sdir(tmp_path / "src") / "c2-3.jsonl")
    write_sessions_json(sdir(tmp_path / "src"), {"agent:main:main": {"sessionId": "c2-3"}})
    assert run_cli("import", str(tmp_path / "src"), "--no-reindex").exit_code == 0  # not indexed
    w = why("zzpending")
    assert w["abandonedOrUnindexedMatches"] == 1
    assert "abandonedOrUnindexedCapped" not in w


# --- C3: shared session ids resolve among visible keys only -----------------------------------


def shared_id_state(root: Path) -> None:
    d = sdir(root)
    s = Session("shared-1")
    s.user("zzshared words")
    s.write(d / "shared-1.jsonl")
    # Two keys point at the same transcript id; the caller below may see neither or one.
    write_sessions_json(d, {
        "agent:main:main": {"sessionId": "caller-1"},
        "agent:main:discord:direct:alice": {"sessionId": "shared-1"},
        "agent:main:discord:direct:bob": {"sessionId": "shared-1"},
        "agent:main:subagent:kid": {"sessionId": "kid-1", "spawnedBy": "agent:main:main"},
    })  # fmt: skip
    k = Session("kid-1")
    k.user("kid words")
    k.write(d / "kid-1.jsonl")
    c = Session("caller-1")
    c.user("caller words")
    c.write(d / "caller-1.jsonl")


def test_shared_session_id_never_names_hidden_keys(tmp_path: Path) -> None:
    shared_id_state(tmp_path / "src")
    imported(tmp_path / "src")
    hidden = ("alice", "bob")
    as_kid = ["--as", "agent:main:subagent:kid", "--visibility", "tree"]
    for cmd in (["history", "shared-1"], ["search", "zzshared", "--session", "shared-1"]):
        r = run_cli(*cmd, "--json", *as_kid)
        assert r.exit_code == 2
        assert not any(h in r.stdout + r.stderr for h in hidden), r.output
        assert json_out(r)["status"] == "forbidden"
    # A caller that sees both may be told both.
    r = run_cli("history", "shared-1", "--json", "--as", "agent:main:main", "--visibility", "agent")
    assert r.exit_code == 2
    assert "alice" in r.stderr
    assert "bob" in r.stderr
    # Operator mode sees both as well; --as with visibility self sees neither.
    r = run_cli("history", "shared-1", "--json", "--as", "agent:main:main", "--visibility", "self")
    assert r.exit_code == 2
    assert not any(h in r.stdout + r.stderr for h in hidden)


def test_shared_session_id_resolves_to_the_visible_one(tmp_path: Path) -> None:
    # Session ids are unique per agent upstream; two agents' stores may hold the same one.
    for agent, key in (("main", "agent:main:subagent:mine"), ("work", "agent:work:direct:carol")):
        d = sdir(tmp_path / "src", agent)
        s = Session("dup-1")
        s.user(f"zzdup words of {agent}")
        s.write(d / "dup-1.jsonl")
        c = Session(f"{agent}-main")
        c.user("hello")
        c.write(d / f"{agent}-main.jsonl")
        write_sessions_json(d, {key: {"sessionId": "dup-1", "spawnedBy": f"agent:{agent}:main"},
                        f"agent:{agent}:main": {"sessionId": f"{agent}-main"}})  # fmt: skip
    imported(tmp_path / "src")
    mine = ["--as", "agent:main:subagent:mine", "--visibility", "self"]
    r = run_cli("history", "dup-1", "--json", *mine)
    assert r.exit_code == 0
    assert json_out(r)["sessionKey"] == "agent:main:subagent:mine"
    r = run_cli("search", "zzdup", "--session", "dup-1", "--json", *mine)
    assert r.exit_code == 0
    assert "carol" not in r.stdout + r.stderr
    # a2a off: work's main sees only its own agent's sessions; the id resolves there.
    theirs = ["--as", "agent:work:main", "--visibility", "all"]
    with_a2a_off = tmp_path / "state" / "openclaw.json"
    with_a2a_off.write_text(json.dumps({"tools": {"agentToAgent": {"enabled": False}}}))
    r = run_cli("history", "dup-1", "--json", *theirs)
    assert r.exit_code == 0
    assert json_out(r)["sessionKey"] == "agent:work:direct:carol"
    # Seeing both (a2a on): the caller's own agent's wins, as upstream ids are per agent.
    with_a2a_off.unlink()
    r = run_cli("history", "dup-1", "--json", *theirs)
    assert r.exit_code == 0
    assert json_out(r)["sessionKey"] == "agent:work:direct:carol"


# --- C4: existence oracles, as upstream answers them ------------------------------------------


def oracle_state(root: Path) -> None:
    d = sdir(root)
    store = {
        "agent:main:main": {"sessionId": "m-1"},
        "agent:main:subagent:child": {"sessionId": "ch-1", "spawnedBy": "agent:main:main"},
        "agent:main:discord:direct:dave": {"sessionId": "dave-1"},
        "agent:main:dashboard:incognito-q": {"sessionId": "inc-1"},
        "agent:main:subagent:incognito-k": {"sessionId": "inck-1", "spawnedBy": "agent:main:main"},
    }
    for entry in store.values():
        s = Session(entry["sessionId"])
        s.user("zzoracle text")
        s.write(d / f"{entry['sessionId']}.jsonl")
    write_sessions_json(d, store)


def answer(target: str, caller: str = "agent:main:subagent:child", *flags: str) -> tuple:
    """(exit code, JSON status, error with the target and the action word replaced), the same
    for history and search."""
    outs = set()
    for cmd in (["history", target], ["search", "zzoracle", "--session", target]):
        r = run_cli(*cmd, "--json", "--as", caller, *flags)
        body = json_out(r)
        err = body.get("error", "").replace(target, "T").replace(f" {cmd[0]} ", " ACTION ")
        outs.add((r.exit_code, body.get("status", "ok"), err))
    (one,) = outs  # history and search agree
    return one


@pytest.mark.slow
def test_sandboxed_callers_cannot_tell_hidden_from_missing(tmp_path: Path) -> None:
    oracle_state(tmp_path / "src")
    imported(tmp_path / "src")

    # The main session, sandboxed, is spawn-restricted (a sandboxed subagent is not).
    def ans(target: str) -> tuple:
        return answer(target, "agent:main:main", "--sandboxed")

    by_id = (2, "forbidden", "Session not visible from this sandboxed agent session: T")
    # A key: the tree clamp's words, as the real 2026.9.6 answers (test_real_openclaw_diff_more)
    by_key = (2, "forbidden", "Session ACTION visibility is restricted to the current session "
              "tree (tools.sessions.visibility=tree).")  # fmt: skip
    for hidden, missing, expected in (
        ("agent:main:discord:direct:dave", "agent:main:discord:direct:nobody", by_key),
        ("dave-1", "no-such-id", by_id),  # session ids: resolved among the caller's own only
        ("inc-1", "no-such-id-2", by_id),  # an incognito id the caller did not spawn
    ):
        assert ans(hidden) == ans(missing) == expected, hidden
    incognito = (2, "forbidden", "Session not visible from session tools: T")
    assert ans("agent:main:dashboard:incognito-q") == incognito
    assert ans("agent:main:dashboard:incognito-none") == incognito
    # Its own spawned child: visible by key and by id.
    assert ans("agent:main:subagent:child")[:2] == (0, "ok")
    assert ans("ch-1")[:2] == (0, "ok")


@pytest.mark.slow
def test_unsandboxed_callers_get_upstreams_answers(tmp_path: Path, state: Path) -> None:
    oracle_state(tmp_path / "src")
    imported(tmp_path / "src")
    (state / "openclaw.json").write_text('{"tools": {"sessions": {"visibility": "tree"}}}')
    tree = (2, "forbidden", "Session ACTION visibility is restricted to the current session tree"
            " (tools.sessions.visibility=tree).")  # fmt: skip
    # Keys: hidden is forbidden whether it exists or not (the same answer).
    assert answer("agent:main:discord:direct:dave") == tree
    assert answer("agent:main:discord:direct:nobody") == tree
    inc = (2, "forbidden", "Session not visible from session tools: T")
    assert answer("agent:main:dashboard:incognito-q") == inc
    assert answer("agent:main:dashboard:incognito-none") == inc
    # Session ids: upstream resolves an id across the store first, so an unknown id is "not
    # found" and a hidden one forbidden (its denial names no key).
    not_found = "Session not found: T (use the full sessionKey from sessions_list)"  # upstream
    assert answer("no-such-id") == (2, "error", not_found)
    assert answer("dave-1") == tree
    assert answer("inc-1") == inc


def test_upstream_resolution_cases() -> None:
    """Ported from upstream sessions-resolution.test.ts and session-visibility.test.ts."""
    from openclaw_sessions.errors import ForbiddenError
    from openclaw_sessions.policy.keys import SessionRef
    from openclaw_sessions.policy.visibility import Caller, Policy

    inc = "agent:main:dashboard:incognito-private"
    refs = [
        SessionRef("agent:main:main", "main", "s-main"),
        SessionRef("agent:main:worker", "main", "s-worker", spawned_by="agent:main:main"),
        SessionRef("agent:main:other", "main", "s-other"),
        SessionRef(inc, "main", "s-inc"),
        SessionRef("main", "main", "s-bare-main"),  # an unscoped row of agent main
    ]
    # Incognito targets are rejected even when the requester is that very session.
    me = Policy(Caller(inc, "main", visibility="all"), refs)
    with pytest.raises(ForbiddenError, match="not visible from session tools"):
        me.resolve_target(inc)
    # Spawn verification only for sandboxed key-based cross-session access.
    sand = Policy(Caller("agent:main:main", "main", sandboxed=True), refs)
    assert sand.resolve_target("agent:main:worker") == "agent:main:worker"
    assert sand.resolve_target("s-worker") == "agent:main:worker"  # resolved among its own
    assert sand.resolve_target("agent:main:main") == "agent:main:main"  # itself
    # The tool answers a key beyond its own with the tree clamp's words (the real 2026.9.6's
    # sessions_history checks visibility before it resolves: test_real_openclaw_diff_more).
    with pytest.raises(ForbiddenError, match="restricted to the current session tree"):
        sand.resolve_target("agent:main:other")
    free = Policy(Caller("agent:main:main", "main", visibility="agent"), refs)
    assert free.resolve_target("agent:main:other") == "agent:main:other"
    # An unscoped row of the default agent is not the requester's when it is another agent.
    work = Policy(Caller("agent:work:main", "work", visibility="all"), refs)
    assert "main" not in visible_keys(work, refs)
    main = Policy(Caller("agent:main:main", "main", visibility="agent"), refs)
    assert "main" in visible_keys(main, refs)


# --- #14 §4: another agent's unscoped keys never reach an --as caller -------------------------


def test_foreign_unscoped_keys_never_reach_an_as_caller(tmp_path: Path) -> None:
    for agent, text in (("main", "zzglobal main copy"), ("work", "zzglobal work copy")):
        d = sdir(tmp_path / "src", agent)
        s = Session(f"{agent}-g")
        s.user(text)
        s.write(d / f"{agent}-g.jsonl")
        m = Session(f"{agent}-m")
        m.user(f"zzglobal {agent} main session")
        m.write(d / f"{agent}-m.jsonl")
        store = {
            "global": {"sessionId": f"{agent}-g"},
            f"agent:{agent}:main": {"sessionId": f"{agent}-m"},
        }
        write_sessions_json(d, store)
    imported(tmp_path / "src")
    as_main = ["--as", "agent:main:main", "--visibility", "all"]  # a2a on by default
    r = run_cli("search", "zzglobal", "--json", "--limit", "25", *as_main)
    hits = json_out(r)["results"]
    got = {(h["sessionKey"], h["sessionId"]) for h in hits}
    assert got == {
        ("global", "main-g"),
        ("agent:main:main", "main-m"),
        ("agent:work:main", "work-m"),
    }
    assert "work copy" not in r.stdout
    # Results and history agree: `global` is the caller's own agent's.
    h = run_cli("history", "global", "--json", *as_main, "--agent", "work")
    # (an agent's history names no sessionId, as upstream's: the text tells the generation)
    assert h.exit_code == 0
    assert "main copy" in h.stdout
    assert "work copy" not in h.stdout
    s = run_cli("search", "zzglobal", "--session", "global", "--json", *as_main)
    assert {x["sessionId"] for x in json_out(s)["results"]} == {"main-g"}
    # As agent work, `global` is work's.
    as_work = ["--as", "agent:work:main", "--visibility", "all"]
    h = run_cli("history", "global", "--json", *as_work)
    assert h.exit_code == 0
    assert "work copy" in h.stdout
    assert "main copy" not in h.stdout
    r = run_cli("search", "zzglobal", "--json", *as_work)
    assert ("global", "main-g") not in {
        (x["sessionKey"], x["sessionId"]) for x in json_out(r)["results"]
    }


@pytest.mark.slow
def test_unscoped_key_of_another_agent_only_is_not_found(tmp_path: Path) -> None:
    d = sdir(tmp_path / "src", "work")
    s = Session("w-g")
    s.user("zzonlywork")
    s.write(d / "w-g.jsonl")
    write_sessions_json(d, {"global": {"sessionId": "w-g"}})
    dm = sdir(tmp_path / "src", "main")
    Session("m-m").write(dm / "m-m.jsonl")
    write_sessions_json(dm, {"agent:main:main": {"sessionId": "m-m"}})
    imported(tmp_path / "src")
    as_main = ["--as", "agent:main:main", "--visibility", "all"]
    h = run_cli("history", "global", "--json", *as_main)
    assert h.exit_code == 2
    assert json_out(h)["status"] == "error"
    assert run_cli("search", "zzonlywork", "--json", *as_main).exit_code == 1


# --- C5/C6: terminal injection, markup and emoji ---------------------------------------------


ESCAPES = (
    "\x1b[2J\x1b]0;owned\x07\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\\r\x9b31m\x08\x7f"
)
THREAD = "agent:main:discord:group:g1:thread:t9"


def terminal_state(root: Path) -> None:
    d = sdir(root)
    s = Session("term-1")
    s.user(f"zzterm before {ESCAPES} after [bold]not markup[/bold] :smile:")
    s.assistant(f"zzterm reply {ESCAPES} **md** :thread:")
    s.tool(f"tool {ESCAPES}")
    s.write(d / "term-1.jsonl")
    write_sessions_json(d, {THREAD: {"sessionId": "term-1"}})


def test_terminal_output_carries_no_control_character(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # whole cells on one line, to read them back
    terminal_state(tmp_path / "src")
    imported(tmp_path / "src")
    runs = [
        run_cli("search", "zzterm"),
        run_cli("search", "zzterm", "--jsonl"),
        run_cli("search", "zzterm", "--json"),
        run_cli("search", "zznothing", "--explain"),
        run_cli("history", THREAD),
        run_cli("history", THREAD, "--include-tools"),
        run_cli("history", THREAD, "--json", "--include-tools"),
        run_cli("status"),
    ]
    for r in runs:
        assert not RAW_CONTROL.search(r.stdout + r.stderr), (r.stdout + r.stderr)[:400]
    table = runs[0].stdout + runs[4].stdout
    assert "\\x1b[2J" in table
    assert "\\x07" in table
    assert "\\x9b" in table  # visible escapes
    assert "[bold]not markup[/bold]" in table
    assert ":smile:" in table
    js = json_out(runs[2])["results"][0]["snippet"]
    assert "\x1b[2J" in js
    assert "\x9b" in js  # JSON keeps the data, escaped (jq sees it)
    assert "\\u009b" in runs[2].stdout


def test_keys_print_as_typed_no_emoji(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "400")
    terminal_state(tmp_path / "src")
    imported(tmp_path / "src")
    for r in (run_cli("search", "zzterm"), run_cli("history", THREAD),
              run_cli("history", THREAD + ":nope")):  # fmt: skip
        text = r.stdout + r.stderr
        assert "🧵" not in text
        assert "😄" not in text
    assert THREAD in run_cli("search", "zzterm").stdout.replace("\n", "")
    assert THREAD in run_cli("history", THREAD).stderr.replace("\n", "")


# --- C7: import issues and errors are redacted -----------------------------------------------


def test_import_issues_and_errors_are_redacted(tmp_path: Path) -> None:
    d = sdir(tmp_path / "src")
    s = Session("c7-1")
    s.user("hello")
    s.write(d / "c7-1.jsonl")
    store = {"agent:main:main": {"sessionId": "c7-1", "sessionFile": f"/etc/{GHP}/x.jsonl"}}
    store["agent:main:other"] = {"sessionId": "c7-2", "sessionFile": f"../../{SK}"}
    write_sessions_json(d, store)
    for args, code in (((), 4), (("--json",), 0)):  # reported once, then known (exit 0)
        r = run_cli("import", str(tmp_path / "src"), *args)
        assert r.exit_code == code
        assert "path_escape" in r.stdout + r.stderr
        assert leaked(r.stdout + r.stderr) == [], args
    for args in ((), ("--json",)):  # and remembered, redacted
        r = run_cli("status", "--problems", *args)
        assert "path_escape" in r.stdout, args
        assert leaked(r.stdout + r.stderr) == [], args
    for cmd in (["history", GHP], ["history", GHP, "--json"], ["search", "x", "--session", SK,
                "--as", "agent:main:main"], ["history", "agent:main:" + SK]):  # fmt: skip
        r = run_cli(*cmd)
        assert r.exit_code == 2
        assert leaked(r.stdout + r.stderr) == [], cmd
