"""Index rows and index state: building rows from events, the same-transaction append rule.

The text stored in the index is redacted first, so the index never holds a secret and a search
for a secret value cannot find it (the transcript rows keep the original, losslessly).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import branch, branchstore, extract, query, transcript
from .db import now_ms

if TYPE_CHECKING:
    from .redact import Redactor

IndexRow = tuple[int, int, str, str, int, str, str | None]

INSERT_ROW = (
    "INSERT INTO index_rows (transcript_id, seq, message_id, role, ts, text, cjk)"
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
        ts = transcript.to_epoch_ms(msg.get("timestamp")) if isinstance(msg, dict) else None
    clean = redactor.redact_text(text)
    return (transcript_id, e.seq, e.entry_id, e.role, ts or 0, clean, query.cjk_bigram_text(clean))


@dataclass(frozen=True)
class State:
    indexed_seq: int
    leaf: str | None
    needs_rebuild: int
    claim_token: str | None
    redaction_fp: str


def load_state(conn: sqlite3.Connection, transcript_id: int) -> State | None:
    row = conn.execute(
        "SELECT indexed_seq, leaf_event_id, needs_rebuild, claim_token, redaction_fp"
        " FROM index_state WHERE transcript_id = ?",
        (transcript_id,),
    ).fetchone()
    return State(*row) if row else None


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
    """Index appended events in the caller's transaction when they extend the leaf.

    Upstream's rule: the session must have a clean state row, each event must be the next seq,
    not a leaf control or side append, and hang under the stored leaf. Anything else marks
    the session dirty for the reconciler. Returns the number of rows indexed.
    """
    state = load_state(conn, transcript_id)
    if state is None or not appended:
        return 0  # never indexed: the reconciler backfills it, as upstream
    if state.needs_rebuild or state.claim_token or state.redaction_fp != redactor.fingerprint:
        mark_dirty(conn, transcript_id)
        return 0
    seq, leaf, rows = state.indexed_seq, state.leaf, []
    on_branch: list[branch.Row] = []
    others: list[str] = []
    for e, obj in appended:
        if not _extends(e, seq, leaf):
            mark_dirty(conn, transcript_id)
            return 0
        seq = e.seq
        if e.entry_id is not None and not e.is_header:
            leaf = e.entry_id
            if e.type == "message":
                on_branch.append(branch.Row(e.seq, e.entry_id, e.role, e.ts))
            else:
                others.append(e.entry_id)
            row = make_row(transcript_id, e, obj, redactor)
            if row is not None:
                rows.append(row)
    insert_rows(conn, rows)
    branchstore.extend(
        conn, transcript_id, (state.indexed_seq + 1, state.leaf), (seq + 1, leaf),
        branch.Messages.of(on_branch), others,
    )  # fmt: skip
    conn.execute(
        "UPDATE index_state SET indexed_seq = ?, leaf_event_id = ?, updated_at = ?"
        " WHERE transcript_id = ?",
        (seq, leaf, now_ms(), transcript_id),
    )
    return len(rows)


def insert_rows(conn: sqlite3.Connection, rows: Sequence[IndexRow]) -> None:
    """Store index rows and index them, each FTS table in one INSERT ... SELECT."""
    if not rows:
        return
    last = conn.execute("SELECT coalesce(max(row_id), 0) FROM index_rows").fetchone()[0]
    conn.executemany(INSERT_ROW, rows)
    # New rows got row_ids above `last`: we hold the write lock, nobody else inserted.
    conn.execute(
        "INSERT INTO index_fts(rowid, text) SELECT row_id, text FROM index_rows WHERE row_id > ?",
        (last,),
    )
    if any(r[6] is not None for r in rows):
        conn.execute(
            "INSERT INTO index_bigram(rowid, cjk) SELECT row_id, cjk FROM index_rows"
            " WHERE row_id > ? AND cjk IS NOT NULL",
            (last,),
        )


def _extends(e: transcript.Entry, indexed_seq: int, leaf: str | None) -> bool:
    if e.seq != indexed_seq + 1 or e.type == "leaf" or e.flags & transcript.FLAG_SIDE:
        return False
    if e.entry_id is None:
        return True  # a header or id-less line: stored, nothing on the tree moves
    return bool(e.flags & transcript.FLAG_NO_PARENT) or e.parent_id == leaf


def delete_rows(conn: sqlite3.Connection, transcript_ids: Iterable[int]) -> int:
    total = 0
    for tid in transcript_ids:
        total += conn.execute("DELETE FROM index_rows WHERE transcript_id = ?", (tid,)).rowcount
    return total
