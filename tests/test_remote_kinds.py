"""`--kind`, `--not-kind` and `--key` with `--remote` (issue #37 §4): the fleet's search keeps
the same hits, counts and sessions as local search on the same stores, on a real PostgreSQL;
SQLite's GLOB patterns read the same as the regular expressions the central query uses."""

from __future__ import annotations

import itertools
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers import Session, write_sessions_json

from openclaw_sessions.policy.kinds import KINDS, glob_regex
from tests import remote_env as env

FILTERS = [
    ("--kind", "cron"),
    ("--not-kind", "cron"),
    ("--kind", "direct", "--kind", "group"),
    ("--key", "agent:*:telegram:*"),
    ("--key", "agent:ops:*", "--not-kind", "subagent"),
    ("--key", "agent:main:telegram:direct:[0-4]*"),
    ("--key", "*:telegram:*", "--key", "*:slack:*", "--not-kind", "group"),
]


KEYS = {  # agent → its session keys, every kind of chat
    "main": ["agent:main:main", "agent:main:cron:nightly-report", "agent:main:cron:backup",
             "agent:main:telegram:direct:4242", "agent:main:telegram:direct:9090",
             "agent:main:telegram:group:-1001:topic:7", "agent:main:discord:channel:555",
             "agent:main:subagent:0f1e"],
    "ops": ["agent:ops:main", "agent:ops:cron:rotate", "agent:ops:slack:channel:c01",
            "agent:ops:subagent:77aa", "agent:ops:webchat:direct:ab12"],
}  # fmt: skip


def _state(root: Path) -> Path:
    """Two agents' chats of every kind, each saying the same few things."""
    src = root / "src"
    for agent, keys in KEYS.items():
        sessions = src / "agents" / agent / "sessions"
        store = {}
        for i, key in enumerate(keys):
            sid = f"{agent}-{i}"
            s = Session(sid, ts0=1_767_600_000_000 + i * 60_000)
            s.user(f"what is the state of the deploy on {key}")
            s.assistant("the deploy is done and the checks are green")
            s.write(sessions / f"{sid}.jsonl")
            store[key] = {"sessionId": sid}
        write_sessions_json(sessions, store)
    state = root / "state"
    r = env.cli("import", str(src), "--reindex", "--state-dir", str(state), "--quiet")
    assert r.exit_code == 0, r.stderr
    return state


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    env.server()
    state = _state(tmp_path_factory.mktemp("kinds"))
    target = env.new_db()
    env.push(target, state, "gw-k")
    return {"dsn": target, "state": state}


def _hits(args: list[str]) -> set[tuple[str, str, str]]:
    r = env.cli("search", *args, "--json", "-n", "100000")
    assert r.exit_code in (0, 1), r.stderr
    doc = json.loads(r.stdout)
    return {
        (h["agentId"], h["sessionKey"], h["messageId"])
        for h in doc["results"]
        if "exchange" not in h
    }  # fmt: skip  (exchanges are local only: README)


@pytest.mark.slow
@pytest.mark.parametrize("filters", FILTERS, ids=" ".join)
def test_key_filters_keep_what_local_search_keeps(
    fleet: dict[str, Any], filters: tuple[str, ...]
) -> None:
    local = ["--state-dir", str(fleet["state"]), "--all-agents"]
    remote = ["--remote", fleet["dsn"]]
    for word in ("the", "deploy"):
        want = _hits([word, *local, *filters])
        if word == "the":  # each filter keeps something, and leaves something out
            assert want, filters
            assert want != _hits([word, *local]), filters
        assert _hits([word, *remote, *filters]) == want, (word, filters)
    counted = [env.cli("search", "the", *where, *filters, "--count").stdout
               for where in (local, remote)]  # fmt: skip
    assert counted[0] == counted[1]
    listed = [env.cli("search", "the", *where, *filters, "--sessions").stdout.splitlines()
              for where in (local, remote)]  # fmt: skip
    assert sorted(listed[1]) == sorted(f"gw-k/{k}" for k in listed[0]), filters


def test_an_unknown_kind_and_as_are_refused_as_locally(fleet: dict[str, Any]) -> None:
    r = env.cli("search", "deploy", "--remote", fleet["dsn"], "--kind", "dm")
    assert r.exit_code == 2
    assert r.stderr.startswith("error: no session kind 'dm'")
    r = env.cli("search", "deploy", "--remote", fleet["dsn"], "--host", "gw-k", "--as",
                "agent:main:main", "--not-kind", "cron")  # fmt: skip
    assert r.exit_code == 2
    assert "operator options" in r.stderr


def test_glob_patterns_read_alike_as_regular_expressions() -> None:
    """SQLite's GLOB (local search) against the regular expression (PostgreSQL's `~`, whose
    syntax for these constructs Python's re shares): the same keys match."""
    keys = ["agent:main:main", "agent:main:telegram:group:-100:topic:4", "agent:ops:cron:x",
            "main", "a]b", "a^b", "a[b", "a\\b", "a.b", "a-b", "x*y", "a?c", "abc", "a+b",
            "a(b)", "a$b", "a|b", "a{2}"]  # fmt: skip
    patterns = [*(p for ps in KINDS.values() for p in ps), "agent:*:telegram:*", "a[]]b",
                "a[^]]b", "a[b", "a\\b", "a.b", "a[.-]b", "a[^a-z]b", "a?b", "x[*]y", "a[?]c",
                "*", "", "a[bc", "[a-c]bc", "a+b", "a(b)", "a$b", "a|b", "a{2}"]  # fmt: skip
    db = sqlite3.connect(":memory:")
    for pattern, key in itertools.product(patterns, keys):
        want = bool(db.execute("SELECT ? GLOB ?", (key, pattern)).fetchone()[0])
        assert (re.search(glob_regex(pattern), key, re.S) is not None) is want, (pattern, key)


def test_the_patterns_run_on_postgresql(fleet: dict[str, Any]) -> None:
    """The same regular expressions, asked of PostgreSQL itself."""
    rows = env.admin(
        "SELECT k, p FROM unnest(%s::text[]) k, unnest(%s::text[]) p WHERE k ~ p",
        ["agent:main:telegram:direct:42", "agent:main:cron:x", "a]b", "a.b", "axb"],
        [glob_regex(g) for g in ("agent:*:telegram:*", "*:cron:*", "a[]]b", "a.b")],
    )
    assert sorted(rows) == sorted([
        ("agent:main:telegram:direct:42", glob_regex("agent:*:telegram:*")),
        ("agent:main:cron:x", glob_regex("*:cron:*")),
        ("a]b", glob_regex("a[]]b")),
        ("a.b", glob_regex("a.b")),
    ])  # fmt: skip
