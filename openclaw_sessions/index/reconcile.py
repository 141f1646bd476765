"""Reconciliation: find stale transcripts, plan outside the write lock, claim, rebuild in
short batched write transactions, publish only if nothing changed meanwhile, sweep orphans.

Concurrency: any number of reconcilers may run (cron + background); a lease-bearing claim per
transcript keeps them off each other's rows. A claim whose process is gone (same host) or whose
lease ran out is taken over.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from openclaw_sessions.policy import branch, transcript, wellformed
from openclaw_sessions.policy.branch import Branch
from openclaw_sessions.policy.redact import Redactor
from openclaw_sessions.reports import ReindexReport
from openclaw_sessions.store import branches
from openclaw_sessions.store.db import now_ms, transaction

from . import index_rows
from .failures import Failures, failed
from .stale import stale_ids

LEASE_MS = 5 * 60 * 1000
BATCH_ROWS = 1024
# Small transcripts are rebuilt together, up to this many events per write transaction.
GROUP_EVENTS = 4096
# From this many stale events on, a second process plans while this one writes.
WORKER_MIN_EVENTS = 50_000
MAX_RETRIES = 3
_HOST = os.uname().nodename  # no socket import: start-up time

Progress = Callable[[int, int], None]


class ClaimLost(Exception):
    """Another worker took the transcript (our lease ran out): stop writing to it."""


@dataclass
class Planned:
    transcript_id: int
    next_seq: int
    revision: int
    branch: Branch
    rows: list[index_rows.IndexRow]


_RAW_SQL = (
    "SELECT seq, raw FROM events WHERE transcript_id = ? AND type = 'message'"
    " AND role IN ('user', 'assistant') ORDER BY seq"
)


def plan(conn: sqlite3.Connection, tid: int, redactor: Redactor) -> Planned | None:
    """Read the transcript in one read transaction and compute its index rows."""
    with transaction(conn, write=False):
        head = conn.execute(
            "SELECT next_seq, revision FROM transcripts WHERE transcript_id = ?", (tid,)
        ).fetchone()
        if head is None:
            return None
        try:
            b = branch.walk_transcript(conn, tid)
            rows = _rows(conn, tid, b, redactor)
        except Exception as exc:
            raise failed(tid, head[1], head[0], exc) from exc
    return Planned(tid, head[0], head[1], b, rows)


def _rows(conn: sqlite3.Connection, tid: int, b: Branch, r: Redactor) -> list[index_rows.IndexRow]:
    active = {r.seq: r for r in b.rows if r.role in ("user", "assistant")}
    rows: list[index_rows.IndexRow] = []
    for seq, raw in conn.execute(_RAW_SQL, (tid,)) if active else ():
        if (m := active.get(seq)) is not None:
            e = transcript.Entry(seq, m.entry_id, None, 0, "message", m.role, m.ts)
            row = index_rows.make_row(tid, e, wellformed.loads(raw), r)
            if row is not None:
                rows.append(row)
    return rows


def _token() -> str:
    return f"{os.getpid()}@{_HOST}:{os.urandom(6).hex()}"


def _holder_alive(token: str) -> bool:
    pid_s, _, rest = token.partition("@")
    host = rest.split(":", 1)[0]
    if host != _HOST or not pid_s.isdigit():
        return True  # cannot tell: trust the lease
    try:
        os.kill(int(pid_s), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _claim_locked(conn: sqlite3.Connection, tid: int, token: str, now: int) -> bool:
    row = conn.execute(
        "SELECT claim_token, claim_expires FROM index_state WHERE transcript_id = ?", (tid,)
    ).fetchone()
    if row is None:
        if conn.execute("SELECT 1 FROM transcripts WHERE transcript_id = ?", (tid,)).fetchone():
            conn.execute(
                "INSERT INTO index_state (transcript_id, needs_rebuild, claim_token,"
                " claim_expires, updated_at) VALUES (?, 1, ?, ?, ?)",
                (tid, token, now + LEASE_MS, now),
            )
            return True
        return False
    held, expires = row
    if held and held != token and (expires or 0) > now and _holder_alive(held):
        return False
    conn.execute(
        "UPDATE index_state SET claim_token = ?, claim_expires = ?, updated_at = ?"
        " WHERE transcript_id = ?",
        (token, now + LEASE_MS, now, tid),
    )
    return True


def claim(conn: sqlite3.Connection, tid: int, token: str) -> bool:
    return bool(claim_many(conn, [tid], token))


def claim_many(conn: sqlite3.Connection, tids: list[int], token: str) -> list[int]:
    """Claim what can be claimed of ``tids`` in one write transaction; returns those."""
    now = now_ms()
    with transaction(conn):
        return [t for t in tids if _claim_locked(conn, t, token, now)]


def _check_claim(conn: sqlite3.Connection, tid: int, token: str) -> None:
    row = conn.execute(
        "SELECT claim_token FROM index_state WHERE transcript_id = ?", (tid,)
    ).fetchone()
    if row is None or row[0] != token:
        raise ClaimLost(tid)


def _rewrite(conn: sqlite3.Connection, p: Planned, token: str) -> None:
    """Replace the transcript's rows in short write transactions (readers never wait long)."""
    while True:
        with transaction(conn):
            _check_claim(conn, p.transcript_id, token)
            n = conn.execute(
                "DELETE FROM index_rows WHERE row_id IN (SELECT row_id FROM index_rows"
                " WHERE transcript_id = ? LIMIT ?)",
                (p.transcript_id, BATCH_ROWS * 4),
            ).rowcount
        if n < BATCH_ROWS * 4:
            break
    for start in range(0, len(p.rows), BATCH_ROWS):
        with transaction(conn):
            _check_claim(conn, p.transcript_id, token)
            index_rows.insert_rows(conn, p.rows[start : start + BATCH_ROWS])


def _publish(conn: sqlite3.Connection, p: Planned, token: str, fp: str) -> bool:
    """Make the rows visible, unless the transcript changed since it was planned."""
    with transaction(conn):
        _check_claim(conn, p.transcript_id, token)
        return _publish_locked(conn, p, fp)


def _publish_locked(conn: sqlite3.Connection, p: Planned, fp: str) -> bool:
    """The caller holds the write transaction and has checked the claim."""
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


def release(conn: sqlite3.Connection, tid: int, token: str) -> None:
    with transaction(conn):
        conn.execute(
            "UPDATE index_state SET claim_token = NULL, claim_expires = NULL, needs_rebuild = 1"
            " WHERE transcript_id = ? AND claim_token = ?",
            (tid, token),
        )


def rebuild_one(conn: sqlite3.Connection, tid: int, redactor: Redactor, token: str) -> int | None:
    """Rebuild one transcript; rows written, or None when another worker holds it."""
    for _ in range(MAX_RETRIES):
        if not claim(conn, tid, token):
            return None
        try:
            p = plan(conn, tid, redactor)
            if p is None:
                release(conn, tid, token)
                return 0
            n = write_one(conn, p, token, redactor.fingerprint)
            if n is not None:
                return n
        except BaseException:
            release(conn, tid, token)
            raise
    return None


def release_all(conn: sqlite3.Connection, tids: list[int], token: str) -> None:
    with transaction(conn):
        conn.executemany(
            "UPDATE index_state SET claim_token = NULL, claim_expires = NULL, needs_rebuild = 1"
            " WHERE transcript_id = ? AND claim_token = ?",
            [(t, token) for t in tids],
        )


def write_one(conn: sqlite3.Connection, p: Planned, token: str, fp: str) -> int | None:
    """Write one planned transcript in batches and publish it: rows written, or None when the
    claim was lost or the transcript changed meanwhile (the caller retries)."""
    try:
        _rewrite(conn, p, token)
        return len(p.rows) if _publish(conn, p, token, fp) else None
    except ClaimLost:
        return None
    except Exception as exc:
        raise failed(p.transcript_id, p.revision, p.next_seq, exc) from exc


def write_group(
    conn: sqlite3.Connection, plans: list[Planned], token: str, fp: str
) -> dict[int, int | None]:
    """Write small planned transcripts in one transaction (one FTS5 segment for all) and
    publish each: rows written, None for those whose claim was lost or that changed."""
    out: dict[int, int | None] = {p.transcript_id: None for p in plans}
    with transaction(conn):
        held = {
            r[0]
            for r in conn.execute(
                "SELECT transcript_id FROM index_state WHERE claim_token = ?", (token,)
            )
        }
        mine = [p for p in plans if p.transcript_id in held]
        conn.executemany(
            "DELETE FROM index_rows WHERE transcript_id = ?", [(p.transcript_id,) for p in mine]
        )
        index_rows.insert_rows(conn, [r for p in mine for r in p.rows])
        for p in mine:
            if _publish_locked(conn, p, fp):
                out[p.transcript_id] = len(p.rows)
    return out


def rebuild_group(
    conn: sqlite3.Connection, tids: list[int], redactor: Redactor, token: str
) -> dict[int, int | None]:
    """Rebuild small transcripts together: one claim transaction, one write transaction for
    all their rows. Returns rows written per transcript published; None for one another
    worker holds or that changed meanwhile (the caller retries those one by one)."""
    claimed = claim_many(conn, tids, token)
    out: dict[int, int | None] = dict.fromkeys(tids)
    try:
        plans = [p for t in claimed if (p := plan(conn, t, redactor)) is not None]
        gone = [t for t in claimed if t not in {p.transcript_id for p in plans}]
        if gone:
            release_all(conn, gone, token)
            out.update(dict.fromkeys(gone, 0))
        out.update(write_group(conn, plans, token, redactor.fingerprint))
    except BaseException:
        release_all(conn, claimed, token)
        raise
    return out


def fill_branches(conn: sqlite3.Connection) -> int:
    """Store the active branch of transcripts whose stored copy is missing or behind (stores
    made before schema v3, appends that were not plain extensions); returns how many."""
    ids = [r[0] for r in conn.execute(
        "SELECT t.transcript_id FROM transcripts t LEFT JOIN branches b USING (transcript_id)"
        " WHERE b.transcript_id IS NULL OR b.revision != t.revision OR b.next_seq != t.next_seq"
    )]  # fmt: skip
    for tid in ids:
        with transaction(conn):  # one short write transaction: the walk sees what it stores
            head = conn.execute(
                "SELECT revision, next_seq FROM transcripts WHERE transcript_id = ?", (tid,)
            ).fetchone()
            if head is not None:
                branches.store(conn, tid, head[0], head[1], branch.walk_transcript(conn, tid))
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
    total = GROUP_EVENTS
    for tid in ids:
        size = sizes.get(tid, 0)
        if total + size > GROUP_EVENTS or size > GROUP_EVENTS // 4:
            groups.append([])
            total = 0
        groups[-1].append(tid)
        total += size
    return groups, sum(sizes.get(t, 0) for t in ids)


def _use_worker(events: int, redactor: Redactor) -> bool:
    """Plan in a second process (planworker.py)? OPENCLAW_SESSIONS_PLAN_WORKER=0 never, =1
    always (tests); unset: for WORKER_MIN_EVENTS stale events or more, on more than one CPU.
    Only a real Redactor can be rebuilt in the other process."""
    env = os.environ.get("OPENCLAW_SESSIONS_PLAN_WORKER")
    if not isinstance(redactor, Redactor) or env == "0" or not hasattr(os, "fork"):
        return False
    return env == "1" or (events >= WORKER_MIN_EVENTS and (os.cpu_count() or 1) > 1)


def _db_path(conn: sqlite3.Connection) -> Path:
    return Path(next(r[2] for r in conn.execute("PRAGMA database_list") if r[1] == "main"))


def reconcile(
    conn: sqlite3.Connection,
    agent_id: str,
    redactor: Redactor,
    *,
    full: bool = False,
    progress: Progress | None = None,
) -> ReindexReport:
    started = time.monotonic()
    if full:
        # Transcript by transcript: each is hidden from search only while it is claimed,
        # instead of every session at once until the whole rebuild is done.
        ids = [r[0] for r in conn.execute("SELECT transcript_id FROM transcripts ORDER BY 1")]
    else:
        ids = stale_ids(conn, redactor.fingerprint)
    token = _token()
    groups, events = _groups(conn, ids)

    def tick(finished: int) -> None:
        if progress:
            progress(finished, len(ids))

    bad = Failures(conn, redactor, token)
    if _use_worker(events, redactor):
        from . import planworker

        results = planworker.run(conn, _db_path(conn), groups, redactor, token, tick, bad.add)
    else:
        results, finished = {}, 0
        for group in groups:
            if len(group) == 1:
                results[group[0]] = bad.one(rebuild_one, group[0], redactor, token)
            else:
                results.update(bad.group(rebuild_group, group, redactor, token))
            finished += len(group)
            tick(finished)
    for tid in [t for t, n in results.items() if n is None and t not in bad.new]:
        results[tid] = bad.one(rebuild_one, tid, redactor, token)  # held elsewhere, or changed
    written = [n for t, n in results.items() if n is not None and t not in bad.new]
    done, rows = len(written), sum(written)
    skipped = sum(1 for t, n in results.items() if n is None and t not in bad.new)
    # With foreign keys on, rows cannot outlive their transcript; the full scan for orphans
    # (files edited by hand, foreign keys off) is kept for --full.
    swept = sweep(conn) if full else 0
    fill_branches(conn)
    with transaction(conn):
        conn.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?)"
            " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [("last_reconcile_at", str(now_ms())), ("redaction_fp", redactor.fingerprint)],
        )
    issues, known = bad.report()
    return ReindexReport(agent_id, done, rows, swept, skipped, time.monotonic() - started,
                         issues, known)  # fmt: skip
