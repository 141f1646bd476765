"""Import's side of the tombstones `delete` leaves (store/tombstones.py): a source that is still
exactly what was deleted is skipped and reported (once: ingest/problems.py counts it after
that); a source that changed since (the session went on) brings its session back, and so does
`import --undelete KEY`. A deleted key's store entry is left out of the store while the key
is deleted (a changed source brings the key back at once, its entry with the next import).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path

from openclaw_sessions.errors import UsageError
from openclaw_sessions.reports import ImportReport, Issue
from openclaw_sessions.store import db, paths, sessions, tombstones

from . import transcripts
from .line_sources import LineSource
from .transcripts import FileResult, Target


def skipped(
    conn: sqlite3.Connection, target: Target, src: LineSource, *, dry_run: bool
) -> FileResult | None:
    """The result of a deleted source that is unchanged (skipped, reported), else None: the
    import goes on (a changed source lifts its key's tombstones first, unless dry)."""
    tomb = (
        tombstones.find(conn, target.source_name)
        or _moved(conn, target, src)
        or _copied(conn, target, src)
    )
    if tomb is None:
        return None
    if _unchanged(src, tomb):
        why = (
            "deleted with `openclaw-sessions delete`: not imported again while the file is"
            " unchanged (`openclaw-sessions import --undelete KEY` brings it back)"
        )
        issue = Issue("session_deleted", why, str(target.path), None, tomb.session_key)
        return FileResult(status="deleted", session_key=tomb.session_key, issues=[issue])
    src.restart()
    if not dry_run:
        with db.transaction(conn):
            _lift(conn, tomb.session_key, tomb.source_name)
    return None


def _moved(conn: sqlite3.Connection, target: Target, src: LineSource) -> tombstones.Tomb | None:
    """The tombstone of a deleted transcript this source is under another name (upstream's
    `/reset` renames `<id>.jsonl` to `<id>.jsonl.reset.<ISO>`): same session id, and the lines
    stored when it was deleted still its prefix."""
    for tomb in tombstones.with_session_id(conn, target.session_id):
        found = src.resume(tomb.bytes_consumed, tomb.lines_consumed, tomb.prefix_sha256)
        src.restart()
        if found:
            return tomb
    return None


def _copied(conn: sqlite3.Connection, target: Target, src: LineSource) -> tombstones.Tomb | None:
    """The tombstone of a deleted transcript this source is a byte-identical copy of, under
    any name (matched by content: its size, then its fingerprint)."""
    size = transcripts.size(target)
    if size is None:
        return None
    for tomb in tombstones.with_size(conn, size):
        same = _unchanged(src, tomb)
        src.restart()
        if same:
            return tomb
    return None


def _lift(conn: sqlite3.Connection, key: str, source_name: str | None = None) -> None:
    """Lift ``key``'s tombstones (tombstones.lift); a deleted key's store entry was left out,
    so the session stores are read (and their entries stored) again by the next import,
    whatever their stats say."""
    tombstones.lift(conn, key, source_name)
    conn.execute("DELETE FROM meta WHERE key GLOB ?", (sessions.STORE_STAT + "*",))


def _unchanged(src: LineSource, tomb: tombstones.Tomb) -> bool:
    """Does the source hold exactly the complete lines it held when it was deleted?"""
    if not src.resume(tomb.bytes_consumed, tomb.lines_consumed, tomb.prefix_sha256):
        return False
    return next(iter(src.lines(tomb.lines_consumed)), None) is None


def undelete(root: Path, refs: Iterable[str], only: str | None, report: ImportReport) -> None:
    """`import --undelete KEY…`: lift each key's tombstones before the import reads anything
    (searched in agent ``only``'s store, else in every agent's); an unknown one is exit 2."""
    agents = [only] if only is not None else paths.agents_with_db(root)
    for ref in refs:
        found = None
        for agent in agents:
            if not paths.db_path(root, agent).exists():
                continue
            with db.open_store(root, agent) as conn:
                key = tombstones.resolve(conn, ref, agent)
                if key is not None and not report.dry_run:
                    with db.transaction(conn):
                        _lift(conn, key)
            found = found or key
        if found is not None:
            why = "deleted session brought back: its files are imported again"
            report.issues.append(Issue("session_undeleted", why, None, None, found))
        else:
            raise UsageError(
                f"no deleted session {ref!r}",
                hint="`--undelete` takes a key or id that "
                "`openclaw-sessions delete` removed (see `status --problems`)",
            )
