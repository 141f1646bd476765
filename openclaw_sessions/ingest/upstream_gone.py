"""Import's side of generations upstream no longer holds live (store/upstream_archived.py):
cold-stored ones, read from their archive (upstream_cold.py) instead of being rewritten to
nothing, and sessions deleted in OpenClaw (`sessions.delete`), marked so agents no longer see
them while the operator still can.

Everything is read-only on upstream's side; the marks are this store's.
"""

from __future__ import annotations

import sqlite3

from openclaw_sessions.redact import Redactor
from openclaw_sessions.reports import ImportReport, Issue
from openclaw_sessions.store import db, upstream_archived

from . import upstream_db
from .store_lines import import_lines
from .transcripts import Target, tally
from .upstream_cold import ColdArchiveError, ColdSource, decode, read_verified


def _tid(conn: sqlite3.Connection, source_name: str) -> int | None:
    row = conn.execute(
        "SELECT transcript_id FROM transcripts WHERE source_name = ?", (source_name,)
    ).fetchone()
    return None if row is None else int(row[0])


def _mark(conn: sqlite3.Connection, tid: int, state: str, name: str, at: int | None) -> bool:
    with db.transaction(conn):
        return upstream_archived.mark(conn, tid, state, name, at)


def cold(
    conn: sqlite3.Connection,
    udb: upstream_db.AgentDatabase,
    a: upstream_db.ColdArchive,
    t: Target,
    redactor: Redactor,
    r: ImportReport,
    dry_run: bool,
) -> None:
    """Import generation ``t`` from its cold archive ``a`` and mark it cold. An archive is
    named by its sha256: one already read under the same name is unchanged, not read again.
    One that cannot be read is reported (its code is upstream_cold's) and the stored copy, if
    any, is kept as it is."""
    where, key = str(t.path), t.session_key
    tid = _tid(conn, t.source_name)
    r.files += 1
    if tid is not None and _same(conn, tid, a.archive_name):
        r.unchanged += 1
        return
    try:
        blob = udb.cold_blob(a.session_id) if a.storage == "sqlite" else None
        events = decode(read_verified(udb.path, a, blob), a)
    except ColdArchiveError as exc:
        r.issues.append(Issue(exc.code, str(exc), where, None, key))
        if tid is not None and not dry_run:  # still cold upstream: agents' search leaves it out
            _mark(conn, tid, "cold", a.archive_name, a.archived_at)
        return
    except sqlite3.DatabaseError as exc:
        why = f"upstream database unreadable: {exc}"
        r.issues.append(Issue("upstream_unreadable", why, where, None, key))
        return
    src = ColdSource(events, udb.watermark(a.session_id), udb.counters)
    tally(r, t, import_lines(conn, t, src, redactor, dry_run=dry_run))
    tid = _tid(conn, t.source_name)
    if tid is not None and not dry_run:
        _mark(conn, tid, "cold", a.archive_name, a.archived_at)


def _same(conn: sqlite3.Connection, tid: int, archive_name: str) -> bool:
    row = conn.execute(
        "SELECT state, archive_name FROM upstream_archived WHERE transcript_id = ?", (tid,)
    ).fetchone()
    return row is not None and tuple(row) == ("cold", archive_name)


def restored(conn: sqlite3.Connection, source_name: str, dry_run: bool) -> None:
    """A generation whose rows are back in transcript_events is live again (OpenClaw restored
    it, or a session deleted there came back): its mark goes."""
    tid = _tid(conn, source_name)
    if tid is not None and not dry_run and upstream_archived.state_of(conn, tid) is not None:
        with db.transaction(conn):
            upstream_archived.clear(conn, tid)


def deleted(
    conn: sqlite3.Connection,
    live: set[str],
    archives: list[upstream_db.Archive],
    r: ImportReport,
    dry_run: bool,
) -> set[str]:
    """Mark the stored generations OpenClaw deleted since (no longer in the database, kept in
    its session_transcript_archives with reason `deleted`); reported once, when first seen.
    Returns the session ids of the deleted archives that are such a stored generation (their
    archive is that transcript: it is not imported again under its own name)."""
    out: set[str] = set()
    for a in archives:
        if a.reason != "deleted" or a.session_id in live:
            continue
        tid = _tid(conn, f"upstream:{a.session_id}")
        if tid is None:
            continue
        out.add(a.session_id)
        if dry_run or not _mark(conn, tid, "deleted", a.name, a.created_at):
            continue
        why = (
            "deleted in OpenClaw (sessions.delete): agents no longer see this session"
            " (search, history: not found); the operator still reads it, labelled deleted"
        )
        r.issues.append(Issue("session_deleted_upstream", why, a.name, None, a.session_key))
    return out


def deleted_archive(conn: sqlite3.Connection, a: upstream_db.Archive, dry_run: bool) -> None:
    """A deleted archive imported on its own (`--include-archives`): agents do not see it."""
    tid = _tid(conn, a.name)
    if tid is not None and not dry_run:
        _mark(conn, tid, "deleted", a.name, a.created_at)
