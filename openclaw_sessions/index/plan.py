"""Planning a transcript's index: everything a rebuild computes before it writes.

Read the transcript's events in one read transaction, walk its tree to the active branch, and
build an index row (extracted, redacted text and its CJK bigrams) for each user and assistant
message on it. No claim is needed: the write that follows claims the transcript, and its
publish checks that the transcript is still the one planned (revision and next_seq).
"""

from __future__ import annotations

import sqlite3
from typing import NamedTuple

from openclaw_sessions.model import transcript, wellformed
from openclaw_sessions.model.branch import Branch
from openclaw_sessions.redact import Redactor
from openclaw_sessions.store import branches, rawcodec
from openclaw_sessions.store.db import transaction

from . import index_rows
from .failures import IndexFailure, failed

_RAW_SQL = (
    "SELECT seq, raw FROM events WHERE transcript_id = ? AND type = 'message'"
    " AND role IN ('user', 'assistant') ORDER BY seq"
)


class PlannedIndex(NamedTuple):
    """A transcript's index as planned from (revision, next_seq)."""

    transcript_id: int
    next_seq: int
    revision: int
    branch: Branch
    rows: list[index_rows.IndexRow]


def plan_rows(conn: sqlite3.Connection, tid: int, redactor: Redactor) -> PlannedIndex | None:
    """The planned index of one transcript; None when it is gone. Raises IndexFailure when
    planning it raises (that transcript's problem), a store failure as it is."""
    with transaction(conn, write=False):
        head = conn.execute(
            "SELECT next_seq, revision FROM transcripts WHERE transcript_id = ?", (tid,)
        ).fetchone()
        if head is None:
            return None
        try:
            b = branches.walk_transcript(conn, tid)
            rows = _rows(conn, tid, b, redactor)
        except Exception as exc:
            raise failed(tid, head[1], head[0], exc) from exc
    return PlannedIndex(tid, head[0], head[1], b, rows)


def plan_or_failure(
    conn: sqlite3.Connection, tid: int, redactor: Redactor
) -> PlannedIndex | IndexFailure | None:
    """``plan_rows``, with that transcript's failure returned instead of raised."""
    try:
        return plan_rows(conn, tid, redactor)
    except IndexFailure as f:
        return f


def _rows(
    conn: sqlite3.Connection, tid: int, b: Branch, redactor: Redactor
) -> list[index_rows.IndexRow]:
    active = {m.seq: m for m in b.rows if m.role in ("user", "assistant")}
    rows: list[index_rows.IndexRow] = []
    for seq, raw in conn.execute(_RAW_SQL, (tid,)) if active else ():
        if (m := active.get(seq)) is not None:
            e = transcript.Entry(seq, m.entry_id, None, 0, "message", m.role, m.ts)
            obj = wellformed.loads(rawcodec.unpack_text(conn, raw))
            row = index_rows.make_row(tid, e, obj, redactor)
            if row is not None:
                rows.append(row)
    return rows
