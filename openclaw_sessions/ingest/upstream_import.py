"""`import` from upstream agent databases, with the JSONL path's guarantees.

Every database among the sources is opened and its layout checked before anything is written
(an unknown layout is a usage error, exit 2). Then, per agent, after the files: the session
store (`session_nodes`/`session_entries`) is upserted, and each transcript generation goes through
`ingest.import_lines` in its own transaction, identified as `upstream:<session id>` and resumed
by upstream `seq` (see `upstream_db.EventSource`). Reclaimed generations kept in the database
(`session_transcript_archives`) are imported under their archive file name, like the files.

A session present both as a JSONL file and in the database is taken from the database, as
upstream does (the file is a pre-migration leftover): the file is skipped with a notice.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from openclaw_sessions.reports import ImportReport, Issue
from openclaw_sessions.store import db as store
from openclaw_sessions.store import paths

from . import discover, line_sources, upstream_db
from .importer import Options, account, upsert_session
from .store_lines import Target, import_lines

if TYPE_CHECKING:
    from openclaw_sessions.policy.redact import Redactor

_SUPERSEDED_KINDS = {"current", "reset", "orphan"}


@dataclass
class Planned:
    agent_id: str
    db: upstream_db.AgentDatabase
    generations: list[upstream_db.Generation] = field(default_factory=list)


def _is(test: Callable[[], bool]) -> bool:
    """A path test that is False when the path cannot be looked at (permissions): the sessions
    dir scan (discover.discover) reports those directories."""
    try:
        return test()
    except OSError:
        return False


def find_databases(source: Path) -> Iterator[tuple[str | None, Path]]:
    """(agent id, database) under a state root, an agent dir, or any folder of state roots."""
    if _is((source / upstream_db.DB_NAME).is_file):
        yield None, source / upstream_db.DB_NAME
    if _is((source / "agents").is_dir):
        try:
            agents = sorted((source / "agents").iterdir())
        except OSError:
            return
        for agent in agents:
            path = agent / "agent" / upstream_db.DB_NAME
            if _is(path.is_file):
                yield agent.name.lower(), path
        return
    for dirpath, dirnames, _ in os.walk(source, followlinks=False):
        dirnames.sort()
        for d in list(dirnames):
            if _is((Path(dirpath) / d / "agents").is_dir):
                dirnames.remove(d)
                yield from find_databases(Path(dirpath) / d)


def _agent_of(path: Path, db: upstream_db.AgentDatabase, default: str) -> str:
    if path.parent.name == "agent" and path.parent.parent.parent.name == "agents":
        return path.parent.parent.name.lower()
    hint = db.agent_hint()
    try:
        return paths.check_agent_id(hint) if hint else default
    except Exception:
        return default


def plan(root: Path, srcs: list[Path], agent: str, report: ImportReport) -> list[Planned]:
    """Open and check every upstream database of the sources; nothing is written yet."""
    out: list[Planned] = []
    seen: set[Path] = set()
    try:
        for src in srcs or [root]:
            if _is(src.is_file):
                found: list[tuple[str | None, Path]] = (
                    [(None, src)] if upstream_db.is_database_file(src) else [])  # fmt: skip
            else:
                found = list(find_databases(src)) if _is(src.is_dir) else []
            for agent_id, path in found:
                if path.resolve() in seen:
                    continue
                seen.add(path.resolve())
                udb = upstream_db.AgentDatabase.open(path)
                out.append(Planned(agent_id or _agent_of(path, udb, agent), udb))
                out[-1].generations = udb.generations()
    except BaseException:
        close(out)
        raise
    for p in out:
        _notices(p, report)
    return out


def _notices(p: Planned, report: ImportReport) -> None:
    layout, path = p.db.layout, str(p.db.path)
    if layout is None:
        why = "upstream agent database holds no transcripts yet (they are still JSONL files)"
        report.issues.append(Issue("upstream_no_transcripts", why, path))
    elif layout.version > upstream_db.KNOWN_VERSION:
        known = upstream_db.KNOWN_VERSION
        why = f"user_version {layout.version} is newer than {known}; read by tables"
        report.issues.append(Issue("upstream_schema_newer", why, path))


def close(planned: list[Planned]) -> None:
    for p in planned:
        p.db.close()


def merge(
    plan_: list[tuple[str, list[Target]]], ups: list[Planned], report: ImportReport
) -> list[tuple[str, list[Target]]]:
    """Add agents that only have a database; drop JSONL twins of database sessions."""
    by_agent = dict(plan_)
    for p in ups:
        by_agent.setdefault(p.agent_id, [])
    for agent_id, targets in by_agent.items():
        ids = {g.session_id for p in ups if p.agent_id == agent_id for g in p.generations}
        if not ids:
            continue
        kept = []
        for t in targets:
            if t.kind in _SUPERSEDED_KINDS and t.session_id in ids:
                report.skipped += 1
                report.issues.append(Issue("transcript_superseded", "the upstream database holds "
                                           "this session: imported from there", str(t.path), None,
                                           t.session_key))  # fmt: skip
            else:
                kept.append(t)
        by_agent[agent_id] = kept
    return sorted(by_agent.items())


def run(
    conn: sqlite3.Connection,
    planned: list[Planned],
    redactor: Redactor,
    options: Options,
    report: ImportReport,
) -> None:
    """Import the databases planned for the agent whose store `conn` is."""
    for p in planned:
        try:
            _database(conn, p, redactor, options, report)
        finally:
            report.upstream_rows_read += p.db.counters.rows_read
            report.upstream_rows_checked += p.db.counters.rows_checked
            p.db.close()


def _database(
    conn: sqlite3.Connection, p: Planned, redactor: Redactor, o: Options, r: ImportReport
) -> None:
    udb = p.db
    r.upstream_databases += 1
    if udb.layout is None:
        return
    nodes = udb.nodes()
    if not o.dry_run and nodes:
        with store.transaction(conn):
            for key, sid, entry in nodes:
                upsert_session(conn, key, sid, entry)
    r.sessions += len(nodes)
    for g in p.generations:
        name = f"upstream:{g.session_id}"
        if not g.has_rows and not _known(conn, name):
            continue  # a window with nothing written yet
        key = g.session_key or f"agent:{p.agent_id}:orphan:{g.session_id.lower()}"
        if g.session_key is None:
            why = f"no session references these rows: imported as {key}"
            r.issues.append(Issue("transcript_unreferenced", why, f"{udb.path}#{g.session_id}",
                                  None, key))  # fmt: skip
        t = Target(Path(f"{udb.path}#{g.session_id}"), name, key, g.session_id,
                   "current" if g.current else "reset", _stamp(g.ended_at))  # fmt: skip
        r.files += 1
        src = udb.events(g.session_id)
        try:
            account(r, t, import_lines(conn, t, src, redactor, dry_run=o.dry_run))
        finally:
            src.close()
    for a in udb.archives():
        _archive(conn, udb, a, redactor, o, r)


def _archive(
    conn: sqlite3.Connection,
    udb: upstream_db.AgentDatabase,
    a: upstream_db.Archive,
    redactor: Redactor,
    o: Options,
    r: ImportReport,
) -> None:
    kind = discover.classify(a.name)
    where = Path(f"{udb.path}#{a.name}@{a.sha256[:16]}")
    if kind.kind not in ("reset", "deleted") or (kind.kind == "deleted" and not o.include_archives):
        r.skipped += 1
        r.issues.append(Issue(f"{a.reason}_skipped", f"{a.reason} archive skipped "
                              "(use --include-archives to import it)", str(where)))  # fmt: skip
        return
    row = conn.execute("SELECT source_path FROM transcripts WHERE source_name = ?",
                       (a.name,)).fetchone()  # fmt: skip
    if row and row[0] == str(where):
        r.files += 1
        r.unchanged += 1  # archives are write-once: same name, same sha256, already stored
        return
    blob, encoding = udb.archive_blob(a.name)
    t = Target(where, a.name, a.session_key, a.session_id, kind.kind, kind.archived_at)
    src = line_sources.FileSource(
        where, opener=lambda _p: line_sources.open_blob(blob, encoding == "zstd")
    )
    r.files += 1
    try:
        account(r, t, import_lines(conn, t, src, redactor, dry_run=o.dry_run))
    except OSError as exc:
        r.issues.append(Issue("transcript_unreadable", f"cannot read: {exc}", str(where), None,
                              a.session_key))  # fmt: skip
    finally:
        src.close()


def _known(conn: sqlite3.Connection, name: str) -> bool:
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
