"""Index failures: a transcript whose planning or writing raises is that transcript's problem.

Its claim is released, the failure is remembered against what failed (index_failures: the
transcript's revision and next_seq, and pending.failure_key: the redaction rules and the tool
version) and reported; the run goes on with the others. While all of those are unchanged the
transcript is not stale (store/pending.py): it is reported as failed (`status`, search's
`unindexed`) instead of being retried by every run; `reindex --full` retries it. Store
failures (locked, full, corrupt) are not caught here: they end the run (exit 3).
"""

from __future__ import annotations

import json
import sqlite3
from typing import TYPE_CHECKING

from openclaw_sessions.reports import Issue
from openclaw_sessions.store.db import describe, is_store_failure, now_ms, transaction
from openclaw_sessions.store.pending import current_failures, failure_key

if TYPE_CHECKING:
    from openclaw_sessions.redact import Redactor


class IndexFailure(Exception):
    """Planning or writing one transcript raised; carries what failed."""

    def __init__(self, tid: int, revision: int, next_seq: int, reason: str) -> None:
        super().__init__(tid, revision, next_seq, reason)  # picklable: from a planning worker
        self.tid, self.revision, self.next_seq, self.reason = tid, revision, next_seq, reason


def failed(tid: int, revision: int, next_seq: int, exc: Exception) -> Exception:
    """The exception to raise for ``exc`` met on one transcript: a store failure as is."""
    if is_store_failure(exc):
        return exc
    return IndexFailure(tid, revision, next_seq, describe(exc))


class Failures:
    """The failures of one reconcile run: recorded as they happen, reported at the end."""

    def __init__(self, conn: sqlite3.Connection, redactor: Redactor, token: str) -> None:
        self.conn, self.redactor, self.token = conn, redactor, token
        self.key = failure_key(redactor.fingerprint)
        self.new: set[int] = set()

    def add(self, f: IndexFailure) -> None:
        """Release our claim on it and remember the failure, in one write transaction."""
        now = now_ms()
        with transaction(self.conn):
            self.conn.execute(
                "UPDATE index_state SET claim_token = NULL, claim_expires = NULL,"
                " needs_rebuild = 1, updated_at = ? WHERE transcript_id = ? AND claim_token = ?",
                (now, f.tid, self.token),
            )
            self.conn.execute(
                "INSERT INTO index_failures (transcript_id, revision, next_seq, fingerprint,"
                " error, failed_at) SELECT transcript_id, ?, ?, ?, ?, ? FROM transcripts"
                " WHERE transcript_id = ? ON CONFLICT(transcript_id) DO UPDATE SET"
                " revision = excluded.revision, next_seq = excluded.next_seq,"
                " fingerprint = excluded.fingerprint, error = excluded.error,"
                " failed_at = excluded.failed_at",
                (f.revision, f.next_seq, self.key, self.redactor.redact_text(f.reason), now, f.tid),
            )
        self.new.add(f.tid)

    def report(self) -> tuple[tuple[Issue, ...], int]:
        """(an issue per transcript that failed in this run, how many that failed in earlier
        runs are still failed as they are now: not retried)."""
        rows = self.conn.execute(
            "SELECT t.session_key, t.source_path, f.error FROM index_failures f JOIN"
            " transcripts t ON t.transcript_id = f.transcript_id WHERE f.transcript_id IN"
            " (SELECT value FROM json_each(?)) ORDER BY 1, 2",
            (json.dumps(sorted(self.new)),),
        ).fetchall()
        why = (
            "not indexed: {}; retried when the transcript or the redaction rules change"
            " (`openclaw-sessions status` lists it)"
        )
        issues = tuple(Issue("index_failed", why.format(e), path, None, k) for k, path, e in rows)
        known = current_failures(self.conn, self.redactor.fingerprint)
        return issues, sum(1 for f in known if f.transcript_id not in self.new)
