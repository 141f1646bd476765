"""In-place resets and compactions in `history` (issue #33): the agent's view is upstream's
window after the latest reset; the operator's keeps every message and says where each
boundary was; search still finds pre-reset messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import Session, json_out, run_cli, write_sessions_json

AS = ("--as", "agent:main:main")


def load(root: Path, s: Session) -> None:
    sessions = root / "agents" / "main" / "sessions"
    s.write(sessions / f"{s.session_id}.jsonl")
    write_sessions_json(sessions, {"agent:main:main": {"sessionId": s.session_id}})
    r = run_cli("import", str(root), "--reindex")
    assert r.exit_code == 0, r.stderr


def hist(*args: str) -> dict[str, Any]:
    r = run_cli("history", "main", *args, "--json")
    assert r.exit_code in (0, 1), r.stderr
    out: dict[str, Any] = json_out(r)
    return out


def texts(out: dict[str, Any]) -> list[str]:
    got = []
    for m in out["messages"]:
        c = m["content"]
        got.append(c if isinstance(c, str) else "".join(b.get("text", "") for b in c))
    return got


def reset_session(**reset: Any) -> tuple[Session, dict[str, str]]:
    s = Session()
    ids = {"a1": s.user("a1"), "a2": s.assistant("a2")}
    ids["r"] = s.add({"type": "reset", **reset})
    ids["c1"] = s.user("c1")
    ids["c2"] = s.assistant("c2")
    return s, ids


def test_agent_view_starts_at_the_latest_reset(tmp_path: Path) -> None:
    s, ids = reset_session()
    load(tmp_path / "src", s)
    out = hist(*AS)
    assert texts(out) == ["Reset", "c1", "c2"]
    marker = out["messages"][0]
    assert marker["role"] == "system"
    assert marker["content"] == [{"type": "text", "text": "Reset"}]
    assert marker["__openclaw"] == {"kind": "reset", "id": ids["r"], "seq": 1}
    assert isinstance(marker["timestamp"], int)
    assert [m["__openclaw"]["seq"] for m in out["messages"]] == [1, 2, 3]
    assert out["messages"][1]["__openclaw"]["id"] == ids["c1"]
    assert "id" not in out["messages"][1]
    # The closed contract: no sessionId, pendingInputs always, no paging fields unasked.
    assert list(out) == [
        "sessionKey", "messages", "truncated", "droppedMessages", "contentTruncated",
        "contentRedacted", "bytes", "pendingInputs",
    ]  # fmt: skip
    assert out["pendingInputs"] == {"items": [], "total": 0}
    paged = hist(*AS, "--offset", "0")
    assert (paged["offset"], paged["hasMore"], paged["totalMessages"]) == (0, False, 3)


def test_a_reset_that_kept_a_tail_shows_it_before_the_marker(tmp_path: Path) -> None:
    s = Session()
    s.user("old")
    kept = s.user("kept q")
    s.tool("tool out")
    s.assistant("kept a")
    s.add({"type": "reset", "firstKeptEntryId": kept})
    s.user("new")
    load(tmp_path / "src", s)
    assert texts(hist(*AS)) == ["kept q", "kept a", "Reset", "new"]


def test_an_anchor_before_the_reset_opens_its_closed_interval(tmp_path: Path) -> None:
    s = Session()
    s.user("g1")
    r1 = s.add({"type": "reset"})
    a1 = s.user("a1")
    s.assistant("a2")
    r2 = s.add({"type": "reset"})
    s.user("c1")
    load(tmp_path / "src", s)
    out = hist(*AS, "--around", a1)
    assert texts(out) == ["a1", "a2", "Reset"]
    assert out["messages"][-1]["__openclaw"]["id"] == r2
    assert "totalMessages" not in out
    assert "offset" not in out  # as the real 2026.9.6 answers
    assert r1 not in json.dumps(out)


def test_a_compaction_shows_where_it_happened(tmp_path: Path) -> None:
    s = Session()
    s.user("q1")
    s.add({"type": "compaction", "summary": "sum", "firstKeptEntryId": "x", "tokensBefore": 900})
    s.user("q2")
    load(tmp_path / "src", s)
    out = hist(*AS)
    assert texts(out) == ["q1", "Compaction", "q2"]
    meta = out["messages"][1]["__openclaw"]
    assert (meta["kind"], meta["tokensBefore"], meta["seq"]) == ("compaction", 900, 2)


def test_operator_keeps_every_message_and_marks_the_reset(tmp_path: Path) -> None:
    s, ids = reset_session()
    load(tmp_path / "src", s)
    out = hist()
    assert [m["id"] for m in out["messages"]] == [ids[k] for k in ("a1", "a2", "c1", "c2")]
    assert out["sessionId"] == s.session_id
    assert out["totalMessages"] == 4
    (b,) = out["boundaries"]
    assert (b["kind"], b["id"], b["before"]) == ("reset", ids["r"], ids["c1"])
    plain = run_cli("history", "main").stdout
    lines = plain.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("── reset"))
    assert ids["r"] in lines[at]
    assert lines[at + 2].startswith("user")
    assert plain.index("a2") < plain.index("── reset") < plain.index("c1")


def test_a_trailing_reset_is_marked_at_the_end(tmp_path: Path) -> None:
    s = Session()
    s.user("a1")
    r = s.add({"type": "reset"})
    load(tmp_path / "src", s)
    assert hist()["boundaries"] == [
        {"kind": "reset", "id": r, "timestamp": hist()["boundaries"][0]["timestamp"],
         "before": None}
    ]  # fmt: skip
    assert run_cli("history", "main").stdout.rstrip().splitlines()[-1].startswith("── reset")
    assert texts(hist(*AS)) == ["Reset"]


def test_search_still_finds_pre_reset_messages(tmp_path: Path) -> None:
    s = Session()
    first = s.user("zebra before the reset")
    s.add({"type": "reset"})
    s.user("after")
    load(tmp_path / "src", s)
    r = run_cli("search", "zebra", "--json")
    assert r.exit_code == 0
    assert [h["messageId"] for h in json_out(r)["results"]] == [first]


def test_answers_match_the_schema(tmp_path: Path) -> None:
    from test_schemas import valid

    s, _ids = reset_session()
    load(tmp_path / "src", s)
    valid("history", hist())
    valid("history", hist(*AS))
    valid("history", hist(*AS, "--offset", "1"))


def test_mcp_ignores_offset_beside_message_id() -> None:
    from openclaw_sessions.mcp.args import history_args

    for offset in (0, 4):
        opts = history_args({"sessionKey": "main", "messageId": "m1", "offset": offset})
        assert (opts.offset, opts.around) == (None, "m1")
    assert history_args({"sessionKey": "main", "offset": 4}).offset == 4
