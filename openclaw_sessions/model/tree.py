"""The transcript tree and its active branch, by upstream OpenClaw's rules (pure: no I/O).

The rules are those of upstream's `src/config/sessions/transcript-tree.ts` and its selection
of a transcript's active entries (commit 7c7c9f58c640ecacb7caa2f96f7de51a8dad9596), applied to
the lines in file (seq) order:

- A *node* is a line with a non-blank `id` and a `parentId` that is null or a non-blank string,
  or a canonical line (CANONICAL) with no `parentId` key at all, which continues from the
  current leaf. Other lines (the header, id-less lines, a `parentId` of another kind: flagged
  FLAG_NOT_NODE) are on no tree.
- A canonical node that is not a side append (`appendMode: "side"`) becomes the leaf. Opaque
  nodes (other types, e.g. `metadata`) never move the leaf. Every node moves the raw append
  cursor.
- A canonical, non-side node with a `parentId` hangs under the current leaf instead of its
  parent when that parent is unknown when the line is read (a stale parent), or when it is the
  raw cursor while the cursor is not the leaf (metadata, a side append, a navigation's
  `appendParentId`).
- A `leaf` control (`targetId`: null or an id; `appendParentId` likewise, default the target;
  `appendMode` absent or "side") moves the leaf to its target and the cursor to its
  appendParentId. One that names an unknown id is ignored ("dangling"); it stays a transparent
  marker for its raw parent. Descendants of any control hang under what the control stands
  for, and controls are never on a path.
- The path runs from the leaf back to the root: a missing parent ends it (the reachable suffix
  stays), a cycle empties it. Before its first entry the nearest earlier `compaction` or
  `reset` line is kept: a reset whose `firstKeptEntryId` is on the reset's own path keeps that
  path from the kept entry on, anything else keeps that one line. When no node with a
  `parentId` (nor a control) ever moved the leaf, the branch is every line, in order ("flat").

Rows are plain tuples (`EventRow`, the columns of table `events`), not objects: a history call
walks a whole transcript, and building 10,000 objects costs more than the walk. `control` is
the line itself (its JSON text or parsed object) for `leaf` and `reset` lines, whose other
fields no column holds; it is None for the rest.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from . import wellformed

FLAG_NO_PARENT = 1  # the line had no parentId key: it continues from the current leaf
FLAG_SIDE = 2  # appendMode "side": stored, but does not move the leaf
FLAG_NOT_NODE = 4  # parentId present but neither null nor a non-blank string: on no tree

# Upstream's canonical entry types: the ones that can be the leaf.
CANONICAL = frozenset(
    {
        "message",
        "thinking_level_change",
        "model_change",
        "compaction",
        "reset",
        "branch_summary",
        "custom",
        "custom_message",
        "label",
        "session_info",
    }
)

# What JavaScript's String.prototype.trim removes (upstream's "non-empty string" test).
JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff" + "".join(
    chr(c) for c in range(0x2000, 0x200B)
)

Control = str | dict[str, Any] | None
EventRow = tuple[int, str | None, str | None, int, str | None, Control, str | None, int | None]
Message = tuple[int, str, str | None, int | None]  # seq, id, role, ts
# A `reset` or `compaction` line on the branch: seq, id, type, and for a reset the seq of the
# entry its `firstKeptEntryId` names when that entry is on the branch before it (else None).
Mark = tuple[int, str | None, str, int | None]

_MISSING: Any = object()


def non_blank(value: Any) -> bool:
    """A string with something besides JavaScript whitespace in it."""
    return (
        value.__class__ is str
        and bool(value)
        and (value[0] not in JS_SPACE or bool(value.strip(JS_SPACE)))
    )


class Walk(NamedTuple):
    """A transcript's active branch."""

    leaf: str | None  # what an append must hang under to extend it; None: nothing provably does
    seqs: list[int]  # every line on it, in order
    messages: list[Message]  # its `message` lines that have ids, in order
    others: list[str]  # ids (not its messages') whose redefinition could change it
    flat: bool  # no line ever moved the leaf explicitly: the branch is every line
    marks: list[Mark] = []  # its reset and compaction lines, in order


def _object(control: Control) -> dict[str, Any] | None:
    if control is None or isinstance(control, dict):
        return control
    try:
        obj = wellformed.loads(control)  # ids as import stored them (U+FFFD)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def _ref(
    obj: dict[str, Any], key: str, default: tuple[bool, str | None]
) -> tuple[bool, str | None]:
    """(valid, value) of an id reference: null, a non-blank string, or absent (default)."""
    v = obj.get(key, _MISSING)
    if v is _MISSING:
        return default
    if v is None:
        return True, None
    return (True, v) if non_blank(v) else (False, None)


def leaf_control(control: Control) -> tuple[str | None, str | None] | None:
    """(target, appendParentId) of a well-formed leaf control line; None when it is not one."""
    obj = _object(control)
    if obj is None:
        return None
    ok, target = _ref(obj, "targetId", (False, None))
    if not ok:
        return None
    ok, cursor = _ref(obj, "appendParentId", (True, target))
    mode = obj.get("appendMode", _MISSING)
    if not ok or (mode is not _MISSING and mode != "side"):
        return None
    return target, cursor


def _first_kept(control: Control) -> str | None:
    obj = _object(control)
    kept = obj.get("firstKeptEntryId") if obj is not None else None
    return kept if non_blank(kept) else None


def _through_controls(
    node: str | None, parents: dict[str, str | None], controls: set[str]
) -> str | None:
    """A parent that is a control stands for what the control stands for."""
    seen: set[str] = set()
    while node is not None and node in controls:
        if node in seen:
            return node
        seen.add(node)
        node = parents[node]
    return node


def _path(
    start: str | None, parents: dict[str, str | None], controls: set[str]
) -> tuple[list[str], list[str], bool]:
    """(path root → start without controls, the other ids it went through: controls and a
    missing parent, whether it was a cycle)."""
    path: list[str] = []
    passed: list[str] = []
    seen: set[str] = set()
    node = start
    while node is not None:
        if node in seen:
            return [], path + passed, True
        seen.add(node)
        if node not in parents:
            passed.append(node)  # a missing parent: the reachable suffix stays
            break
        if node in controls:
            passed.append(node)
        else:
            path.append(node)
        node = parents[node]
    path.reverse()
    return path, passed, False


def walk(rows: Iterable[EventRow]) -> Walk:
    """The active branch, from a transcript's rows in seq order."""
    parents: dict[str, str | None] = {}
    seqs: dict[str, int] = {}
    controls: set[str] = set()  # ids whose latest node is a leaf control (dangling ones too)
    dangling: set[str] = set()  # ids of dangling controls: never valid references again
    messages: dict[str, tuple[int, str | None, int | None]] = {}
    boundaries: list[tuple[int, str, str | None, Control]] = []
    flat_marks: list[Mark] = []  # every boundary, while flat mode is possible
    every: list[int] = []  # what flat mode shows, kept only while it is possible
    flat_messages: list[Message] = []
    leaf: str | None = None
    cursor: str | None = None
    moved = False  # a node with a parentId (or a control) moved the leaf: not flat
    canonical_types = CANONICAL
    for seq, eid, parent, flags, etype, control, role, ts in rows:
        if etype == "message":
            if not moved and eid is not None:
                flat_messages.append((seq, eid, role, ts))
        elif etype == "session":
            continue
        elif etype == "compaction" or etype == "reset":
            boundaries.append((seq, etype, eid, control))
            if not moved:
                kept = _first_kept(control) if etype == "reset" else None
                flat_marks.append((seq, eid, etype, seqs.get(kept) if kept else None))
        if not moved:
            every.append(seq)
        if eid is None:
            continue
        if not flags and (etype == "message" or (etype != "leaf" and etype in canonical_types)):
            # The common line: canonical, with a parentId, not a side append.
            p = parent
            if leaf is not None and p is not None and p not in parents:
                p = leaf  # a stale parent
            elif p == cursor and leaf != cursor:
                p = leaf  # the raw cursor is not the visible leaf (None included)
            if controls:
                if p in controls:
                    p = _through_controls(p, parents, controls)
                controls.discard(eid)
            parents[eid] = p
            seqs[eid] = seq
            cursor = leaf = eid
            moved = True
            if etype == "message":
                messages[eid] = (seq, role, ts)
            continue
        if flags & FLAG_NOT_NODE:
            continue
        if etype == "leaf":
            ctl = None if flags & FLAG_NO_PARENT else leaf_control(control)
            if ctl is None:
                continue  # not a control at all: on no tree
            target, append_to = ctl
            controls.add(eid)
            seqs[eid] = seq
            if (target is not None and (target not in parents or target in dangling)) or (
                append_to is not None and (append_to not in parents or append_to in dangling)
            ):
                dangling.add(eid)
                parents[eid] = parent  # transparent: it stands for its raw parent
                continue
            parents[eid] = target
            leaf, cursor, moved = target, append_to, True
            continue
        # Left: opaque nodes, parentless canonical ones, side appends (no stale or cursor rule).
        canonical = etype in canonical_types
        if flags & FLAG_NO_PARENT:
            if not canonical:
                continue
            p, explicit = leaf, False
        else:
            p, explicit = parent, True
        if canonical and p in controls:
            p = _through_controls(p, parents, controls)
        parents[eid] = p
        seqs[eid] = seq
        controls.discard(eid)
        cursor = eid
        if canonical and not flags & FLAG_SIDE:
            leaf = eid
            moved = moved or explicit
        if etype == "message":
            messages[eid] = (seq, role, ts)
    if not moved:
        return Walk(leaf, every, flat_messages, [], True, flat_marks)
    return _select(leaf, parents, seqs, controls, messages, boundaries)


def _select(
    leaf: str | None,
    parents: dict[str, str | None],
    seqs: dict[str, int],
    controls: set[str],
    messages: dict[str, tuple[int, str | None, int | None]],
    boundaries: list[tuple[int, str, str | None, Control]],
) -> Walk:
    path, passed, cycle = _path(leaf, parents, controls)
    ids: list[str] = []
    before: list[int] = []  # a boundary line kept as it is (it may have no id)
    if path:
        first = seqs[path[0]]
        b = next((b for b in reversed(boundaries) if b[0] < first), None)
        if b is not None:
            bseq, btype, bid, bcontrol = b
            kept = _first_kept(bcontrol) if btype == "reset" and bid is not None else None
            if kept is not None:
                reset_path, reset_passed, _ = _path(bid, parents, controls)
                at = reset_path.index(kept) if kept in reset_path else len(reset_path)
                ids, passed = reset_path[at:], passed + reset_path[:at] + reset_passed
            if not ids:
                before.append(bseq)
                if bid is not None:
                    passed.append(bid)
    ids += path
    out_seqs = before + [seqs[i] for i in ids]
    found: list[Message] = []
    others: list[str] = []
    for eid in ids:
        m = messages.get(eid)
        if m is not None and m[0] == seqs[eid]:
            found.append((m[0], eid, m[1], m[2]))
        else:
            others.append(eid)
    marks = _marks(ids, seqs, boundaries, before)
    return Walk(None if cycle else leaf, out_seqs, found, others + passed, False, marks)


def _marks(
    ids: list[str],
    seqs: dict[str, int],
    boundaries: list[tuple[int, str, str | None, Control]],
    before: list[int],
) -> list[Mark]:
    """The boundary lines among the branch's entries (``before``: a line kept on its own, then
    ``ids``), each reset with the seq of its kept entry when that is earlier on the branch."""
    if not boundaries:
        return []
    by_seq = {b[0]: b for b in boundaries}
    out: list[Mark] = [(s, by_seq[s][2], by_seq[s][1], None) for s in before if s in by_seq]
    at: dict[str, int] = {}  # id -> seq of the entries so far
    for eid in ids:
        s = seqs[eid]
        b = by_seq.get(s)
        if b is not None:
            kept = _first_kept(b[3]) if b[1] == "reset" else None
            out.append((s, eid, b[1], at.get(kept) if kept else None))
        at[eid] = s
    return out


class Extension(NamedTuple):
    leaf: str | None
    messages: list[Message]
    others: list[str]
    marks: list[Mark] = []


def extend(
    leaf: str | None, known: set[str], flat: bool, rows: Sequence[EventRow]
) -> Extension | None:
    """What appended rows add to a branch (its `leaf`, its `flat` mode, `known`: the ids of its
    messages and others), when they provably only extend it; None when they may change it
    otherwise (the caller then walks the whole tree again).

    Provable: lines on no tree; opaque nodes (they never move the leaf or join a path); and
    canonical, non-side nodes that hang under the leaf (no `parentId`, or exactly the leaf) with
    an id the branch does not hold. Never: controls, side appends, another parent (a stale one
    or the cursor may hang under the leaf too, but only the whole tree can tell), an empty or
    cyclic branch, and in flat mode any canonical line with a `parentId` (it ends flat mode).
    """
    found: list[Message] = []
    others: list[str] = []
    marks: list[Mark] = []
    seen = set(known)
    for seq, eid, parent, flags, etype, control, role, ts in rows:
        if etype == "session":
            continue
        if etype == "leaf":
            return None
        if etype == "reset" and _first_kept(control) is not None:
            return None  # its kept entry's place needs the whole branch: walk it again
        canonical = etype in CANONICAL
        if canonical and flags & FLAG_SIDE:
            return None
        node = eid is not None and not flags & FLAG_NOT_NODE
        if flat:
            if canonical and node and not flags & FLAG_NO_PARENT:
                return None
            if etype == "message" and eid is not None:
                found.append((seq, eid, role, ts))
            elif etype == "reset" or etype == "compaction":
                marks.append((seq, eid, etype, None))
            if canonical and node:
                leaf = eid
            continue
        if not node or not canonical:
            if node and eid in seen:
                return None
            continue  # on no tree, or opaque: the path does not change
        assert eid is not None
        if eid in seen or leaf is None:
            return None
        if not flags & FLAG_NO_PARENT and parent != leaf:
            return None
        seen.add(eid)
        leaf = eid
        if etype == "message":
            found.append((seq, eid, role, ts))
        else:
            others.append(eid)
            if etype == "reset" or etype == "compaction":
                marks.append((seq, eid, etype, None))
    return Extension(leaf, found, others, marks)
