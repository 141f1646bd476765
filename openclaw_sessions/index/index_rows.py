"""Index rows and index state: building rows from events, the same-transaction append rule.

The text stored in the index is redacted first, so the index never holds a secret and a search
for a secret value cannot find it (the transcript rows keep the original, losslessly). A row's
CJK bigram text is computed with it (in the planning workers) and indexed, never stored: the
schema derives it again from the text where SQLite needs it (a delete's trigger).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from openclaw_sessions.model import extract, transcript, tree, when
from openclaw_sessions.policy import cjk
from openclaw_sessions.store import branches
from openclaw_sessions.store.db import now_ms

if TYPE_CHECKING:
    from openclaw_sessions.model.branch import Branch
    from openclaw_sessions.redact import Redactor

# (transcript_id, seq, message_id, role, ts, text, CJK bigram text or None)
IndexRow = tuple[int, int, str, str, int, str, str | None]

INSERT_ROW = (
    "INSERT INTO index_rows (row_id, transcript_id, seq, message_id, role, ts, text)"
    " VALUES (?, ?, ?, ?, ?, ?, ?)"
)


def make_row(
    transcript_id: int, e: transcript.Entry, obj: dict[str, Any], redactor: Redactor
) -> IndexRow | None:
    """The index row of one entry, or None when it is not indexed."""
    text = extract.indexable_text(obj, e.entry_id)
    if text is None or e.entry_id is None or e.role is None:
        return None
    ts = e.ts
    if ts is None:
        msg = obj.get("message")
        ts = when.to_epoch_ms(msg.get("timestamp")) if isinstance(msg, dict) else None
    clean = redactor.redact_text(text)
    bigrams = cjk.index_bigram_text(clean)
    return (transcript_id, e.seq, e.entry_id, e.role, ts or 0, clean, bigrams)


class IndexState(NamedTuple):
    """A transcript's row of index_state."""

    indexed_seq: int
    leaf: str | None
    needs_rebuild: int
    claim_token: str | None
    redaction_fp: str


def load_state(conn: sqlite3.Connection, transcript_id: int) -> IndexState | None:
    row = conn.execute(
        "SELECT indexed_seq, leaf_event_id, needs_rebuild, claim_token, redaction_fp"
        " FROM index_state WHERE transcript_id = ?",
        (transcript_id,),
    ).fetchone()
    return IndexState(*row) if row else None


def mark_dirty(conn: sqlite3.Connection, transcript_id: int) -> None:
    conn.execute(
        "UPDATE index_state SET needs_rebuild = 1, updated_at = ? WHERE transcript_id = ?",
        (now_ms(), transcript_id),
    )


def append_indexed(
    conn: sqlite3.Connection,
    transcript_id: int,
    appended: Sequence[tuple[transcript.Entry, dict[str, Any]]],
    redactor: Redactor,
) -> int:
    """Index appended events in the caller's transaction when they provably extend the
    active branch (tree.extend, against the stored branch); otherwise mark the session dirty
    for the reconciler. Returns the number of rows indexed.

    As upstream: only a session with a clean state row, and only events that follow its
    indexed seq; the stored branch must be the one of that state (both are written together).
    """
    state = load_state(conn, transcript_id)
    if state is None or not appended:
        return 0  # never indexed: the reconciler backfills it, as upstream
    if state.needs_rebuild or state.claim_token or state.redaction_fp != redactor.fingerprint:
        mark_dirty(conn, transcript_id)
        return 0
    rows = [transcript.tree_row(e) for e, _ in appended]
    found = _extension(conn, transcript_id, state, rows)
    if found is None:
        mark_dirty(conn, transcript_id)
        return 0
    revision, b, ext = found
    indexed = {m[0] for m in ext.messages if m[2] in ("user", "assistant")}
    out = [
        r
        for e, obj in appended
        if e.seq in indexed and (r := make_row(transcript_id, e, obj, redactor)) is not None
    ]
    insert_rows(conn, out)
    last = rows[-1][0]
    branches.store(conn, transcript_id, revision, last + 1, b.extended(ext))
    conn.execute(
        "UPDATE index_state SET indexed_seq = ?, leaf_event_id = ?, updated_at = ?"
        " WHERE transcript_id = ?",
        (last, ext.leaf, now_ms(), transcript_id),
    )
    return len(out)


def _extension(
    conn: sqlite3.Connection, tid: int, state: IndexState, rows: Sequence[tree.EventRow]
) -> tuple[int, Branch, tree.Extension] | None:
    """(revision, stored branch, what the rows add to it) when they provably extend it."""
    start = state.indexed_seq + 1
    if any(r[0] != start + i for i, r in enumerate(rows)):
        return None
    stored = branches.load_at(conn, tid, start)
    if stored is None or stored[1].leaf != state.leaf:
        return None
    revision, b = stored
    ext = tree.extend(b.leaf, set(b.rows.ids).union(b.others), b.flat, rows)
    return (revision, b, ext) if ext is not None else None


def insert_rows(conn: sqlite3.Connection, rows: Sequence[IndexRow]) -> None:
    """Store index rows (row_ids after the last: the caller holds the write lock) and index
    them: the text in one INSERT ... SELECT, the bigram text as computed."""
    if not rows:
        return
    last = conn.execute("SELECT coalesce(max(row_id), 0) FROM index_rows").fetchone()[0]
    conn.executemany(INSERT_ROW, [(last + 1 + i, *r[:6]) for i, r in enumerate(rows)])
    conn.execute(
        "INSERT INTO index_fts(rowid, text) SELECT row_id, text FROM index_rows WHERE row_id > ?",
        (last,),
    )
    bigrams = [(last + 1 + i, r[6]) for i, r in enumerate(rows) if r[6] is not None]
    if bigrams:
        conn.executemany("INSERT INTO index_bigram(rowid, cjk) VALUES (?, ?)", bigrams)
