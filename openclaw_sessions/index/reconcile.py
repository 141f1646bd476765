"""Reconciliation: find stale transcripts, plan their index (plan.py), claim them,
rewrite their rows in short batched write transactions, publish each only if it did not change
since it was planned, sweep orphans.

Small transcripts are planned and written together (one transaction, one FTS5 segment for the
group); a large one alone, in batches, so readers never wait long. A transcript whose planning
or writing raises is that transcript's problem (failures.py): the run goes on.
"""

from __future__ import annotations

import sqlite3
import time

from openclaw_sessions.redact import Redactor
from openclaw_sessions.reports import Progress, ReindexReport
from openclaw_sessions.store import branches, pending
from openclaw_sessions.store.db import is_store_failure, now_ms, set_meta, transaction
from openclaw_sessions.store.pending import stale_ids

from . import index_rows, plan
from .claims import ClaimLost, check_claim, claim_many, new_token, release_all
from .failures import Failures, IndexFailure, failed
from .plan import PlannedIndex, plan_or_failure

BATCH_ROWS = 1024
# Small transcripts are rebuilt together, up to this many events per write transaction.
GROUP_EVENTS = 4096
MAX_RETRIES = 3

Written = dict[int, int | None]  # rows written per transcript; None: not now (retried alone)


def _rewrite(conn: sqlite3.Connection, p: PlannedIndex, token: str) -> None:
    """Replace the transcript's rows in short write transactions (readers never wait long)."""
    while True:
        with transaction(conn):
            check_claim(conn, p.transcript_id, token)
            n = conn.execute(
                "DELETE FROM index_rows WHERE row_id IN (SELECT row_id FROM index_rows"
                " WHERE transcript_id = ? LIMIT ?)",
                (p.transcript_id, BATCH_ROWS * 4),
            ).rowcount
        if n < BATCH_ROWS * 4:
            break
    for start in range(0, len(p.rows), BATCH_ROWS):
        with transaction(conn):
            check_claim(conn, p.transcript_id, token)
            index_rows.insert_rows(conn, p.rows[start : start + BATCH_ROWS])


def _publish(conn: sqlite3.Connection, p: PlannedIndex, fp: str) -> bool:
    """Make the rows visible, unless the transcript changed since it was planned. The caller
    holds the write transaction and has checked the claim."""
    head = conn.execute(
        "SELECT next_seq, revision FROM transcripts WHERE transcript_id = ?",
        (p.transcript_id,),
    ).fetchone()
    unchanged = head is not None and tuple(head) == (p.next_seq, p.revision)
    if unchanged:
        conn.execute(
            "UPDATE index_state SET indexed_seq = ?, leaf_event_id = ?, needs_rebuild = 0,"
            " claim_token = NULL, claim_expires = NULL, redaction_fp = ?, updated_at = ?"
            " WHERE transcript_id = ?",
            (p.next_seq - 1, p.branch.leaf, fp, now_ms(), p.transcript_id),
        )
        branches.store(conn, p.transcript_id, p.revision, p.next_seq, p.branch)
        conn.execute("DELETE FROM index_failures WHERE transcript_id = ?", (p.transcript_id,))
    else:
        conn.execute(
            "UPDATE index_state SET needs_rebuild = 1, claim_token = NULL,"
            " claim_expires = NULL, updated_at = ? WHERE transcript_id = ?",
            (now_ms(), p.transcript_id),
        )
    return unchanged


def _write_one(conn: sqlite3.Connection, p: PlannedIndex, token: str, fp: str) -> int | None:
    """Write one large transcript in batches and publish it: rows written, or None when the
    claim was lost or the transcript changed meanwhile."""
    try:
        _rewrite(conn, p, token)
        with transaction(conn):
            check_claim(conn, p.transcript_id, token)
            return len(p.rows) if _publish(conn, p, fp) else None
    except ClaimLost:
        return None
    except Exception as exc:
        raise failed(p.transcript_id, p.revision, p.next_seq, exc) from exc


def _write_group(
    conn: sqlite3.Connection, plans: list[PlannedIndex], token: str, fp: str
) -> Written:
    """Write small transcripts in one transaction (one FTS5 segment for all) and publish
    each: rows written, None for those whose claim was lost or that changed."""
    out: Written = {p.transcript_id: None for p in plans}
    with transaction(conn):
        held_sql = "SELECT transcript_id FROM index_state WHERE claim_token = ?"
        held = {r[0] for r in conn.execute(held_sql, (token,))}
        mine = [p for p in plans if p.transcript_id in held]
        conn.executemany(
            "DELETE FROM index_rows WHERE transcript_id = ?", [(p.transcript_id,) for p in mine]
        )
        index_rows.insert_rows(conn, [r for p in mine for r in p.rows])
        for p in mine:
            if _publish(conn, p, fp):
                out[p.transcript_id] = len(p.rows)
    return out


def _write(
    conn: sqlite3.Connection,
    group: list[int],
    planned: list[PlannedIndex | IndexFailure | None],
    token: str,
    bad: Failures,
) -> Written:
    """Claim a planned group and write it. A transcript that failed is recorded; one that is
    gone counts as done (0); one held elsewhere, changed meanwhile, or in a group whose write
    failed is None: the caller retries it alone, so a failure lands on the one that has it."""
    out: Written = dict.fromkeys(group)
    plans: list[PlannedIndex] = []
    for tid, p in zip(group, planned, strict=True):
        if isinstance(p, IndexFailure):
            bad.add(p)
        elif p is None:
            out[tid] = 0
        else:
            plans.append(p)
    claimed = claim_many(conn, [p.transcript_id for p in plans], token)
    mine = [p for p in plans if p.transcript_id in claimed]
    fp = bad.redactor.fingerprint
    try:
        if len(group) == 1:  # a large transcript: its own batched transactions
            out.update({p.transcript_id: _write_one(conn, p, token, fp) for p in mine})
        else:
            out.update(_write_group(conn, mine, token, fp))
    except IndexFailure as f:
        bad.add(f)
    except BaseException as exc:
        release_all(conn, claimed, token)
        if not isinstance(exc, Exception) or is_store_failure(exc):
            raise
    return out


def _rebuild_alone(conn: sqlite3.Connection, tid: int, token: str, bad: Failures) -> int | None:
    """Claim, plan and write one transcript: rows written, or None when another reconciler
    holds it, it kept changing, or it failed (recorded)."""
    for _ in range(MAX_RETRIES):
        if not claim_many(conn, [tid], token):
            return None
        n = _write(conn, [tid], [plan_or_failure(conn, tid, bad.redactor)], token, bad)[tid]
        if n is not None or tid in bad.new:
            return n
    return None


def fill_branches(conn: sqlite3.Connection) -> int:
    """Store the active branch of transcripts whose stored copy is missing or behind (stores
    made before schema v3, appends that were not plain extensions); returns how many."""
    ids = [
        r[0]
        for r in conn.execute(
            "SELECT t.transcript_id FROM transcripts t LEFT JOIN branches b USING (transcript_id)"
            " WHERE b.transcript_id IS NULL OR b.revision != t.revision OR b.next_seq != t.next_seq"
        )
    ]
    for tid in ids:
        with transaction(conn):  # one short write transaction: the walk sees what it stores
            head = conn.execute(
                "SELECT revision, next_seq FROM transcripts WHERE transcript_id = ?", (tid,)
            ).fetchone()
            if head is not None:
                branches.store(conn, tid, head[0], head[1], branches.walk_transcript(conn, tid))
    return len(ids)


def sweep(conn: sqlite3.Connection) -> int:
    with transaction(conn):
        return conn.execute(
            "DELETE FROM index_rows WHERE transcript_id NOT IN (SELECT transcript_id FROM"
            " transcripts)"
        ).rowcount


def _groups(conn: sqlite3.Connection, ids: list[int]) -> tuple[list[list[int]], int]:
    """Consecutive transcripts of at most GROUP_EVENTS events together, larger ones alone;
    and the events they hold in all."""
    sizes = dict(conn.execute("SELECT transcript_id, next_seq FROM transcripts").fetchall())
    groups: list[list[int]] = []
    total = 0
    for tid in ids:
        size = sizes.get(tid, 0)
        large = size > GROUP_EVENTS // 4
        # `not groups`: the first one opens a group whatever its size (a zero-event
        # transcript, e.g. a generation upstream moved to cold storage, included).
        if not groups or large or total + size > GROUP_EVENTS:
            groups.append([])
            total = 0
        groups[-1].append(tid)
        total = GROUP_EVENTS if large else total + size  # nothing joins a large one
    return groups, sum(sizes.get(t, 0) for t in ids)


def adopt_pending(conn: sqlite3.Connection, fingerprint: str) -> None:
    """Keep the pending set against these rules (a store's first import, new rules, a new
    version), so `status` and search read it instead of evaluating staleness."""
    if not pending.kept_for(conn, fingerprint):
        with transaction(conn):
            pending.adopt(conn, fingerprint)


def reconcile(
    conn: sqlite3.Connection,
    agent_id: str,
    redactor: Redactor,
    *,
    full: bool = False,
    progress: Progress | None = None,
) -> ReindexReport:
    started = time.monotonic()
    adopt_pending(conn, redactor.fingerprint)  # new rules or a new version: the set follows
    if full:
        # Transcript by transcript: each is hidden from search only while it is claimed,
        # instead of every session at once until the whole rebuild is done.
        ids = [r[0] for r in conn.execute("SELECT transcript_id FROM transcripts ORDER BY 1")]
    else:
        ids = stale_ids(conn, redactor.fingerprint)
    token = new_token()
    groups, events = _groups(conn, ids)
    bad = Failures(conn, redactor, token)
    results: Written = {}
    workers = plan.workers_for(events, redactor)
    for group, planned in plan.planned_groups(conn, groups, redactor, workers):
        results.update(_write(conn, group, planned, token, bad))
        if progress:
            progress(len(results), len(ids))
    for tid in [t for t, n in results.items() if n is None and t not in bad.new]:
        results[tid] = _rebuild_alone(conn, tid, token, bad)  # held elsewhere, or changed
    written = [n for t, n in results.items() if n is not None and t not in bad.new]
    done, rows = len(written), sum(written)
    skipped = sum(1 for t, n in results.items() if n is None and t not in bad.new)
    # With foreign keys on, rows cannot outlive their transcript; the full scan for orphans
    # (files edited by hand, foreign keys off) is kept for --full.
    swept = sweep(conn) if full else 0
    fill_branches(conn)
    set_meta(conn, last_reconcile_at=str(now_ms()), redaction_fp=redactor.fingerprint)
    issues, known = bad.report()
    return ReindexReport(
        agent_id, done, rows, swept, skipped, time.monotonic() - started, issues, known
    )
