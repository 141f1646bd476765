"""Which transcripts need reconciliation, and which failed (kept apart: search asks this on
every call).

A transcript whose indexing failed is remembered against what failed (index_failures: its
revision and next_seq, the redaction rules and the tool version). While all of those are
unchanged it is not stale: it is reported as failed instead of being retried by every run.
"""

from __future__ import annotations

import sqlite3
from typing import NamedTuple

from openclaw_sessions import __version__

# Stale = never indexed, dirty, watermark behind, indexed under other redaction rules, or
# claimed (a live claim is skipped by the reconciler; a dead one is taken over); and not
# failed as it is now. Parameters: ?1 the redaction fingerprint, ?2 failure_key(it).
CURRENT_FAILURE = (
    "SELECT 1 FROM index_failures f WHERE f.transcript_id = t.transcript_id"
    " AND f.revision = t.revision AND f.next_seq = t.next_seq AND f.fingerprint = ?2"
)
STALE_WHERE = (
    "(s.transcript_id IS NULL OR s.needs_rebuild != 0 OR s.indexed_seq < t.next_seq - 1"
    " OR s.redaction_fp != ?1 OR s.claim_token IS NOT NULL)"
    f" AND NOT EXISTS ({CURRENT_FAILURE})"
)
STALE_FROM = "transcripts t LEFT JOIN index_state s ON s.transcript_id = t.transcript_id"


def failure_key(fingerprint: str) -> str:
    """What a failure is remembered against besides the transcript: the rules and the code."""
    return f"{fingerprint}/{__version__}"


def params(fingerprint: str) -> tuple[str, str]:
    """The parameters of STALE_WHERE."""
    return fingerprint, failure_key(fingerprint)


def stale_ids(conn: sqlite3.Connection, fingerprint: str) -> list[int]:
    rows = conn.execute(
        f"SELECT t.transcript_id FROM {STALE_FROM} WHERE {STALE_WHERE} ORDER BY t.transcript_id",
        params(fingerprint),
    ).fetchall()
    return [r[0] for r in rows]


class Failure(NamedTuple):
    transcript_id: int
    session_key: str
    session_id: str
    path: str
    error: str
    failed_at: int


def failures(conn: sqlite3.Connection, fingerprint: str) -> list[Failure]:
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
