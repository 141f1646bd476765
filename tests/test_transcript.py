"""Transcript model: v1/v3 parsing, the tree, active-branch resolution, text extraction."""

from __future__ import annotations

import json
from typing import Any

from helpers import active_seqs, parse_entries

from openclaw_sessions.model import extract, when


def lines(*objs: dict[str, Any]) -> list[str]:
    return [json.dumps(o) for o in objs]


HDR = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00Z"}


def msg(eid: str, parent: str | None, role: str = "user", text: str = "x", **kw: Any) -> dict:
    return {
        "type": "message",
        "id": eid,
        "parentId": parent,
        "message": {"role": role, "content": [{"type": "text", "text": text}]},
        **kw,
    }


def active(*objs: dict[str, Any]) -> list[int]:
    return active_seqs(parse_entries(lines(*objs)))


def test_linear_chain() -> None:
    assert active(HDR, msg("a", None), msg("b", "a"), msg("c", "b")) == [1, 2, 3]


def test_rewind_new_branch_abandons_old() -> None:
    # c hangs under a again: b is abandoned; the last canonical append is the leaf.
    assert active(HDR, msg("a", None), msg("b", "a"), msg("c", "a")) == [1, 3]


def test_leaf_control_moves_leaf_and_unknown_target_ignored() -> None:
    objs = [HDR, msg("a", None), msg("b", "a"), msg("c", "b")]
    assert active(*objs, {"type": "leaf", "id": "l1", "parentId": "c", "targetId": "a"}) == [1]
    dangling = {"type": "leaf", "id": "l1", "parentId": "c", "targetId": "zzz"}
    assert active(*objs, dangling) == [1, 2, 3]


def test_side_append_does_not_move_leaf() -> None:
    side = msg("s", "a", appendMode="side")
    assert active(HDR, msg("a", None), msg("b", "a"), side) == [1, 2]


def test_missing_parent_continues_from_leaf() -> None:
    no_parent = {"type": "message", "id": "c", "message": {"role": "user", "content": "hi"}}
    assert active(HDR, msg("a", None), msg("b", "a"), no_parent) == [1, 2, 3]


def test_cycle_gives_empty_path() -> None:
    assert active(HDR, msg("a", "b"), msg("b", "a")) == []


def test_orphan_parent_ends_the_walk() -> None:
    assert active(HDR, msg("a", "gone"), msg("b", "a")) == [1, 2]


def test_parent_pointing_to_later_line() -> None:
    # a's parent b comes later: the walk uses the final tree.
    assert active(HDR, msg("a", "b"), msg("b", None), msg("c", "a")) == [2, 1, 3]


def test_v1_linear_ids_assigned() -> None:
    v1 = [
        {"type": "session", "id": "x", "timestamp": "2025-01-01T00:00:00Z"},
        {"type": "message", "message": {"role": "user", "content": "one"}},
        {"type": "message", "message": {"role": "assistant", "content": "two"}},
    ]
    entries = parse_entries(lines(*v1))
    assert [e.entry_id for e in entries] == [None, "v1-000001", "v1-000002"]
    assert active_seqs(entries) == [1, 2]


def test_timestamps() -> None:
    assert when.to_epoch_ms("2026-01-01T00:00:00.500Z") == 1767225600500
    assert when.to_epoch_ms(1767225600) == 1767225600000
    assert when.to_epoch_ms(1767225600500) == 1767225600500
    assert when.to_epoch_ms("nope") is None


def test_extract_rules() -> None:
    def text(message: dict[str, Any], etype: str = "message") -> str | None:
        return extract.indexable_text({"type": etype, "message": message}, "id1")

    assert text({"role": "user", "content": "plain"}) == "plain"
    assert text({"role": "assistant", "text": "t", "content": []}) == "t"
    blocks = [
        {"type": "text", "text": "a"},
        {"type": "thinking", "thinking": "secret plan"},
        {"type": "toolCall", "name": "x", "arguments": {}},
        {"type": "text", "text": " "},
        {"type": "output_text", "text": "b"},
        {"type": "image", "data": "AAAA"},
    ]
    assert text({"role": "assistant", "content": blocks}) == "a\nb"
    assert text({"role": "toolResult", "content": "tool out"}) is None
    assert text({"role": "bashExecution", "content": "ls"}) is None
    assert text({"role": "user", "content": "x"}, etype="custom_message") is None
    assert text({"role": "user", "content": "   "}) is None
    assert (
        extract.indexable_text(
            {"type": "message", "message": {"role": "user", "content": "x"}}, None
        )
        is None
    )
    assert extract.indexable_text({"type": "compaction", "summary": "s"}, "c") is None
