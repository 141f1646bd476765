"""Differential test against the real OpenClaw 2026.9.6 (issue #33 point 5).

One legacy state dir is imported twice: by `openclaw doctor --session-sqlite import` into
OpenClaw's own store (served by ONE `openclaw gateway run` for the module, switched between
visibility settings by its config hot-reload), and by our `import` into ours. Each case asks
upstream's `sessions_search` / `sessions_history` (`POST /tools/invoke` as a caller session key)
and ours (`--as`, and the MCP server for a few), and compares normalised JSON. A case listed in
EXPECTED_DIFF must differ (so a fix flips it: then remove the entry); every other case must be
equal. The README's "Compatibility with the real OpenClaw" lists each remaining difference.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import real_diff_support as rds
import real_openclaw as ro
from helpers import Session, write_sessions_json
from mcp_support import WORLD, body, calls, cli_json, who
from real_diff_support import Pair, config

pytestmark = pytest.mark.slow

KID = "agent:main:subagent:kid"
CALLERS = ("agent:main:main", KID, "agent:main:discord:direct:bob", "agent:ops:main")
TARGETS = (KID, "agent:main:discord:direct:bob", "agent:ops:main", "agent:main:cron:job:run:r1")
CJK = "agent:main:discord:direct:zh"

# name -> the openclaw.json `tools` section of a case (the gateway hot-reloads it).
CONFIGS: dict[str, dict[str, Any]] = {
    "all": {"sessions": {"visibility": "all"}},
    "all-a2a-off": {"sessions": {"visibility": "all"}, "agentToAgent": {"enabled": False}},
    "self": {"sessions": {"visibility": "self"}},
    "tree": {"sessions": {"visibility": "tree"}},
    "agent": {"sessions": {"visibility": "agent"}},
}

# case id -> why ours differs on today's main (the lead removes an entry when its fix merges;
# a listed case that turns equal fails, so the table cannot go stale).
CJK_BETTER = (
    "deliberate: upstream's unicode61 keeps a CJK run as one token, so a CJK substring never "
    "matches (upstream issue, open); ours also matches CJK substrings, with its own scores"
)
LIMIT_COUNTS = (
    "deliberate: upstream's `limit` counts transcript records before its display filter (here"
    " a trailing record that shows nothing leaves its page empty); ours counts the messages shown"
)
EXPECTED_DIFF: dict[str, str] = {
    "history-limit": LIMIT_COUNTS,
    "cjk-substring": CJK_BETTER,
    "cjk-run": CJK_BETTER,
}


def expected(case: str) -> str | None:
    return EXPECTED_DIFF.get(case)


def _world(src: Path, now_ms: int) -> None:
    """The mcp_support world (minus its incognito key: doctor refuses a batch holding one) with
    recent timestamps (the gateway prunes expired cron runs at start), plus a CJK session."""
    for agent, sessions in WORLD.items():
        d = src / "agents" / agent / "sessions"
        store: dict[str, dict[str, Any]] = {}
        items = [(k, v) for k, v in sessions.items() if "incognito" not in k]
        if agent == "main":
            items.append((CJK, ("z0", {}, "shared 東京の天気は晴れです")))
        for key, (sid, entry, text) in items:
            s = Session(sid, ts0=now_ms)
            s.user(f"{text} question")
            s.assistant(f"{text} answer with token=ghp_{'x' * 36}")
            s.tool(f"{text} tool output")
            s.write(d / f"{sid}.jsonl")
            store[key] = {"sessionId": sid, "updatedAt": now_ms, **entry}
        write_sessions_json(d, store)


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pair]:
    inst = ro.locate()
    if inst is None:
        pytest.skip(ro.skip_reason())
    root = tmp_path_factory.mktemp("realdiff")
    src, theirs, ours, home = (root / n for n in ("src", "theirs", "ours", "home"))
    home.mkdir()
    _world(src, int(time.time() * 1000) - 3_600_000)
    shutil.copytree(src, theirs)  # doctor moves the JSONL it imports into an archive
    r = cli_json(ours, "import", str(src), "--reindex")
    assert r[0] == 0, r[2]
    first = config(CONFIGS["all"])
    ro.write_config(theirs, first)
    ro.write_config(ours, first)
    reports = ro.doctor_import(inst, theirs, home)
    assert all(not t["issues"] for rep in reports.values() for t in rep["targets"]), reports
    with ro.Gateway(inst, theirs, home) as gw:
        p = Pair(gw, ours, {n: config(t) for n, t in CONFIGS.items()})
        p.config = "all"
        yield p


def check(case: str, ours: Any, theirs: Any) -> None:
    rds.check(case, ours, theirs, EXPECTED_DIFF)


SEARCH_CASES = [(c, caller) for c in CONFIGS for caller in CALLERS]


@pytest.mark.parametrize(("config", "caller"), SEARCH_CASES)
def test_search_visibility(pair: Pair, config: str, caller: str) -> None:
    pair.use(config)
    args = {"query": "shared", "limit": 25}
    check(f"search:{config}:{caller}", pair.cli("sessions_search", args, caller),
          pair.theirs("sessions_search", args, caller))  # fmt: skip


@pytest.mark.parametrize("config", list(CONFIGS))
@pytest.mark.parametrize("target", TARGETS)
def test_history_visibility(pair: Pair, config: str, target: str) -> None:
    pair.use(config)
    args = {"sessionKey": target}
    caller = "agent:main:main"
    check(f"history:{config}:{target}", pair.cli("sessions_history", args, caller),
          pair.theirs("sessions_history", args, caller))  # fmt: skip


@pytest.mark.parametrize(
    ("case", "tool", "args"),
    [
        ("cjk-substring", "sessions_search", {"query": "東京"}),
        ("cjk-run", "sessions_search", {"query": "東京の天気は晴れです"}),
        ("limit-1", "sessions_search", {"query": "shared", "limit": 1}),
        ("limit-25", "sessions_search", {"query": "shared answer", "limit": 25}),
        ("limit-26", "sessions_search", {"query": "shared", "limit": 26}),
        ("empty-query", "sessions_search", {"query": "  "}),
        ("operators-literal", "sessions_search", {"query": "shared OR nothing"}),
        ("redacted-snippet", "sessions_search", {"query": "token"}),
        ("history-tools", "sessions_history", {"sessionKey": KID, "includeTools": True}),
        ("history-anchor", "sessions_history", {"sessionKey": KID, "messageId": "00000002"}),
        ("history-anchor-offset", "sessions_history", {"sessionKey": KID, "messageId": "00000001",
                                                        "offset": 0}),  # fmt: skip
        ("history-limit", "sessions_history", {"sessionKey": KID, "limit": 1}),
    ],
)
def test_cases(pair: Pair, case: str, tool: str, args: dict[str, Any]) -> None:
    pair.use("all")
    caller = "agent:main:main"
    check(case, pair.cli(tool, args, caller), pair.theirs(tool, args, caller))


@pytest.mark.parametrize("config", ["all", "tree"])
def test_mcp(pair: Pair, config: str) -> None:
    """Our MCP server as KID answers both tools as upstream does."""
    pair.use(config)
    todo = [("sessions_search", {"query": "shared", "limit": 25}),
            ("sessions_history", {"sessionKey": "agent:main:subagent:grand"})]  # fmt: skip
    got = calls(who(pair.ours, KID), todo)
    for (tool, args), result in zip(todo, got, strict=True):
        check(f"mcp:{config}:{tool}", body(result), pair.theirs(tool, args, KID))
