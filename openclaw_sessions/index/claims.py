"""Claims: which reconciler rebuilds a transcript.

Any number of reconcilers may run (cron, the background one a search starts, `search --wait`):
a lease-bearing token per transcript in `index_state` keeps them off each other's rows. A claim
whose process is gone (same host) or whose lease ran out is taken over. While a transcript is
claimed, search leaves its rows out (they are being replaced).
"""

from __future__ import annotations

import os
import sqlite3

from openclaw_sessions.store.db import now_ms, transaction

LEASE_MS = 5 * 60 * 1000
_HOST = os.uname().nodename  # no socket import: start-up time


class ClaimLost(Exception):
    """Another reconciler took the transcript (our lease ran out): stop writing to it."""


def new_token() -> str:
    """This run's claim token: its process and host, so a dead holder can be recognised."""
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


def claim_many(conn: sqlite3.Connection, tids: list[int], token: str) -> list[int]:
    """Claim what can be claimed of ``tids`` in one write transaction; returns those."""
    now = now_ms()
    with transaction(conn):
        return [t for t in tids if _claim_locked(conn, t, token, now)]


def check_claim(conn: sqlite3.Connection, tid: int, token: str) -> None:
    """Raise ClaimLost unless ``token`` still holds ``tid`` (inside the caller's transaction)."""
    row = conn.execute(
        "SELECT claim_token FROM index_state WHERE transcript_id = ?", (tid,)
    ).fetchone()
    if row is None or row[0] != token:
        raise ClaimLost(tid)


def release_all(conn: sqlite3.Connection, tids: list[int], token: str) -> None:
    """Give up our claims on ``tids``; they stay dirty for the next run."""
    with transaction(conn):
        conn.executemany(
            "UPDATE index_state SET claim_token = NULL, claim_expires = NULL, needs_rebuild = 1"
            " WHERE transcript_id = ? AND claim_token = ?",
            [(t, token) for t in tids],
        )
