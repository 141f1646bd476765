"""sessions_list (the caller's inventory, upstream's shape, paged and capped), the search
extensions (after, before, excludeSessionKeys before the limit), and error texts an agent can
act on: its own tools named, never a shell command, never a path of this machine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp_support import WORDS, body, build_world, calls, texts, who  # noqa: E402

from openclaw_sessions.mcp import inventory  # noqa: E402
from openclaw_sessions.read.listing import Page, channel_of, kind_of  # noqa: E402
from openclaw_sessions.store import paths  # noqa: E402

KID = "agent:main:subagent:kid"
MAIN = "agent:main:main"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mcplist")
    build_world(root / "src", root / "state")
    return root / "state"


def _keys(result: Any) -> list[str]:
    return [row["key"] for row in body(result)["sessions"]]


def test_list_is_the_callers_view(world: Path) -> None:
    (kid,) = calls(who(world, KID, "--visibility", "tree"), [("sessions_list", {})])
    assert set(_keys(kid)) == {KID, "agent:main:subagent:grand"}
    got = body(kid)
    assert got["count"] == 2
    assert got["hasMore"] is False
    assert got["limitApplied"] == 100
    assert got["visibility"]["mode"] == "tree"
    assert got["visibility"]["restricted"] is True
    grand = next(r for r in got["sessions"] if r["key"] == "agent:main:subagent:grand")
    assert grand["parentSessionKey"] == KID
    assert grand["sessionId"] == "g0"
    (everyone,) = calls(who(world, MAIN, "--visibility", "all"), [("sessions_list", {})])
    listed = set(_keys(everyone))
    assert "agent:main:dashboard:incognito-zz" not in listed  # incognito: never
    assert {MAIN, "agent:ops:main", "agent:main:discord:direct:bob"} <= listed
    assert "visibility" not in body(everyone)


def test_list_pages_and_finds_by_name(world: Path) -> None:
    ident = who(world, MAIN, "--visibility", "all")
    first, second, bob, none = calls(
        ident,
        [
            ("sessions_list", {"limit": 3}),
            ("sessions_list", {"limit": "3", "offset": 3}),
            ("sessions_list", {"search": "BOB"}),
            ("sessions_list", {"search": "nobody-at-all"}),
        ],
    )
    assert body(first)["hasMore"] is True
    assert body(first)["nextOffset"] == 3
    assert not set(_keys(first)) & set(_keys(second))
    assert len(_keys(second)) == 3
    assert set(_keys(bob)) == {
        "agent:main:discord:direct:bob", "agent:main:discord:direct:bob:thread:t1"
    }  # fmt: skip
    assert body(bob)["sessions"][0]["channel"] == "discord"
    assert body(none) == {"count": 0, "sessions": [], "hasMore": False, "limitApplied": 100}
    (capped,) = calls(ident, [("sessions_list", {"limit": 1000})])
    assert body(capped)["limitApplied"] == 200
    (bad,) = calls(ident, [("sessions_list", {"agentId": "ops"})])
    assert bad.is_error
    assert "unknown argument: 'agentId'" in body(bad)["error"]


def test_list_keeps_within_64_kib() -> None:
    row = {"key": "agent:main:x", "agentId": "main", "kind": "other", "channel": "unknown",
           "archived": False, "pinned": False, "label": "é" * 3000}  # fmt: skip
    page = Page(tuple(dict(row, key=f"agent:main:x{i}") for i in range(40)), False, None, "all")
    got = inventory.capped(page, 10, 40)
    assert 0 < got["count"] < 40
    assert got["truncationReason"] == "byte-limit"
    assert got["hasMore"] is True
    assert got["nextOffset"] == 10 + got["count"]
    assert len(json.dumps(got, indent=2, ensure_ascii=False).encode()) <= 64 * 1024


@pytest.mark.parametrize(
    ("key", "entry", "kind", "channel"),
    [
        ("agent:main:main", {}, "main", "unknown"),
        ("agent:main:cron:job:run:r1", {}, "cron", "internal"),
        ("agent:main:telegram:group:42", {}, "group", "telegram"),
        (
            "agent:main:x",
            {"chatType": "channel", "origin": {"provider": "slack"}},
            "group",
            "slack",
        ),
        ("agent:main:hook:gmail", {}, "hook", "internal"),
        ("agent:main:subagent:a", {"lastChannel": "discord"}, "other", "discord"),
    ],
)
def test_kind_and_channel(key: str, entry: dict[str, Any], kind: str, channel: str) -> None:
    assert kind_of(key, entry) == kind
    assert channel_of(key, kind, entry) == channel


def _hits(result: Any) -> list[str]:
    return [h["sessionKey"] for h in body(result)["results"]]


def test_exclusion_applies_before_the_limit(world: Path) -> None:
    ident = who(world, MAIN, "--visibility", "all")
    (everything,) = calls(ident, [("sessions_search", {"query": "shared", "limit": 25})])
    ranked = list(dict.fromkeys(_hits(everything)))
    left_out = ranked[:3]
    plain, excluded, current = calls(
        ident,
        [
            ("sessions_search", {"query": "shared", "limit": 3}),
            ("sessions_search", {"query": "shared", "limit": 3, "excludeSessionKeys": left_out}),
            ("sessions_search", {"query": "mainword", "exclude_session_keys": ["current"]}),
        ],
    )
    assert set(_hits(plain)) <= set(left_out)
    assert len(_hits(excluded)) == 3
    assert not set(_hits(excluded)) & set(left_out)
    assert _hits(current) == []
    assert "No results" in texts(current)
    by_id = calls(ident, [("sessions_search", {"query": "bobword", "excludeSessionKeys": ["b0"]})])
    assert _hits(by_id[0]) == []


def test_after_and_before_bound_the_message_time(world: Path) -> None:
    ident = who(world, MAIN, "--visibility", "all")
    (found,) = calls(ident, [("sessions_search", {"query": "mainword"})])
    ts = sorted({h["timestamp"] for h in body(found)["results"]})
    assert len(ts) == 2  # the question, then the answer
    late, early, iso, bad = calls(
        ident,
        [
            ("sessions_search", {"query": "mainword", "after": ts[1]}),
            ("sessions_search", {"query": "mainword", "before": str(ts[1])}),
            ("sessions_search", {"query": "mainword", "after": "2100-01-01"}),
            ("sessions_search", {"query": "mainword", "after": "soonish"}),
        ],
    )
    assert [h["timestamp"] for h in body(late)["results"]] == [ts[1]]
    assert [h["timestamp"] for h in body(early)["results"]] == [ts[0]]
    assert body(iso)["results"] == []
    assert bad.is_error
    assert "after" in body(bad)["error"]
    assert "--since" not in body(bad)["error"]


def test_error_texts_name_the_agents_tools_and_no_path(tmp_path: Path) -> None:
    build_world(tmp_path / "src", tmp_path / "state")
    ident = who(tmp_path / "state", MAIN, "--visibility", "all")
    (missing,) = calls(ident, [("sessions_history", {"sessionKey": "agent:main:nobody"})])
    # A full key with no session: upstream's gateway words it so (the real 2026.9.6 answers it,
    # tests/test_real_openclaw_diff_more.py); an unresolvable id names sessions_list
    assert body(missing)["error"] == "No session found: agent:main:nobody"
    (bad_id,) = calls(ident, [("sessions_history", {"sessionKey": "no-such-id"})])
    assert body(bad_id)["error"] == (
        "Session not found: no-such-id (use the full sessionKey from sessions_list)"
    )
    store = paths.db_path(tmp_path / "state", "ops")  # a store broken under the server
    for extra in store.parent.glob(store.name + "*"):
        extra.unlink()
    store.mkdir()
    answers = calls(
        ident,
        [
            ("sessions_history", {"sessionKey": "agent:ops:main"}),
            ("sessions_search", {"query": "opsword"}),
            ("sessions_list", {}),
        ],
    )
    for result in answers:
        text = texts(result)
        assert str(tmp_path) not in text, text
        assert "openclaw-sessions " not in text, text
        if result.is_error:
            assert "agent ops" in body(result)["error"], text
    assert any(r.is_error for r in answers)
    assert WORDS  # the world's words stay the fixtures' (imported for the reader)
