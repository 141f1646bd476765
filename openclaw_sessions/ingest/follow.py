"""`import --reindex` on two cores: while this process stores transcripts, a forked follower
reconciles what the import has committed, agent by agent, and once more when it is done.

Import keeps one core busy (parse, compress, insert) and leaves the other idle; the
reconciliation plans on whatever it gets. Run one after the other they add up; run side by side
each takes a core: the follower plans in its own process while the import runs, and with the
planning pool (index/pool.py) for its last pass. It is an ordinary concurrent reconciler
(index/reconcile.py): it claims what it writes and publishes a transcript only if the import did
not change it meanwhile, so a transcript stored during a pass is picked up by the next one.

The follower is forked before any store is opened and talks to this process over a pipe: the
agents as their import starts, then None (done); it answers with one merged report per agent,
or the error that ended it. Interrupted, it releases its claims like any reconcile (this process
sends it SIGINT on the way out); it exits when this process goes away.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from openclaw_sessions import errors, settings
from openclaw_sessions.index.reindex import reindex_agent
from openclaw_sessions.policy.redact import Redactor
from openclaw_sessions.reports import ReindexReport
from openclaw_sessions.store.db import LOCKED

IDLE_WAIT = 0.25  # seconds a follower with nothing stale waits for news before looking again


def wanted(redactor: Redactor) -> bool:
    """Follow the import with a second process? Not on one CPU, without fork, or with
    OPENCLAW_SESSIONS_PLAN_WORKER=0 (no worker processes at all)."""
    return (
        isinstance(redactor, Redactor)
        and hasattr(os, "fork")
        and (os.cpu_count() or 1) > 1
        and settings.plan_workers() is not False
    )


class Follower:
    """This process's end of a running follower."""

    def __init__(self, conn: Connection, proc: Any) -> None:
        self._conn, self._proc = conn, proc
        self.reports: list[ReindexReport] = []

    def agent(self, agent_id: str) -> None:
        """The import starts storing this agent's transcripts."""
        self._conn.send(agent_id)

    def finish(self) -> list[ReindexReport]:
        """The import is done: wait for the last pass and take the reports (none when the
        follower died without a word: the caller reconciles here instead)."""
        try:
            self._conn.send(None)
            status, *payload = self._conn.recv()
        except (EOFError, BrokenPipeError):
            return []
        finally:
            self._proc.join()
        if status == "error":
            name, message, hint = payload
            kind = getattr(errors, name, None)
            if isinstance(kind, type) and issubclass(kind, errors.OpenClawError):
                raise kind(message, hint=hint)
            raise RuntimeError(f"the reconciliation that followed the import failed: {message}")
        self.reports = payload[0]
        return self.reports


@contextmanager
def following(root: Path, redactor: Redactor) -> Iterator[Follower]:
    """A follower for the length of the block; stopped (SIGINT, then waited for) if the block
    ends by an exception."""
    ctx = multiprocessing.get_context("fork")
    mine, theirs = ctx.Pipe()
    proc = ctx.Process(target=_main, args=(theirs, root, redactor, os.getpid()), daemon=True)
    proc.start()
    theirs.close()
    try:
        yield Follower(mine, proc)
    except BaseException:
        if proc.is_alive() and proc.pid is not None:
            os.kill(proc.pid, signal.SIGINT)
            proc.join(10)
        if proc.is_alive():
            proc.kill()
        raise
    finally:
        mine.close()


def _main(conn: Connection, root: Path, redactor: Redactor, parent: int) -> None:
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    try:
        conn.send(("ok", _follow(conn, root, redactor)))
    except (KeyboardInterrupt, SystemExit, EOFError, BrokenPipeError):
        pass  # interrupted, or this process's parent is gone: nobody to answer
    except errors.OpenClawError as exc:
        conn.send(("error", type(exc).__name__, exc.message, exc.hint))
    except Exception as exc:  # a bug: its text, for the parent to raise
        conn.send(("error", "", f"{type(exc).__name__}: {exc}", None))


def _watch_parent(parent: int) -> None:
    # Killed (kill -9), this process cannot tell the follower: it notices by polling, and
    # leaves like a killed reconciler (its transaction rolls back, its claims expire).
    while os.getppid() == parent:
        time.sleep(0.2)
    os._exit(0)


def _follow(conn: Connection, root: Path, redactor: Redactor) -> list[ReindexReport]:
    agents: list[str] = []
    merged: dict[str, ReindexReport] = {}
    done = False
    while not done:
        while conn.poll(0 if agents else None):
            msg = conn.recv()
            if msg is None:
                done = True
                break
            agents.append(msg)
        if done:
            break
        worked = False
        for agent in agents:  # the import holds one core: plan here, no pool
            try:
                r = reindex_agent(root, agent, redactor, workers=0)
            except errors.StoreError as exc:
                if not exc.message.startswith(LOCKED):
                    raise
                continue  # the import held the lock past the timeout: the next pass retries
            merged[agent] = _merge(merged.get(agent), r)
            worked = worked or r.sessions > 0
        if not worked:
            conn.poll(IDLE_WAIT)
    for agent in agents:  # the last pass, with both cores
        merged[agent] = _merge(merged.get(agent), reindex_agent(root, agent, redactor))
    return [merged[a] for a in agents]


def _merge(a: ReindexReport | None, b: ReindexReport) -> ReindexReport:
    """Passes of one agent as one report: counts added, failures of every pass, the last
    pass's view of what is skipped and of earlier failures (less those reported here)."""
    if a is None:
        return b
    failures = a.failures + b.failures
    return ReindexReport(
        b.agent_id,
        a.sessions + b.sessions,
        a.messages + b.messages,
        a.swept + b.swept,
        b.skipped,
        a.seconds + b.seconds,
        failures,
        max(0, b.known_failures - len(a.failures)),
    )
