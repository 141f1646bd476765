"""The upstream agent databases an `import` reads, opened and checked before anything is
written: one that cannot be read (half-written, an unknown layout) is reported
(`upstream_unreadable`, exit 4) and everything else is imported. A session present both as a
JSONL file and in a database is taken from the database, as upstream does (the file is a
pre-migration leftover): the file is skipped with a notice."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import NamedTuple

from openclaw_sessions.errors import UsageError
from openclaw_sessions.reports import ImportReport, Issue
from openclaw_sessions.store import db, paths

from . import discover, upstream_db
from .transcripts import Target

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
    root: Path, srcs: list[Path], agent: str, report: ImportReport, only: str | None = None
) -> list[UpstreamSource]:
    """Open and check every upstream database of the sources (of agent ``only`` when set);
    nothing is written yet."""
    out: list[UpstreamSource] = []
    seen: set[Path] = set()
    try:
        for src in srcs or [root]:
            if discover.readable(src.is_file):
                found: list[tuple[str | None, Path]] = (
                    [(None, src)] if upstream_db.is_database_file(src) else []
                )
            else:
                found = list(discover.find_databases(src)) if discover.readable(src.is_dir) else []
            for agent_id, path in found:
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
            return UpstreamSource(owner, udb, udb.generations())
    except (UsageError, sqlite3.DatabaseError) as exc:
        if isinstance(exc, sqlite3.DatabaseError) and "lock" in str(exc).lower():
            raise db.translate(exc, path) from None  # exit 3: held past the busy timeout
        why = getattr(exc, "message", f"{path} is not a readable SQLite database: {exc}")
        report.issues.append(Issue("upstream_unreadable", why, str(path)))
    except BaseException:
        if udb is not None:
            udb.close()
        raise
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
