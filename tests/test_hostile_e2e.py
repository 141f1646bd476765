"""End to end through the installed command: hostile shapes among normal sessions (issue #15).

One state dir holds normal sessions and, next to them, a 200,000-repetition message, unknown
block types and extra fields carrying secrets, ESC/OSC/C1 sequences, `:thread:` keys, a
session id shared by keys the caller may not see, and incognito sessions. Every output of every
command (search table/JSON/JSONL, --explain, history table/JSON with and without tools,
status, the import report, errors) is checked: no traceback, no secret, no key the caller may
not see, no raw control character; every normal session is indexed and found.
"""

from __future__ import annotations

import json
import os
import random
import re
import string
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import Session, write_sessions_json

_R = random.Random(1515)
GHP = "ghp_" + "".join(_R.choice(string.ascii_letters + string.digits) for _ in range(36))
SK = "sk-ant-api03-" + "".join(_R.choice(string.ascii_letters + string.digits) for _ in range(64))
SECRETS = (GHP, SK)
ESC = (
    "\x1b[31mred\x1b[0m \x1b]0;title\x07 "  # colour, window title (OSC 0)
    "\x1b]8;;http://evil.example\x1b\\x\x1b]8;;\x1b\\ \x9b2J\r"  # hyperlink, C1 CSI, CR
)
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
CALLER = "agent:main:subagent:caller"
THREAD = "agent:main:discord:group:g1:thread:t9"
HIDDEN = (
    THREAD,
    "agent:main:discord:direct:alice",
    "agent:main:discord:direct:bob",
    "agent:main:dashboard:incognito-e2e",
)
NORMAL = [f"agent:main:telegram:direct:user{i}" for i in range(6)]


def _build(src: Path) -> None:
    d = src / "agents" / "main" / "sessions"
    store: dict[str, dict] = {}

    def add(key: str, sid: str, s: Session, **entry: str) -> None:
        s.write(d / f"{sid}.jsonl")
        store[key] = {"sessionId": sid, **entry}

    for i, key in enumerate(NORMAL):
        s = Session(f"normal-{i}")
        s.user(f"zznormal{i} question about deploys")
        s.assistant(f"zznormal{i} answer")
        add(key, f"normal-{i}", s)
    rep = Session("repetitive")
    rep.user("lorem ipsum dolor sit amet " * 200_000)
    rep.assistant("zzrep done")
    add("agent:main:cron:rep:run:1", "repetitive", rep)
    hostile = Session("hostile")
    hostile.user(f"zzhostile paste {GHP} {ESC} [bold]x[/bold] :thread:")
    hostile.add({"message": {"role": "assistant", "content": [
        {"type": "redacted_thinking", "data": SK},
        {"type": "custom_thing", "body": {"k": GHP}, SK: 1},
        {"type": "toolCall", "id": "t", "name": "exec", "arguments": {"cmd": f"echo {GHP}"}},
        {"type": "text", "text": f"zzhostile reply {ESC}"}],
        "metadata": {"secret": SK}, "provider": GHP, "attachments": [{"body": SK}]}})  # fmt: skip
    hostile.add({"message": {"role": "assistant", "content": {"object": SK}}})
    hostile.tool(f"zzhostile tool {SK} {ESC}")
    fork = hostile.leaf
    hostile.user(f"zzabandon {GHP}")
    hostile.assistant("zzhostile end", parent=fork)
    add(CALLER, "hostile", hostile)
    for key, sid in ((THREAD, "shared-id"), ("agent:main:discord:direct:alice", "shared-id")):
        s = Session(sid)
        s.user(f"zzsecretive text of {key} {SK}")
        if key == THREAD:
            add(key, sid, s)
        else:
            store[key] = {"sessionId": sid}
    bob = Session("bob-1")
    bob.user("zzbob words")
    add("agent:main:discord:direct:bob", "bob-1", bob, spawnedBy="agent:main:main")
    inc = Session("inc-e2e")
    inc.user(f"zzincognito {GHP}")
    add("agent:main:dashboard:incognito-e2e", "inc-e2e", inc, spawnedBy=CALLER)
    store["agent:main:broken"] = {"sessionId": "broken", "sessionFile": f"/srv/{GHP}/b.jsonl"}
    write_sessions_json(d, store)


@pytest.fixture(scope="module")
def hostile_state(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple]]:
    root = tmp_path_factory.mktemp("hostile")
    _build(root / "src")
    state = root / "state"
    # The caller's hidden sessions are tree's: upstream's default (all) would show them.
    state.mkdir()
    (state / "openclaw.json").write_text('{"tools": {"sessions": {"visibility": "tree"}}}')
    env = {**os.environ, "OPENCLAW_STATE_DIR": str(state), "NO_COLOR": "1", "COLUMNS": "200",
           "OPENCLAW_SESSIONS_NO_BACKGROUND": "1"}  # fmt: skip
    env.pop("OPENCLAW_CONFIG_PATH", None)
    env.pop("OPENCLAW_AGENT", None)

    def cli(*args: str) -> tuple:
        p = subprocess.run(
            [sys.executable, "-m", "openclaw_sessions", *args],
            env=env,
            capture_output=True,
            timeout=120,
        )
        return (args, p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8"))

    runs = [cli("import", str(root / "src")), cli("import", str(root / "src"), "--json")]
    runs.append(cli("reindex"))
    return state, runs + _commands(cli)


def _commands(cli: object) -> list[tuple]:
    run = cli  # type: ignore[assignment]
    as_caller = ("--as", CALLER)
    out = []
    for q in ("zzhostile", "lorem", "zzsecretive", "zzincognito", "zzbob"):
        out += [run("search", q, "--limit", "25"), run("search", q, "--json", "--limit", "25")]
        out += [run("search", q, "--jsonl", *as_caller), run("search", q, "--json", *as_caller)]
    out += [run("search", f"zznormal{i}", "--json", "--limit", "25") for i in range(len(NORMAL))]
    for q in (GHP[:12], "zzabandon", "exec"):
        out += [run("search", q, "--explain"), run("search", q, "--json", "--explain", *as_caller)]
    for key in (CALLER, "main", NORMAL[0]):
        for extra in ((), ("--include-tools",), ("--json",), ("--json", "--include-tools")):
            out.append(run("history", key, *extra))
            out.append(run("history", key, *extra, *as_caller, "--visibility", "self"))
    out += [run("status"), run("status", "--json")]
    # Errors: a shared id, a hidden key's id, an unknown id, a hidden search session.
    for target in ("shared-id", "bob-1", "no-such-id", "inc-e2e"):
        out.append(run("history", target, "--json", *as_caller))
        out.append(run("history", target, *as_caller, "--sandboxed"))
        out.append(run("search", "zzsecretive", "--session", target, "--json", *as_caller))
    out.append(run("history", f"agent:main:{GHP}"))
    return out


@pytest.mark.slow
def test_no_secret_hidden_key_or_control_character_anywhere(
    hostile_state: tuple[Path, list[tuple]],
) -> None:
    _, runs = hostile_state
    for args, code, stdout, stderr in runs:
        text = stdout + stderr
        assert "Traceback" not in text, args
        assert code in (0, 1, 2, 4), (args, code, stderr)
        assert not RAW_CONTROL.search(text), (args, text[:300])
        for secret in SECRETS:
            assert secret[6:-4] not in text, (args, secret)
        assert "🧵" not in text, args
        if CALLER in args and "--as" in args:  # the caller sees itself and its children only
            shown = [k for k in HIDDEN if k in text and k not in args]
            assert shown == [], (args, shown)
        assert "incognito-e2e" not in text or "incognito-e2e" in " ".join(args), args


@pytest.mark.slow
def test_every_normal_session_is_indexed_and_found(
    hostile_state: tuple[Path, list[tuple]],
) -> None:
    state, runs = hostile_state
    by_args = {r[0]: r for r in runs}
    for i, key in enumerate(NORMAL):
        _, code, stdout, _ = by_args[("search", f"zznormal{i}", "--json", "--limit", "25")]
        assert code == 0
        assert {h["sessionKey"] for h in json.loads(stdout)["results"]} == {key}
    status = json.loads(by_args[("status", "--json")][2])
    assert status["pendingSessions"] == 0
    assert status["dirtySessions"] == 0
    lorem = json.loads(by_args[("search", "lorem", "--json", "--limit", "25")][2])["results"]
    assert lorem
    assert lorem[0]["snippet"].startswith("lorem ipsum")
    report = json.loads(by_args[("import", str(state.parent / "src"), "--json")][2])
    assert any(i["code"] == "path_escape" for i in report["issues"])
    # The terminal table shows the data, escaped and literal: ESC as text, the key as typed.
    table = by_args[("search", "zzhostile", "--limit", "25")][2]
    assert "\\x1b[31m" in table
    assert "[bold]x[/bold]" in table
    assert ":thread:" in table
    history = by_args[("history", "main")]
    assert THREAD not in history[2] + history[3]  # operator history of main: not that key
