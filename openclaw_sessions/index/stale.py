"""Which transcripts the index serves, which need reconciliation, and which failed: the read
side of the index state, which search asks on every call (the writers: reconcile.py,
failures.py).

Fresh: a transcript's rows are searchable while its index state is clean, unclaimed (a claimed
one is being rewritten) and built under the current redaction rules; appended lines not yet
indexed do not hide the rows already there. Failed: its planning or writing raised, and it is
still as it was then (same revision and lines, same rules and code): reported, not retried.
Stale: never indexed, not fresh, or its index behind its lines; and not failed.

The SQL of these definitions lives in store/pending.py, next to the pending set that triggers
keep equal to the stale set, so that "is anything stale?" costs the same at any store size.
"""

from __future__ import annotations

import sqlite3
from typing import NamedTuple

from openclaw_sessions.store.pending import any_stale, failure_key, figures, fresh, stale_ids

__all__ = [
    "Failure",
    "any_stale",
    "current_failures",
    "failure_key",
    "figures",
    "fresh",
    "stale_ids",
]


class Failure(NamedTuple):
    transcript_id: int
    session_key: str
    session_id: str
    path: str
    error: str
    failed_at: int


def current_failures(conn: sqlite3.Connection, fingerprint: str) -> list[Failure]:
    """Transcripts whose indexing failed as they are now (not retried until they change).
    CROSS JOIN: SQLite's planner would scan every transcript to skip a sort of the few."""
    rows = conn.execute(
        "SELECT t.transcript_id, t.session_key, t.session_id, t.source_path, f.error,"
        " f.failed_at"
        " FROM index_failures f CROSS JOIN transcripts t ON t.transcript_id = f.transcript_id"
        " WHERE f.revision = t.revision AND f.next_seq = t.next_seq AND f.fingerprint = ?"
        " ORDER BY t.session_key, t.transcript_id",
        (failure_key(fingerprint),),
    ).fetchall()
    return [Failure(*r) for r in rows]
