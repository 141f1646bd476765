"""Which transcripts the index serves, which need reconciliation, and which failed: the read
side of the index state, which search asks on every call (the writers: reconcile.py,
failures.py).

Fresh: a transcript's rows are searchable while its index state is clean, unclaimed (a claimed
one is being rewritten) and built under the current redaction rules; appended lines not yet
indexed do not hide the rows already there. Failed: its planning or writing raised, and it is
still as it was then (same revision and lines, same rules and code): reported, not retried.
Stale: never indexed, not fresh, or its index behind its lines; and not failed.
"""

from __future__ import annotations

import sqlite3
from typing import NamedTuple

from openclaw_sessions import __version__

# A failure of the transcript as it is now: same revision, same lines, same rules and code.
# Parameters: ?2 failure_key(fingerprint); t is the transcript.
CURRENT_FAILURE = (
    "SELECT 1 FROM index_failures f WHERE f.transcript_id = t.transcript_id"
    " AND f.revision = t.revision AND f.next_seq = t.next_seq AND f.fingerprint = ?2"
)


def failure_key(fingerprint: str) -> str:
    """What a failure is remembered against besides the transcript: the rules and the code."""
    return f"{fingerprint}/{__version__}"


class Failure(NamedTuple):
    transcript_id: int
    session_key: str
    session_id: str
    path: str
    error: str
    failed_at: int


def current_failures(conn: sqlite3.Connection, fingerprint: str) -> list[Failure]:
    """Transcripts whose indexing failed as they are now (not retried until they change)."""
    rows = conn.execute(
        "SELECT t.transcript_id, t.session_key, t.session_id, t.source_path, f.error,"
        " f.failed_at"
        " FROM index_failures f JOIN transcripts t ON t.transcript_id = f.transcript_id"
        " WHERE f.revision = t.revision AND f.next_seq = t.next_seq AND f.fingerprint = ?"
        " ORDER BY t.session_key, t.transcript_id",
        (failure_key(fingerprint),),
    ).fetchall()
    return [Failure(*r) for r in rows]


def fresh(fingerprint_param: str = "?") -> str:
    """The condition on index_state ``s`` under which a transcript's rows are searchable;
    its parameter is the redaction fingerprint."""
    return f"s.needs_rebuild = 0 AND s.claim_token IS NULL AND s.redaction_fp = {fingerprint_param}"


STALE_FROM = "transcripts t LEFT JOIN index_state s ON s.transcript_id = t.transcript_id"
# Parameters: ?1 the redaction fingerprint, ?2 failure_key(it) (see params).
STALE_WHERE = (
    f"(s.transcript_id IS NULL OR NOT ({fresh('?1')}) OR s.indexed_seq < t.next_seq - 1)"
    f" AND NOT EXISTS ({CURRENT_FAILURE})"
)


def params(fingerprint: str) -> tuple[str, str]:
    """The parameters of STALE_WHERE."""
    return fingerprint, failure_key(fingerprint)


def stale_ids(conn: sqlite3.Connection, fingerprint: str) -> list[int]:
    rows = conn.execute(
        f"SELECT t.transcript_id FROM {STALE_FROM} WHERE {STALE_WHERE} ORDER BY t.transcript_id",
        params(fingerprint),
    ).fetchall()
    return [r[0] for r in rows]
