"""Staleness, defined once, and the pending set that answers "is anything stale?" in O(1).

`stale_where` is the one definition of a stale transcript; what it means, for every reader:

Fresh: a transcript's rows are searchable while its index state is clean, unclaimed (a claimed
one is being rewritten) and built under the current redaction rules; appended lines not yet
indexed do not hide the rows already there. Failed: its planning or writing raised, and it is
still as it was then (same revision and lines, same rules and code): reported, not retried.
Stale: never indexed, not fresh, or its index behind its lines; and not failed.

It depends on the redaction fingerprint and on the failure key (the fingerprint and the tool
version): a reader passes its own as parameters. The pending set (table `index_pending`) holds
exactly the transcripts that definition selects under the pair recorded in `meta`
(`pending_fp`, `pending_failure_key`): triggers refresh a transcript's row in every write
transaction that changes an input of the definition (its transcript row, its index state, its
failure), and `adopt` (import and the reconciler, with their own pair) records a new pair and
refills the set once when the rules or the tool changed. A reader whose pair is the recorded one
reads the set (and the counters `pending` and `dirty` its triggers keep); any other reader
evaluates the definition itself.
"""

from __future__ import annotations

import sqlite3
from typing import NamedTuple

from openclaw_sessions import __version__

from .counts import bump, trigger


def failure_key(fingerprint: str) -> str:
    """What a failure is remembered against besides the transcript: the rules and the code."""
    return f"{fingerprint}/{__version__}"


def fresh(fp: str = "?") -> str:
    """The condition on index_state ``s`` under which a transcript's rows are searchable;
    ``fp`` is the SQL expression of the redaction fingerprint."""
    return f"s.needs_rebuild = 0 AND s.claim_token IS NULL AND s.redaction_fp IS {fp}"


class Failure(NamedTuple):
    transcript_id: int
    session_key: str
    session_id: str
    path: str
    error: str
    failed_at: int


def current_failures(conn: sqlite3.Connection, fingerprint: str) -> list[Failure]:
    """Transcripts whose indexing failed as they are now (not retried until they change).
    CROSS JOIN: SQLite's planner would scan every transcript to skip a sort of the few."""
    rows = conn.execute(
        "SELECT t.transcript_id, t.session_key, t.session_id, t.source_path, f.error,"
        " f.failed_at"
        " FROM index_failures f CROSS JOIN transcripts t ON t.transcript_id = f.transcript_id"
        " WHERE f.revision = t.revision AND f.next_seq = t.next_seq AND f.fingerprint = ?"
        " ORDER BY t.session_key, t.transcript_id",
        (failure_key(fingerprint),),
    ).fetchall()
    return [Failure(*r) for r in rows]


def current_failure(key: str) -> str:
    """A failure of transcript t as it is now (same revision and lines) under failure key
    ``key`` (an SQL expression)."""
    return (
        "SELECT 1 FROM index_failures f WHERE f.transcript_id = t.transcript_id"
        f" AND f.revision = t.revision AND f.next_seq = t.next_seq AND f.fingerprint = {key}"
    )


FROM = "transcripts t LEFT JOIN index_state s ON s.transcript_id = t.transcript_id"


def stale_where(fp: str = "?1", key: str = "?2") -> str:
    """THE definition: transcript t (and s, its index state, LEFT JOINed as in FROM) is stale
    under fingerprint ``fp`` and failure key ``key`` (SQL expressions; by default the
    parameters that ``params`` gives)."""
    return (
        f"(s.transcript_id IS NULL OR NOT ({fresh(fp)}) OR s.indexed_seq < t.next_seq - 1)"
        f" AND NOT EXISTS ({current_failure(key)})"
    )


def params(fingerprint: str) -> tuple[str, str]:
    """The parameters of ``stale_where()``."""
    return fingerprint, failure_key(fingerprint)


_REF_FP = "(SELECT value FROM meta WHERE key = 'pending_fp')"
_REF_KEY = "(SELECT value FROM meta WHERE key = 'pending_failure_key')"
# A pending row: the transcript, whether it is marked for a rebuild, since when it waits.
_ROW = "t.transcript_id, coalesce(s.needs_rebuild != 0, 0), coalesce(s.updated_at, t.imported_at)"
FILL = (
    f"INSERT INTO index_pending (transcript_id, dirty, since) SELECT {_ROW} FROM {FROM}"
    f" WHERE {stale_where(_REF_FP, _REF_KEY)}"
)

TABLE = """CREATE TABLE index_pending (
    transcript_id INTEGER PRIMARY KEY,
    dirty         INTEGER NOT NULL,
    since         INTEGER NOT NULL
)"""
INDEX = "CREATE INDEX index_pending_by_since ON index_pending(since)"


def _refresh(tid: str) -> list[str]:
    return [
        f"DELETE FROM index_pending WHERE transcript_id = {tid};",
        f"{FILL} AND t.transcript_id = {tid};",
    ]


def triggers() -> list[str]:
    """Every input of the definition, watched: a transcript's row (revision, next_seq), its
    index state, its failure; and the counters of the set itself."""
    watched = [
        ("transcripts_ai", "AFTER INSERT ON transcripts", "NEW"),
        ("transcripts_au", "AFTER UPDATE OF revision, next_seq ON transcripts", "NEW"),
    ]
    for table, short in (("index_state", "state"), ("index_failures", "failures")):
        watched += [
            (f"{short}_ai", f"AFTER INSERT ON {table}", "NEW"),
            (f"{short}_au", f"AFTER UPDATE ON {table}", "NEW"),
            (f"{short}_ad", f"AFTER DELETE ON {table}", "OLD"),
        ]
    out = [trigger(f"pending_{n}", on, _refresh(f"{row}.transcript_id")) for n, on, row in watched]
    gone = ["DELETE FROM index_pending WHERE transcript_id = OLD.transcript_id;"]
    return [
        *out,
        trigger("pending_transcripts_ad", "AFTER DELETE ON transcripts", gone),
        trigger(
            "pending_counts_ai",
            "AFTER INSERT ON index_pending",
            [bump("'pending'", "1"), bump("'dirty'", "NEW.dirty")],
        ),
        trigger(
            "pending_counts_ad",
            "AFTER DELETE ON index_pending",
            [bump("'pending'", "-1"), bump("'dirty'", "-OLD.dirty")],
        ),
    ]


def reference(conn: sqlite3.Connection) -> tuple[str | None, str | None]:
    """The (fingerprint, failure key) the pending set is kept against."""
    got = dict(
        conn.execute(
            "SELECT key, value FROM meta WHERE key IN ('pending_fp', 'pending_failure_key')"
        ).fetchall()
    )
    return got.get("pending_fp"), got.get("pending_failure_key")


def kept_for(conn: sqlite3.Connection, fingerprint: str) -> bool:
    """Is the pending set the stale set of a reader with this fingerprint (and this code)?"""
    return reference(conn) == params(fingerprint)


def adopt(conn: sqlite3.Connection, fingerprint: str) -> bool:
    """Keep the pending set against this fingerprint and this code, refilling it when that
    is a change (inside the caller's write transaction); True when it was one."""
    if kept_for(conn, fingerprint):
        return False
    conn.executemany(
        "INSERT INTO meta (key, value) VALUES (?, ?)"
        " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        list(zip(("pending_fp", "pending_failure_key"), params(fingerprint), strict=True)),
    )
    conn.execute("DELETE FROM index_pending")
    conn.execute(FILL)
    return True


class Pending(NamedTuple):
    """The stale transcripts of a store, in figures."""

    sessions: int
    dirty: int  # of them, marked for a rebuild (rewritten, rules changed, not an extension)
    oldest: int | None  # epoch ms: since when the longest-waiting one waits


def any_stale(conn: sqlite3.Connection, fingerprint: str) -> bool:
    """Is anything stale for a reader with this fingerprint? O(1) when the set is kept for
    it; else the definition, stopped at the first stale transcript."""
    if kept_for(conn, fingerprint):
        return conn.execute("SELECT 1 FROM index_pending LIMIT 1").fetchone() is not None
    sql = f"SELECT 1 FROM {FROM} WHERE {stale_where()} LIMIT 1"
    return conn.execute(sql, params(fingerprint)).fetchone() is not None


def figures(conn: sqlite3.Connection, fingerprint: str) -> Pending:
    """How many transcripts are stale for this fingerprint, how many dirty, the oldest."""
    if kept_for(conn, fingerprint):
        got = dict(conn.execute("SELECT name, n FROM counts WHERE name IN ('pending', 'dirty')"))
        oldest = conn.execute("SELECT min(since) FROM index_pending").fetchone()[0]
        return Pending(int(got.get("pending", 0)), int(got.get("dirty", 0)), oldest)
    row = conn.execute(
        "SELECT count(*), sum(s.needs_rebuild != 0), min(coalesce(s.updated_at, t.imported_at))"
        f" FROM {FROM} WHERE {stale_where()}",
        params(fingerprint),
    ).fetchone()
    return Pending(int(row[0]), int(row[1] or 0), row[2])


def stale_ids(conn: sqlite3.Connection, fingerprint: str) -> list[int]:
    """The stale transcripts, by id: the set when it is kept for this fingerprint."""
    if kept_for(conn, fingerprint):
        rows = conn.execute("SELECT transcript_id FROM index_pending ORDER BY 1").fetchall()
    else:
        rows = conn.execute(
            f"SELECT t.transcript_id FROM {FROM} WHERE {stale_where()} ORDER BY 1",
            params(fingerprint),
        ).fetchall()
    return [r[0] for r in rows]
