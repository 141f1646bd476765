"""Transcripts whose active branch upstream OpenClaw's transcript tree defines: one per rule of
its `src/config/sessions/transcript-tree.test.ts` (commit 7c7c9f58c640ecacb7caa2f96f7de51a8dad9596),
in our own fixtures. Visible nodes are user/assistant messages (canonical, as upstream's
`custom` rows are) so that `history` and `search` can show the branch too.

Each case: the lines after the header, and the ids of every line on the active branch, in order.
Message text is `word<id>` (ids are letters only: `search word<id>` finds exactly that line).
"""

from __future__ import annotations

import json
from typing import Any

HEADER = {"type": "session", "version": 3, "id": "tree-case", "timestamp": "2026-01-01T00:00:00Z"}

_NO_PARENT: Any = object()


def msg(eid: str, parent: Any = None, role: str = "user", **kw: Any) -> dict[str, Any]:
    """A message line; `parent=_NO_PARENT` leaves the parentId key out."""
    line: dict[str, Any] = {"type": "message", "id": eid}
    if parent is not _NO_PARENT:
        line["parentId"] = parent
    line["timestamp"] = "2026-01-01T00:00:01Z"
    line["message"] = {"role": role, "content": [{"type": "text", "text": f"word{eid}"}]}
    return {**line, **kw}


def ans(eid: str, parent: Any = None, **kw: Any) -> dict[str, Any]:
    return msg(eid, parent, role="assistant", **kw)


def leaf(eid: str, parent: Any, target: Any, **kw: Any) -> dict[str, Any]:
    line = {"type": "leaf", "id": eid}
    if parent is not _NO_PARENT:
        line["parentId"] = parent
    if target is not _NO_PARENT:
        line["targetId"] = target
    return {**line, **kw}


def opaque(eid: str, parent: Any = None) -> dict[str, Any]:
    """A non-canonical row (plugin metadata): a node that never moves the leaf."""
    line: dict[str, Any] = {"type": "metadata", "id": eid}
    if parent is not _NO_PARENT:
        line["parentId"] = parent
    return line


NO_PARENT = _NO_PARENT

CASES: dict[str, tuple[list[dict[str, Any]], list[str]]] = {
    # A trailing custom row whose parent is not in the file (real gateway transcripts carry
    # them) hangs under the current leaf: the conversation stays the active branch.
    "stale_parent_custom_row": (
        [msg("askq", None), ans("answ", "askq"),
         {"type": "custom", "id": "boot", "parentId": "gone", "customType":
          "openclaw:bootstrap-context:full", "data": {}}],
        ["askq", "answ", "boot"],
    ),
    # A stale parent in the middle: what follows continues the same conversation.
    "stale_parent_mid_conversation": (
        [msg("one", None), ans("two", "one"), msg("three", "missing"), ans("four", "three")],
        ["one", "two", "three", "four"],
    ),
    # A control is navigation: its target becomes the leaf, the abandoned side is dropped.
    "navigation_drops_the_abandoned_side": (
        [msg("root", None), ans("side", "root"), leaf("nav", "side", "root")],
        ["root"],
    ),
    # The last valid control in file order wins.
    "last_control_wins": (
        [msg("tail", None), ans("later", "tail"), leaf("navone", "later", "later"),
         leaf("navtwo", "later", "tail")],
        ["tail"],
    ),
    # A continuation parented to the control hangs under what the control stands for.
    "continuation_under_a_control": (
        [msg("root", None), ans("side", "root"), leaf("nav", "side", "root"),
         ans("tail", "nav")],
        ["root", "tail"],
    ),
    # Chained controls (one targets another), then a parentless continuation.
    "parentless_after_chained_controls": (
        [msg("root", None), leaf("first", "root", "root"), leaf("second", "first", "first"),
         ans("tail", NO_PARENT)],
        ["root", "tail"],
    ),
    # Side rows and a later active append: the branch is the selected one.
    "side_rows_then_active_append": (
        [msg("root", None), ans("side", "root"), leaf("nav", "side", "root"),
         ans("tail", "root"), opaque("meta", NO_PARENT)],
        ["root", "tail"],
    ),
    # Dangling controls (unknown target, unknown appendParentId) change nothing; a child of
    # one hangs under its raw parent.
    "dangling_controls_ignored": (
        [msg("root", None), leaf("missingtarget", "root", "nowhere"),
         ans("child", "missingtarget"),
         leaf("missingappend", "child", "child", appendParentId="nowhere")],
        ["root", "child"],
    ),
    "dangling_control_alone": (
        [msg("root", None), ans("reply", "root"), leaf("bad", "reply", "nowhere")],
        ["root", "reply"],
    ),
    # Opaque rows are nodes, but never the leaf.
    "opaque_rows_do_not_move_the_leaf": (
        [msg("root", None), ans("side", "root"), leaf("nav", "side", "root"),
         opaque("meta", "side")],
        ["root"],
    ),
    # A control's appendParentId (the raw cursor) may be an opaque row: a canonical row
    # parented to that cursor hangs under the visible leaf.
    "opaque_append_cursor": (
        [msg("tail", None), opaque("meta", "tail"),
         leaf("nav", "inactive", "tail", appendParentId="meta"), ans("next", "meta")],
        ["tail", "next"],
    ),
    # An explicit navigation to an empty branch.
    "navigation_to_an_empty_branch": (
        [msg("old", None), ans("oldreply", "old"),
         leaf("nav", "oldreply", None, appendParentId="oldreply")],
        [],
    ),
    # appendParentId null: the next root-level append keeps the visible history.
    "next_append_at_the_root": (
        [msg("root", None), leaf("nav", "inactive", "root", appendParentId=None),
         ans("next", None)],
        ["root", "next"],
    ),
    # A reset's kept tail stays before a disjoint selected branch.
    "reset_kept_tail_before_a_disjoint_branch": (
        [msg("keptq", None), ans("kepta", "keptq"),
         {"type": "reset", "id": "boundary", "parentId": "kepta", "firstKeptEntryId": "keptq"},
         msg("branchq", None), leaf("nav", "boundary", "branchq"), ans("brancha", "branchq")],
        ["keptq", "kepta", "boundary", "branchq", "brancha"],
    ),
    # A compaction before a disjoint branch is kept as that one line.
    "compaction_before_a_disjoint_branch": (
        [msg("early", None), {"type": "compaction", "id": "compact", "parentId": "early",
                              "summary": "s", "firstKeptEntryId": "early"},
         msg("fresh", None), ans("freshreply", "fresh")],
        ["compact", "fresh", "freshreply"],
    ),
    # A side append with a disjoint raw cursor keeps the selected history: a canonical row
    # parented to the cursor continues the visible branch, not the abandoned one.
    "side_append_raw_cursor": (
        [msg("visible", None), msg("inactive", None), opaque("approot", "inactive"),
         leaf("nav", "inactive", "visible", appendParentId="approot", appendMode="side"),
         ans("continued", "approot")],
        ["visible", "continued"],
    ),
    # Side appends keep their own ancestry and stay off the branch.
    "side_ancestry_after_a_side_control": (
        [msg("visible", None), ans("sideone", "visible"),
         leaf("nav", "sideone", "visible", appendParentId="sideone", appendMode="side"),
         ans("sidetwo", "sideone", appendMode="side")],
        ["visible"],
    ),
    # Visible and disjoint append paths are selected independently.
    "visible_and_disjoint_append_paths": (
        [msg("visible", None), opaque("approot", None),
         leaf("nav", "approot", "visible", appendParentId="approot")],
        ["visible"],
    ),
    # A missing older parent keeps the reachable suffix.
    "reachable_suffix_of_a_missing_parent": (
        [msg("tail", "missing"), leaf("nav", "inactive", "tail")],
        ["tail"],
    ),
    # Parentless canonical rows chain up before a control selects them.
    "parentless_rows_before_a_control": (
        [msg("root", NO_PARENT), ans("active", NO_PARENT), leaf("nav", "side", "active")],
        ["root", "active"],
    ),
    # Not controls (no targetId; another appendMode; no parentId): on no tree at all.
    "malformed_controls_are_not_controls": (
        [msg("root", None), ans("reply", "root"), leaf("notarget", "reply", NO_PARENT),
         leaf("badmode", "reply", "root", appendMode="other"),
         leaf("noparent", NO_PARENT, "root")],
        ["root", "reply"],
    ),
    # No parentId anywhere (older appenders): the branch is every line, side rows included.
    "flat_transcript": (
        [msg("first", NO_PARENT), ans("second", NO_PARENT),
         ans("aside", NO_PARENT, appendMode="side"), msg("third", NO_PARENT)],
        ["first", "second", "aside", "third"],
    ),
    # A blank id, or a parentId that is neither null nor an id: that line is on no tree.
    "blank_ids_and_bad_parents": (
        [msg("root", None), ans("reply", "root"), msg(" ", "reply"), msg("badparent", ""),
         msg("numparent", 7)],
        ["root", "reply"],
    ),
}


def lines(case: str) -> list[str]:
    return [json.dumps(x) for x in [HEADER, *CASES[case][0]]]


def text(case: str) -> str:
    return "".join(line + "\n" for line in lines(case))


def expected_messages(case: str) -> list[str]:
    """Ids of the case's user/assistant messages on the active branch, in order."""
    kinds = {x["id"]: x["type"] for x in CASES[case][0]}
    return [i for i in CASES[case][1] if kinds.get(i) == "message"]
