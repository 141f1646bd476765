"""Import's memory of what it reported: a cron line that runs `import` every 15 minutes must
not repeat (and fail on) the same missing transcript forever.

Each issue of a run is attributed to the agent whose store remembers it (its session key's
agent, else the `agents/<id>/` its path lies under; an issue of no agent with a store, such
as a missing state root, is new on every run). An issue met before, unchanged (same code,
path, line, key and message: its fingerprint), is `known`: counted, not printed again, and no
cause for exit 4. Every run (never a dry run) updates the memory: what it meets for the first
time is remembered, and what it no longer meets within what it read (the whole state root, or
the SOURCEs given) is forgotten, so a problem that comes back is new again. `status --problems`
lists what is remembered (read/problems.py).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from openclaw_sessions.model import wellformed
from openclaw_sessions.policy import keys
from openclaw_sessions.reports import ImportReport, Issue
from openclaw_sessions.store import db, paths


def _stored(issue: Issue) -> Issue:
    """The issue as the memory holds it: text SQLite can bind (a path from a file name that is
    not UTF-8 holds lone surrogates: U+FFFD in their place)."""

    def clean(text: str | None) -> str | None:
        return None if text is None else wellformed.text(text)

    return issue._replace(
        message=wellformed.text(issue.message),
        path=clean(issue.path),
        session_key=clean(issue.session_key),
        known=False,
    )


# Lines kept in quarantine: the quarantine is their memory (a line is read, and reported,
# once; `status --problems` lists them from there).
QUARANTINED = frozenset({"line_malformed", "line_invalid_utf8"})


def fingerprint(issue: Issue) -> str:
    i = _stored(issue)
    what = [i.code, i.path, i.line, i.session_key, i.message]
    return hashlib.sha256(json.dumps(what, ensure_ascii=False).encode()).hexdigest()


def agent_of(issue: Issue, agents: Sequence[str]) -> str | None:
    """The agent (among those with a store) whose memory holds ``issue``."""
    if issue.session_key is not None and (agent := keys.agent_of(issue.session_key)) in agents:
        return agent
    parts = Path(issue.path or "").parts
    for i, part in enumerate(parts[:-1]):
        if part == "agents" and parts[i + 1].lower() in agents:
            return parts[i + 1].lower()
    return None


def remember(root: Path, report: ImportReport, sources: Sequence[Path] | None) -> None:
    """Mark the report's issues known or new, and (unless it is a dry run) rewrite each
    touched agent's memory: remember what this run met, forget what it no longer meets in
    what it read (``sources``, or the whole state root when there are none)."""
    agents = paths.agents_with_db(root)
    by_agent: dict[str, list[int]] = {}
    for i, issue in enumerate(report.issues):
        if issue.code in QUARANTINED:
            continue
        agent = agent_of(issue, agents)
        if agent is not None:
            by_agent.setdefault(agent, []).append(i)
    for agent in sorted(set(by_agent) | (set(report.agents) & set(agents))):
        with db.open_store(root, agent) as conn:
            mine = {fingerprint(report.issues[i]): i for i in by_agent.get(agent, [])}
            known = dict(conn.execute("SELECT fingerprint, path FROM import_problems").fetchall())
            for fp, i in mine.items():
                if fp in known:
                    report.issues[i] = report.issues[i]._replace(known=True)
            if not report.dry_run:
                read_all = agent in report.agents
                met = {fp: report.issues[i] for fp, i in mine.items()}
                _rewrite(conn, met, known, read_all, sources)


def _rewrite(
    conn: sqlite3.Connection,
    met: dict[str, Issue],
    known: dict[str, str | None],
    read_all: bool,
    sources: Sequence[Path] | None,
) -> None:
    """Add what is new, drop what is gone (``met``: this run's issues by fingerprint); a run
    that changes neither writes nothing (a cron run over an unchanged state takes no write
    lock for this)."""
    new = [(fp, _stored(i)) for fp, i in met.items() if fp not in known]
    gone = [(fp,) for fp, path in known.items() if fp not in met and _read(path, read_all, sources)]
    if not new and not gone:
        return
    now = db.now_ms()
    with db.transaction(conn):
        conn.executemany(
            "INSERT INTO import_problems (fingerprint, code, severity, message, path, line,"
            " session_key, first_seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT(fingerprint) DO NOTHING",
            [
                (fp, i.code, i.severity, i.message, i.path, i.line, i.session_key, now)
                for fp, i in new
            ],
        )
        conn.executemany("DELETE FROM import_problems WHERE fingerprint = ?", gone)


def _read(path: str | None, read_all: bool, sources: Sequence[Path] | None) -> bool:
    """Did this run read where a remembered issue was met (so not meeting it means it is
    gone)? Without SOURCE a run reads every sessions dir of the agents it imports."""
    if not sources:
        return read_all
    if path is None:
        return False
    for src in sources:
        for base in {str(src), str(src.resolve())}:
            if path == base or path.startswith(base.rstrip("/") + "/"):
                return True
    return False
