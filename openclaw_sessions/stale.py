"""Which transcripts need reconciliation (kept apart: search asks this on every call)."""

from __future__ import annotations

import sqlite3

# Stale = never indexed, dirty, watermark behind, indexed under other redaction rules, or
# claimed (a live claim is skipped by the reconciler; a dead one is taken over).
STALE_WHERE = (
    "s.transcript_id IS NULL OR s.needs_rebuild != 0 OR s.indexed_seq < t.next_seq - 1"
    " OR s.redaction_fp != ? OR s.claim_token IS NOT NULL"
)
STALE_FROM = "transcripts t LEFT JOIN index_state s ON s.transcript_id = t.transcript_id"


def stale_ids(conn: sqlite3.Connection, fingerprint: str) -> list[int]:
    rows = conn.execute(
        f"SELECT t.transcript_id FROM {STALE_FROM} WHERE {STALE_WHERE} ORDER BY t.transcript_id",
        (fingerprint,),
    ).fetchall()
    return [r[0] for r in rows]
