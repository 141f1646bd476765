"""Planning in a second process, for large reconciles.

Planning (read the events, walk the tree, parse each message's JSON, extract, redact, CJK
bigrams) is Python and holds the GIL: a writer thread gained nothing (measured: CPU time equal
to wall time). Here a forked process plans the next groups while this one writes; when the
child has not finished the group this one needs next, this one plans and writes another group
itself instead of waiting (planning costs more than writing: waiting left a core idle). Claims,
writes and publishing stay in this process, in reconcile.py's own transactions; the child only
reads, through its own read-only connection (it never touches the parent's). The child ignores
Ctrl-C: the parent handles it and releases what it claimed. If the parent dies (kill -9), the
child notices within 0.2 s and exits.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path

from openclaw_sessions.policy.redact import Redactor, build_redactor
from openclaw_sessions.store import db
from openclaw_sessions.store.db import is_store_failure

from .failures import IndexFailure
from .reconcile import Planned, claim_many, plan, release_all, write_group, write_one

Results = dict[int, int | None]
QUEUED = 3  # groups handed to the child ahead of its progress
_conn: sqlite3.Connection | None = None
_redactor: Redactor | None = None


def _watch_parent(parent: int) -> None:
    # The work queue's write end is inherited too, so the parent's death alone would leave
    # this process blocked on it forever: poll for it instead.
    while os.getppid() == parent:
        time.sleep(0.2)
    os._exit(0)


def _init(path: str, patterns: tuple[str, ...], fingerprint: str, parent: int) -> None:
    global _conn, _redactor
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    _conn = db.connect(Path(path), readonly=True)
    _redactor = build_redactor(patterns)
    if _redactor.fingerprint != fingerprint:  # same rules, or the index would mix them
        raise RuntimeError("redaction rules differ between reconcile processes")


def _plan_or_failure(
    conn: sqlite3.Connection, tid: int, r: Redactor
) -> Planned | IndexFailure | None:
    try:
        return plan(conn, tid, r)
    except IndexFailure as f:  # that transcript's problem: returned, not raised
        return f


def _plan_many(tids: list[int]) -> list[Planned | IndexFailure | None]:
    assert _conn is not None and _redactor is not None
    return [_plan_or_failure(_conn, t, _redactor) for t in tids]


def run(
    conn: sqlite3.Connection,
    path: Path,
    groups: list[list[int]],
    redactor: Redactor,
    token: str,
    progress: Callable[[int], None],
    failure: Callable[[IndexFailure], None],
) -> Results:
    """Rows written per transcript; None for one held elsewhere, changed meanwhile (the
    caller retries those one by one) or failed (handed to ``failure``, which releases it).
    ``progress`` gets the number of transcripts done."""
    results: Results = {}
    pending: deque[tuple[list[int], list[int], Future[list[Planned | IndexFailure | None]]]]
    pending = deque()
    fp = redactor.fingerprint
    ctx = multiprocessing.get_context("fork")
    pool = ProcessPoolExecutor(
        1,
        mp_context=ctx,
        initializer=_init,
        initargs=(str(path), redactor.patterns, fp, os.getpid()),
    )

    def submit(group: list[int]) -> None:
        claimed = claim_many(conn, group, token)
        results.update(dict.fromkeys(group))  # None until written: held elsewhere
        pending.append((group, claimed, pool.submit(_plan_many, claimed)))

    def write(
        group: list[int], claimed: list[int], planned: list[Planned | IndexFailure | None]
    ) -> None:
        gone = [t for t, p in zip(claimed, planned, strict=True) if p is None]
        if gone:
            release_all(conn, gone, token)
            results.update(dict.fromkeys(gone, 0))
        for f in planned:
            if isinstance(f, IndexFailure):
                failure(f)
        plans = [p for p in planned if isinstance(p, Planned)]
        try:
            if len(group) == 1:  # a large transcript: its own batched transactions
                results.update({p.transcript_id: write_one(conn, p, token, fp) for p in plans})
            else:
                results.update(write_group(conn, plans, token, fp))
        except IndexFailure as f:
            failure(f)
        except Exception as exc:  # one of the group: retried alone by the caller
            if is_store_failure(exc):
                raise
            release_all(conn, [p.transcript_id for p in plans], token)

    finished = 0
    current: list[int] = []
    try:
        for group in groups[:QUEUED]:  # the child always has work queued
            submit(group)
        upcoming = iter(groups[QUEUED:])
        while pending:
            if not pending[0][2].done() and (mine := next(upcoming, None)) is not None:
                # The child is still planning: plan and write a group here rather than wait
                # (planning costs more than writing, so waiting left this core idle).
                current = claim_many(conn, mine, token)
                results.update(dict.fromkeys(mine))
                write(mine, current, [_plan_or_failure(conn, t, redactor) for t in current])
                current = []
                finished += len(mine)
                progress(finished)
                continue
            group, current, fut = pending.popleft()
            write(group, current, fut.result())
            current = []
            nxt = next(upcoming, None)
            if nxt is not None:
                submit(nxt)
            finished += len(group)
            progress(finished)
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)
        claimed = current + [t for _g, c, _f in pending for t in c]
        if claimed:
            release_all(conn, claimed, token)
        raise
    finally:
        pool.shutdown(wait=True)
    return results
