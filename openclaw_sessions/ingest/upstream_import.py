"""`import` of upstream agent databases (openclaw-agent.sqlite): their session entries, each
generation's transcript rows and their archived transcripts, into the agent's store; read
strictly read-only (upstream_db.py), each transcript in its own transaction as files are.

Every database among the sources is opened and checked before anything is written: one that
cannot be read (half-written, an unknown layout) is reported (`upstream_unreadable`, exit 4)
and everything else is imported. A session present both as a JSONL file and in a database is
taken from the database, as upstream does (the file is a pre-migration leftover): the file is
skipped with a notice."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

from openclaw_sessions.errors import UsageError
from openclaw_sessions.policy import keys
from openclaw_sessions.redact import Redactor
from openclaw_sessions.reports import ImportReport, Issue
from openclaw_sessions.store import db, paths, sessions, tombstones

from . import discover, line_sources, upstream_db, upstream_gone
from .store_lines import import_lines
from .transcripts import Target, tally

_SUPERSEDED_KINDS = {"current", "reset", "orphan"}


class UpstreamSource(NamedTuple):
    """An upstream agent database to import, open, and the agent its transcripts go to."""

    agent_id: str
    db: upstream_db.AgentDatabase
    generations: list[upstream_db.Generation]


def _owner(path: Path) -> str | None:
    """The agent of `<root>/agents/<id>/agent/openclaw-agent.sqlite`, else None."""
    if path.parent.name != "agent" or path.parent.parent.parent.name != "agents":
        return None
    try:
        return paths.check_agent_id(path.parent.parent.name.lower())
    except UsageError:
        return None


def _agent_of(path: Path, db: upstream_db.AgentDatabase, default: str) -> str:
    if owner := _owner(path):
        return owner
    hint = db.agent_hint()
    try:
        return paths.check_agent_id(hint) if hint else default
    except Exception:
        return default


def open_databases(
    found: list[discover.Found], agent: str, report: ImportReport, only: str | None = None
) -> list[UpstreamSource]:
    """Open and check every upstream database ``found`` (the sources' walk: targets.plan; of
    agent ``only`` when set); nothing is written yet."""
    out: list[UpstreamSource] = []
    seen: set[Path] = set()
    try:
        for f in found:
            if f.kind != "database" or f.path is None:
                continue
            agent_id, path = f.agent, f.path
            if path.resolve() in seen or (agent_id and only is not None and agent_id != only):
                continue  # another agent's database is not even opened
            seen.add(path.resolve())
            opened = _open_one(path, agent_id, agent, only, report)
            if opened is not None:
                out.append(opened)
    except BaseException:
        for p in out:
            p.db.close()
        raise
    for p in out:
        _notices(p, report)
    return out


def _open_one(
    path: Path, agent_id: str | None, agent: str, only: str | None, report: ImportReport
) -> UpstreamSource | None:
    """The database opened and its generations listed; a file that cannot be read as an
    upstream agent database (half-written, a newer layout) is its own reported problem
    (``upstream_unreadable``): the other agents and sources are imported."""
    udb = None
    try:
        udb = upstream_db.AgentDatabase.open(path)
        owner = agent_id or _agent_of(path, udb, agent)
        if only is None or owner == only:
            opened = UpstreamSource(owner, udb, udb.generations())
            udb = None  # the caller closes it now
            return opened
    except (UsageError, sqlite3.DatabaseError) as exc:
        if isinstance(exc, sqlite3.DatabaseError) and "lock" in str(exc).lower():
            raise db.translate(exc, path) from None  # exit 3: held past the busy timeout
        why = getattr(exc, "message", f"{path} is not a readable SQLite database: {exc}")
        report.issues.append(Issue("upstream_unreadable", why, str(path)))
    finally:
        if udb is not None:
            udb.close()
    return None


def _notices(p: UpstreamSource, report: ImportReport) -> None:
    layout, path = p.db.layout, str(p.db.path)
    if layout is None:
        why = "upstream agent database holds no transcripts yet (they are still JSONL files)"
        report.issues.append(Issue("upstream_no_transcripts", why, path))
    elif layout.version > upstream_db.KNOWN_VERSION:
        known = upstream_db.KNOWN_VERSION
        why = f"user_version {layout.version} is newer than {known}; read by tables"
        report.issues.append(Issue("upstream_schema_newer", why, path))


def merge(
    plan_: list[tuple[str, list[Target]]], ups: list[UpstreamSource], report: ImportReport
) -> list[tuple[str, list[Target]]]:
    """Add agents that only have a database (an unreadable one too: its agent's store then
    remembers the problem, as for any other); drop JSONL twins of database sessions."""
    by_agent = dict(plan_)
    for p in ups:
        by_agent.setdefault(p.agent_id, [])
    for i in report.issues:
        if i.code == "upstream_unreadable" and (owner := _owner(Path(i.path or ""))):
            by_agent.setdefault(owner, [])
    for agent_id, targets in by_agent.items():
        ids = {g.session_id for p in ups if p.agent_id == agent_id for g in p.generations}
        if not ids:
            continue
        kept = []
        for t in targets:
            if t.kind in _SUPERSEDED_KINDS and t.session_id in ids:
                report.skipped += 1
                why = "the upstream database holds this session: imported from there"
                report.issues.append(
                    Issue("transcript_superseded", why, str(t.path), None, t.session_key)
                )
            else:
                kept.append(t)
        by_agent[agent_id] = kept
    return sorted(by_agent.items())


def import_databases(
    conn: sqlite3.Connection,
    planned: list[UpstreamSource],
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
    p: UpstreamSource,
    redactor: Redactor,
    r: ImportReport,
    dry_run: bool,
    include_archives: bool,
) -> None:
    udb = p.db
    r.upstream_databases += 1
    if udb.layout is None:
        return
    nodes = udb.nodes
    gone = tombstones.load(conn).keys  # deleted keys keep no store entry
    if not dry_run and nodes:
        with db.transaction(conn):
            sessions.upsert_sessions(conn, (n for n in nodes if n[0] not in gone))
    r.sessions += len(nodes)
    try:
        cold, archives = udb.cold_archives(), udb.archives()
    except sqlite3.DatabaseError as exc:
        why = f"upstream database unreadable: {exc}"
        r.issues.append(Issue("upstream_unreadable", why, str(udb.path)))
        return
    for g in p.generations:
        _generation(conn, p, g, cold.get(g.session_id), redactor, r, dry_run)
    live = {g.session_id for g in p.generations}
    deleted_ids = upstream_gone.deleted(conn, live, archives, r, dry_run)
    for a in archives:
        if a.session_id not in deleted_ids:  # else the archive is a stored generation, now deleted
            _archive(conn, udb, a, redactor, r, dry_run, include_archives)


def _generation(
    conn: sqlite3.Connection,
    p: UpstreamSource,
    g: upstream_db.Generation,
    cold: upstream_db.ColdArchive | None,
    redactor: Redactor,
    r: ImportReport,
    dry_run: bool,
) -> None:
    """Import one generation: its rows, or (moved to cold storage) its cold archive."""
    udb, name = p.db, f"upstream:{g.session_id}"
    hot = g.has_rows or cold is None  # rows and a cold row: mid-restore, the rows are read
    if hot and not g.has_rows and not _stored(conn, name):
        return  # a window with nothing written yet
    key = g.session_key or keys.orphan_key(p.agent_id, g.session_id)
    where = f"{udb.path}#{g.session_id}"
    if g.session_key is None:
        why = f"no session references these rows: imported as {key}"
        r.issues.append(Issue("transcript_unreferenced", why, where, None, key))
    kind = "current" if g.current else "reset"
    t = Target(Path(where), name, key, g.session_id, kind, _stamp(g.ended_at))
    if not hot:
        assert cold is not None
        upstream_gone.cold(conn, udb, cold, t, redactor, r, dry_run)
        return
    r.files += 1
    try:
        src = udb.events(g.session_id)
        try:
            tally(r, t, import_lines(conn, t, src, redactor, dry_run=dry_run))
        finally:
            src.close()
        upstream_gone.restored(conn, name, dry_run)
    except line_sources.UpstreamUnreadable as exc:  # this transcript's problem only
        r.issues.append(Issue("upstream_unreadable", str(exc), str(t.path), None, key))


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
        if kind.kind == "deleted":
            upstream_gone.deleted_archive(conn, a, dry_run)
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
    if kind.kind == "deleted":
        upstream_gone.deleted_archive(conn, a, dry_run)


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
