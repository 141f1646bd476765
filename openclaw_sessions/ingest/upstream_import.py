"""`import` of upstream agent databases (openclaw-agent.sqlite): their session entries, each
generation's transcript rows and their archived transcripts, into the agent's store; read
strictly read-only (upstream_db.py), each transcript in its own transaction as files are."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from openclaw_sessions.policy import keys
from openclaw_sessions.redact import Redactor
from openclaw_sessions.reports import ImportReport, Issue
from openclaw_sessions.store import db, sessions, tombstones

from . import discover, line_sources, upstream_db, upstream_open
from .store_lines import import_lines
from .transcripts import Target, tally


def import_databases(
    conn: sqlite3.Connection,
    planned: list[upstream_open.UpstreamSource],
    redactor: Redactor,
    report: ImportReport,
    dry_run: bool,
    include_archives: bool,
) -> None:
    """Import the databases planned for the agent whose store `conn` is."""
    for p in planned:
        try:
            _database(conn, p, redactor, report, dry_run, include_archives)
        finally:
            report.upstream_rows_read += p.db.counters.rows_read
            report.upstream_rows_checked += p.db.counters.rows_checked
            p.db.close()


def _database(
    conn: sqlite3.Connection,
    p: upstream_open.UpstreamSource,
    redactor: Redactor,
    r: ImportReport,
    dry_run: bool,
    include_archives: bool,
) -> None:
    udb = p.db
    r.upstream_databases += 1
    if udb.layout is None:
        return
    nodes = udb.nodes()
    gone = tombstones.load(conn).keys  # deleted keys keep no store entry
    if not dry_run and nodes:
        with db.transaction(conn):
            sessions.upsert_sessions(conn, (n for n in nodes if n[0] not in gone))
    r.sessions += len(nodes)
    for g in p.generations:
        name = f"upstream:{g.session_id}"
        if not g.has_rows and not _stored(conn, name):
            continue  # a window with nothing written yet
        key = g.session_key or keys.orphan_key(p.agent_id, g.session_id)
        if g.session_key is None:
            why = f"no session references these rows: imported as {key}"
            r.issues.append(
                Issue("transcript_unreferenced", why, f"{udb.path}#{g.session_id}", None, key)
            )
        t = Target(
            Path(f"{udb.path}#{g.session_id}"),
            name,
            key,
            g.session_id,
            "current" if g.current else "reset",
            _stamp(g.ended_at),
        )
        r.files += 1
        try:
            src = udb.events(g.session_id)
            try:
                tally(r, t, import_lines(conn, t, src, redactor, dry_run=dry_run))
            finally:
                src.close()
        except line_sources.UpstreamUnreadable as exc:  # this transcript's problem only
            r.issues.append(Issue("upstream_unreadable", str(exc), str(t.path), None, key))
    try:
        archives = udb.archives()
    except sqlite3.DatabaseError as exc:
        why = f"upstream database unreadable: {exc}"
        r.issues.append(Issue("upstream_unreadable", why, str(udb.path)))
        return
    for a in archives:
        _archive(conn, udb, a, redactor, r, dry_run, include_archives)


def _archive(
    conn: sqlite3.Connection,
    udb: upstream_db.AgentDatabase,
    a: upstream_db.Archive,
    redactor: Redactor,
    r: ImportReport,
    dry_run: bool,
    include_archives: bool,
) -> None:
    kind = discover.classify(a.name)
    where = Path(f"{udb.path}#{a.name}@{a.sha256[:16]}")
    if kind.kind not in ("reset", "deleted") or (kind.kind == "deleted" and not include_archives):
        r.skipped += 1
        why = f"{a.reason} archive skipped (use --include-archives to import it)"
        r.issues.append(Issue(f"{a.reason}_skipped", why, str(where)))
        return
    row = conn.execute(
        "SELECT source_path FROM transcripts WHERE source_name = ?", (a.name,)
    ).fetchone()
    if row and row[0] == str(where):
        r.files += 1
        r.unchanged += 1  # archives are write-once: same name, same sha256, already stored
        return
    try:
        blob, encoding = udb.archive_blob(a.name)
    except sqlite3.DatabaseError as exc:
        why = f"upstream database unreadable: {exc}"
        r.issues.append(Issue("upstream_unreadable", why, str(where), None, a.session_key))
        return
    t = Target(where, a.name, a.session_key, a.session_id, kind.kind, kind.archived_at)
    src = line_sources.FileSource(
        where, opener=lambda _p: line_sources.open_blob(blob, encoding == "zstd")
    )
    r.files += 1
    try:
        tally(r, t, import_lines(conn, t, src, redactor, dry_run=dry_run))
    except OSError as exc:
        r.issues.append(
            Issue("transcript_unreadable", f"cannot read: {exc}", str(where), None, a.session_key)
        )
    finally:
        src.close()


def _stored(conn: sqlite3.Connection, name: str) -> bool:
    row = conn.execute("SELECT 1 FROM transcripts WHERE source_name = ?", (name,)).fetchone()
    return row is not None


def _stamp(ms: int | None) -> str | None:
    """Epoch ms → upstream's archive stamp (ISO with '-' for ':'), for older generations."""
    if not isinstance(ms, int) or isinstance(ms, bool):
        return None
    try:
        dt = datetime.fromtimestamp(ms / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return dt.isoformat(timespec="milliseconds").replace("+00:00", "Z").replace(":", "-")
