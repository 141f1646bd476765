"""One stored transcript's active branch, and a window of its messages ready to show.

The branch comes from its stored copy when that is current (branchstore.py), else from the
tree walk (tree.py) over the transcript's event rows as plain tuples. Messages are kept as
columns; only the window's raw lines are parsed, then sanitised (sanitize.py) with ``id`` and
``timestamp`` added.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterable, Sequence
from typing import NamedTuple, overload

from . import sanitize, tree, wellformed
from .sanitize import TextRedactor
from .transcript import to_epoch_ms


class Row(NamedTuple):
    """One message on the active branch (what the page and window maths need)."""

    seq: int
    entry_id: str
    role: str | None
    ts: int | None


_new_row = tuple.__new__  # NamedTuple's own __new__ is a Python function: 3x slower
# The whole line only for the controls whose fields no column holds (tree.py).
_TREE_SQL = (
    "SELECT seq, entry_id, parent_id, flags, type,"
    " CASE WHEN type IN ('leaf', 'reset') THEN raw END, role, ts FROM events"
    " WHERE transcript_id = ? ORDER BY seq"
)


class Messages(Sequence[Row]):
    """The active branch's messages as columns. A stored 10,000-message branch decodes in about
    a millisecond this way; Row tuples are only built for the rows a page or window shows."""

    __slots__ = ("seqs", "ids", "roles", "ts")

    def __init__(
        self, seqs: list[int], ids: list[str], roles: list[str | None], ts: list[int | None]
    ) -> None:
        self.seqs, self.ids, self.roles, self.ts = seqs, ids, roles, ts

    @classmethod
    def of(cls, rows: Iterable[Row]) -> Messages:
        rows = list(rows)
        return cls(
            [r.seq for r in rows], [r.entry_id for r in rows], [r.role for r in rows],
            [r.ts for r in rows],
        )  # fmt: skip

    def __len__(self) -> int:
        return len(self.seqs)

    @overload
    def __getitem__(self, i: int) -> Row: ...
    @overload
    def __getitem__(self, i: slice) -> Messages: ...
    def __getitem__(self, i: int | slice) -> Row | Messages:
        if isinstance(i, slice):
            return Messages(self.seqs[i], self.ids[i], self.roles[i], self.ts[i])
        return _new_row(Row, (self.seqs[i], self.ids[i], self.roles[i], self.ts[i]))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Messages):
            return NotImplemented
        return (self.seqs, self.ids, self.roles, self.ts) == (
            other.seqs, other.ids, other.roles, other.ts
        )  # fmt: skip

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Messages({list(self)!r})"

    def index_of(self, entry_id: str) -> int | None:
        try:
            return self.ids.index(entry_id)
        except ValueError:
            return None

    def without_roles(self, dropped: Collection[str]) -> Messages:
        keep = [i for i, r in enumerate(self.roles) if r not in dropped]
        if len(keep) == len(self.roles):
            return self
        seqs, ids, roles, ts = self.seqs, self.ids, self.roles, self.ts
        return Messages(
            [seqs[i] for i in keep], [ids[i] for i in keep], [roles[i] for i in keep],
            [ts[i] for i in keep],
        )  # fmt: skip

    def __add__(self, other: Messages) -> Messages:
        return Messages(
            self.seqs + other.seqs, self.ids + other.ids, self.roles + other.roles,
            self.ts + other.ts,
        )  # fmt: skip


class Branch(NamedTuple):
    """A transcript's active branch: its leaf, its messages, the ids of its other entries."""

    leaf: str | None  # what an append must hang under to extend it (tree.Walk.leaf)
    rows: Messages
    others: list[str]  # ids besides its messages' whose reuse would change it (tree.Walk)
    flat: bool = False  # no line ever moved the leaf: the branch is every line (tree.Walk)

    def extended(self, ext: tree.Extension) -> Branch:
        return Branch(ext.leaf, self.rows + messages_of(ext.messages),
                      self.others + ext.others, self.flat)  # fmt: skip


def messages_of(found: list[tree.Message]) -> Messages:
    if not found:
        return Messages([], [], [], [])
    seqs, ids, roles, ts = zip(*found, strict=True)
    return Messages(list(seqs), list(ids), list(roles), list(ts))


def walk(rows: Iterable[tree.EventRow]) -> Branch:
    """The active branch, from event rows in seq order."""
    w = tree.walk(rows)
    return Branch(w.leaf, messages_of(w.messages), w.others, w.flat)


def active_branch(rows: Iterable[tree.EventRow]) -> list[Row]:
    """The active branch's messages, oldest first, from event rows in seq order."""
    return list(walk(rows).rows)


def walk_transcript(conn: sqlite3.Connection, tid: int) -> Branch:
    """Walk the whole stored tree (the caller holds a read or write transaction)."""
    cur = conn.cursor()
    cur.row_factory = None  # plain tuples: sqlite3.Row is slower to unpack
    return walk(cur.execute(_TREE_SQL, (tid,)))


def active_messages(conn: sqlite3.Connection, tid: int) -> Messages:
    """The active branch's messages: the stored copy when it is current, else a walk."""
    from openclaw_sessions.store.branches import load_cached

    cached = load_cached(conn, tid)
    return cached.rows if cached is not None else walk_transcript(conn, tid).rows


def load_window(
    conn: sqlite3.Connection, tid: int, rows: Sequence[Row], redactor: TextRedactor
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
        try:
            obj = wellformed.loads(raw[r.seq])
        except (ValueError, RecursionError):  # a row edited by hand: shown empty, not fatal
            obj = None
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
