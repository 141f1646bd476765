"""One stored transcript's active branch, and a window of its messages ready to show.

The walk applies ``TreeState.feed``'s rules to plain row tuples (building 10,000 Entry objects
costs more than the walk itself) and reuses its path walk; only the window's raw lines are
parsed, then sanitised (sanitize.py) with ``id`` and ``timestamp`` added.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from typing import NamedTuple

from . import sanitize
from .sanitize import TextRedactor
from .transcript import FLAG_NO_PARENT, FLAG_SIDE, TreeState, to_epoch_ms


class Row(NamedTuple):
    """One message on the active branch (what the page and window maths need)."""

    seq: int
    entry_id: str
    role: str | None
    ts: int | None


_new_row = tuple.__new__  # NamedTuple's own __new__ is a Python function: 3x slower
_TREE_SQL = (
    "SELECT seq, entry_id, parent_id, flags, type, target_id, role, ts FROM events"
    " WHERE transcript_id = ? ORDER BY seq"
)
EventRow = tuple[int, str | None, str | None, int, str | None, str | None, str | None, int | None]


def active_branch(rows: Iterable[EventRow]) -> list[Row]:
    """The active branch's messages, oldest first, from event rows in seq order."""
    parents: dict[str, str | None] = {}
    seqs: dict[str, int] = {}
    messages: dict[str, Row] = {}
    leaf: str | None = None
    for seq, eid, parent, flags, etype, target, role, ts in rows:
        if etype == "leaf":
            if target is not None and target in parents:
                leaf = target
            continue
        if eid is None:
            continue
        parents[eid] = leaf if flags & FLAG_NO_PARENT else parent
        seqs[eid] = seq
        if etype == "message":
            messages[eid] = _new_row(Row, (seq, eid, role, ts))
        if not flags & FLAG_SIDE:
            leaf = eid
    path = TreeState(parents, seqs, leaf).active_path()
    return [m for eid in path if (m := messages.get(eid)) is not None and m.seq == seqs[eid]]


def active_messages(conn: sqlite3.Connection, tid: int) -> list[Row]:
    cur = conn.cursor()
    cur.row_factory = None  # plain tuples: sqlite3.Row is slower to unpack
    return active_branch(cur.execute(_TREE_SQL, (tid,)))


def load_window(
    conn: sqlite3.Connection, tid: int, rows: list[Row], redactor: TextRedactor
) -> list[sanitize.Sanitized]:
    """Parse and sanitise exactly these rows; each message gains ``id`` and ``timestamp``."""
    raw = dict(
        conn.execute(
            "SELECT seq, raw FROM events WHERE transcript_id = ?"
            " AND seq IN (SELECT value FROM json_each(?))",
            (tid, json.dumps([r.seq for r in rows])),
        ).fetchall()
    )
    out: list[sanitize.Sanitized] = []
    for r in rows:
        obj = json.loads(raw[r.seq])
        msg = obj.get("message") if isinstance(obj, dict) else None
        if not isinstance(msg, dict):
            msg = {"role": r.role or "unknown", "content": ""}
        s = sanitize.sanitize_message(msg, redactor)
        ts = r.ts if r.ts is not None else to_epoch_ms(msg.get("timestamp"))
        shaped = {
            "role": s.message.get("role", r.role),
            **s.message,
            "timestamp": ts,
            "id": r.entry_id,
        }
        final, size = sanitize.well_formed(shaped)
        out.append(sanitize.Sanitized(final, s.truncated, s.redacted, size))
    return out
