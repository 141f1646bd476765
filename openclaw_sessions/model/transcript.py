"""Transcript lines → entries (pure: no I/O). The tree and its active branch: tree.py."""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from . import tree
from .tree import FLAG_NO_PARENT as FLAG_NO_PARENT
from .tree import FLAG_NOT_NODE as FLAG_NOT_NODE
from .tree import FLAG_SIDE as FLAG_SIDE
from .wellformed import json_text
from .when import to_epoch_ms


class Entry(NamedTuple):
    """What the tree needs of one stored line; the full object stays in the raw text (a
    NamedTuple: one is built per imported line, a frozen dataclass costs more)."""

    seq: int
    entry_id: str | None
    parent_id: str | None
    flags: int
    type: str | None
    role: str | None
    ts: int | None
    target_id: str | None = None
    control: dict[str, Any] | None = None  # the whole line, for `leaf` and `reset` lines


class LineError(ValueError):
    """A line that is not a JSON object."""


_raw_decode = json.JSONDecoder().raw_decode  # json.loads minus its wrappers: import hot path
_SPACE = " \t\r\n"


def parse_line(text: str) -> dict[str, Any]:
    body = json_text(text.lstrip(_SPACE))  # lone surrogate escapes → U+FFFD in the values
    try:
        obj, end = _raw_decode(body)
    except (ValueError, RecursionError) as exc:  # ValueError: also an int of 4300+ digits
        raise LineError(f"invalid JSON: {exc}") from None
    if end != len(body) and body[end:].strip(_SPACE):
        raise LineError("invalid JSON: extra data after the value")
    if not isinstance(obj, dict):
        raise LineError(f"expected a JSON object, got {type(obj).__name__}")
    return obj


def bad_time(obj: dict[str, Any]) -> Any:
    """The first timestamp of a line (its own, else its message's) that is present but
    unusable, or None. Asked only when the line got no time, so it costs nothing usually."""
    msg = obj.get("message")
    for v in (obj.get("timestamp"), msg.get("timestamp") if isinstance(msg, dict) else None):
        if v is not None and to_epoch_ms(v) is None:
            return v
    return None


def header_version(obj: dict[str, Any]) -> int | None:
    v = obj.get("version")
    return v if isinstance(v, int) and not isinstance(v, bool) else None


_MISSING: Any = object()


def make_entry(obj: dict[str, Any], seq: int, *, legacy: bool) -> Entry:
    """Build the tree view of one parsed line. legacy: v1 file (ids assigned in order)."""
    get = obj.get
    etype = get("type")
    if etype.__class__ is not str:
        etype = None
    raw_id = get("id")
    entry_id = raw_id if tree.non_blank(raw_id) else None
    parent = get("parentId", _MISSING)
    parent_id = None
    if parent is _MISSING:
        flags = FLAG_NO_PARENT
    elif parent is None:
        flags = 0
    elif tree.non_blank(parent):
        flags, parent_id = 0, parent
    else:
        flags = FLAG_NOT_NODE  # upstream puts a line with such a parentId on no tree
    if etype == "session":
        entry_id, parent_id, flags = None, None, 0
    elif legacy and entry_id is None:  # numbered by position, as upstream's migration does
        entry_id, parent_id, flags = f"v1-{seq:06d}", None, FLAG_NO_PARENT
    if get("appendMode") == "side":
        flags |= FLAG_SIDE
    msg = get("message")
    role = msg.get("role") if msg.__class__ is dict else None
    if role.__class__ is not str:
        role = None
    target = get("targetId") if etype == "leaf" else None
    return Entry(
        seq=seq,
        entry_id=entry_id,
        parent_id=parent_id,
        flags=flags,
        type=etype,
        role=role,
        ts=to_epoch_ms(get("timestamp")),
        target_id=target if isinstance(target, str) else None,
        control=obj if etype == "leaf" or etype == "reset" else None,
    )


def tree_row(e: Entry) -> tree.EventRow:
    """The tree's view of an entry (the columns of its stored event)."""
    return (e.seq, e.entry_id, e.parent_id, e.flags, e.type, e.control, e.role, e.ts)


def is_legacy(first: dict[str, Any]) -> bool:
    """Is the file whose first line this is a v1 transcript (ids assigned by position)? A
    header without a version, or a first line without an ``id``."""
    if first.get("type") == "session":
        return header_version(first) is None
    return "id" not in first
