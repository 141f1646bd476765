"""Planning a transcript's index: everything a rebuild computes before it writes, in this
process or, for large reconciles, in a pool of them.

Read the transcript's events in one read transaction, walk its tree to the active branch, and
build an index row (extracted, redacted text and its CJK bigrams) for each user and assistant
message on it. No claim is needed: the write that follows claims the transcript, and its
publish checks that the transcript is still the one planned (revision and next_seq).

Planning is Python and holds the GIL, and costs about three times the writing. A
`concurrent.futures` process pool plans groups of transcripts, a few groups ahead, while this
process claims, writes and publishes them in order (reconcile.py), so the writes stay in one
process and in short transactions. A worker only reads, through its own read-only connection,
and hands back each transcript's plan or its failure (that transcript's problem, recorded here).
Workers ignore Ctrl-C (this process handles it and releases its claims) and exit within 0.2 s
when this process dies (kill -9 included).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import NamedTuple

from openclaw_sessions import settings
from openclaw_sessions.model import transcript, wellformed
from openclaw_sessions.model.branch import Branch
from openclaw_sessions.redact import Redactor, build_redactor
from openclaw_sessions.store import branches, db, rawcodec
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


MIN_EVENTS = 50_000  # from this many stale events on, planning uses the pool
AHEAD = 2  # groups queued per worker beyond the one it plans
Planned = list[PlannedIndex | IndexFailure | None]  # per transcript of a group, in order
_conn: sqlite3.Connection | None = None  # a worker's own connection and redactor
_redactor: Redactor | None = None


def workers_for(events: int, redactor: Redactor) -> int:
    """How many planning processes (0: plan in this one). OPENCLAW_SESSIONS_PLAN_WORKER=0
    never uses them, =1 always (tests); unset: from MIN_EVENTS stale events on, with more than
    one CPU. Only a real Redactor can be rebuilt in a worker."""
    choice = settings.plan_workers()
    cpus = os.cpu_count() or 1
    if not isinstance(redactor, Redactor) or choice is False or not hasattr(os, "fork"):
        return 0
    if choice is True:
        return max(cpus, 2)
    return cpus if events >= MIN_EVENTS and cpus > 1 else 0


def planned_groups(
    conn: sqlite3.Connection, groups: list[list[int]], redactor: Redactor, workers: int
) -> Iterator[tuple[list[int], Planned]]:
    """Each group with its transcripts' plans, in order: planned by ``workers`` processes, or
    here when there are none."""
    if not workers:
        for group in groups:
            yield group, [plan_or_failure(conn, t, redactor) for t in group]
        return
    # A fork next to an open SQLite connection is safe here: the workers are forked (all at
    # the first submit, from this thread) while this process's connection holds no
    # transaction, they open their own connections and never touch the inherited one, and
    # they end with os._exit, so it is never closed in them either.
    assert not conn.in_transaction
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("fork"),
        initializer=_init,
        initargs=(str(db.path_of(conn)), redactor.args, redactor.fingerprint, os.getpid()),
    )
    queued: deque[tuple[list[int], Future[Planned]]] = deque()
    upcoming = iter(groups)
    try:
        with _sigint_held():  # a Ctrl-C now reaches the workers only once they ignore it
            for group in upcoming:
                queued.append((group, pool.submit(_plan_group, group)))
                if len(queued) == workers * (1 + AHEAD):
                    break
        while queued:
            group, future = queued.popleft()
            if (nxt := next(upcoming, None)) is not None:
                queued.append((nxt, pool.submit(_plan_group, nxt)))
            yield group, future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


class _sigint_held:
    """SIGINT blocked in this thread (and so in the processes forked meanwhile)."""

    def __enter__(self) -> None:
        self._old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})

    def __exit__(self, *exc: object) -> None:
        signal.pthread_sigmask(signal.SIG_SETMASK, self._old)


def _init(
    path: str, args: tuple[tuple[str, ...], tuple[str, ...]], fingerprint: str, parent: int
) -> None:
    global _conn, _redactor
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    _conn = db.connect(Path(path), readonly=True)
    _redactor = build_redactor(*args)
    if _redactor.fingerprint != fingerprint:  # same rules, or the index would mix them
        raise RuntimeError("redaction rules differ between reconcile processes")


def _watch_parent(parent: int) -> None:
    # The pool's work queue is never closed under a worker whose parent died (the worker
    # holds both of its ends), so the parent's death is noticed by polling instead.
    while os.getppid() == parent:
        time.sleep(0.2)
    os._exit(0)


def _plan_group(tids: list[int]) -> Planned:
    assert _conn is not None and _redactor is not None
    return [plan_or_failure(_conn, t, _redactor) for t in tids]
