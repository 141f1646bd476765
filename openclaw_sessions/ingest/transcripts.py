"""A transcript's row as import sees it: where a source goes (Target: its identity in the store
and its session), where its import stands (Cursor: bytes and lines consumed, the prefix's
fingerprint, the next seq), and the row's changes: a new transcript, a new identity, a new
revision when stored lines were rewritten, an archive that takes over a renamed transcript;
and how one source's result adds to the import's report (tally). The caller (store_lines.py)
holds the write transaction.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from openclaw_sessions.index import index_rows
from openclaw_sessions.policy import keys
from openclaw_sessions.reports import ImportReport, Issue
from openclaw_sessions.store.db import now_ms, transaction

from .line_sources import LineSource
from .regular import open_regular


class Target(NamedTuple):
    """Where a file goes: its identity in the store and its session."""

    path: Path
    source_name: str
    session_key: str
    session_id: str
    kind: str  # current | reset | deleted | backup | orphan
    archived_at: str | None = None
    unreferenced: bool = False  # no store entry names the file: report the key it goes to
    stat: os.stat_result | None = None  # the file's, when its directory was listed

    def identity(self) -> tuple[str, str, str, str | None, str]:
        """What the transcript row records of its source (key, id, kind, archive stamp, path)."""
        return (self.session_key, self.session_id, self.kind, self.archived_at, str(self.path))


@dataclass
class FileResult:
    status: str = "unchanged"  # imported | updated | rewritten | unchanged | refused
    events: int = 0
    malformed: int = 0
    bytes_read: int = 0
    issues: list[Issue] = field(default_factory=list)
    session_key: str | None = None  # the key it is stored under
    renamed_from: str | None = None  # the name it had in the store before (a /reset rename)


@dataclass
class Cursor:
    """Where a stored transcript's import stands (updated as lines are consumed)."""

    transcript_id: int
    revision: int
    bytes_consumed: int
    prefix_sha256: str
    lines_consumed: int
    next_seq: int
    version: int | None


_CURSOR = (
    "SELECT transcript_id, revision, bytes_consumed, prefix_sha256, lines_consumed, next_seq,"
    " version"
)


def cursor_of(conn: sqlite3.Connection, source_name: str) -> Cursor | None:
    found = conn.execute(f"{_CURSOR} FROM transcripts WHERE source_name = ?", (source_name,))
    row = found.fetchone()
    return Cursor(*row) if row else None


# A stat is trusted only when the file's own timestamps are this much older than the stat: a
# write after it then changes them, even on a file system with coarse timestamps (git's "racily
# clean" rule).
SETTLED_NS = 1_000_000_000


def signature(st: os.stat_result) -> str | None:
    """What a file's stat says of its content (size, mtime, inode, ctime), or None when it was
    written too recently for a later write to be sure to change it."""
    if time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) < SETTLED_NS:
        return None
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}:{st.st_ctime_ns}"


_STORED = (
    "SELECT t.source_name, t.bytes_consumed, t.prefix_sha256, t.session_key, t.session_id,"
    " t.kind, t.archived_at, t.source_path, st.stat, t.transcript_id FROM transcripts t"
    " LEFT JOIN source_stats st USING (transcript_id)"
)
Stored = dict[str, tuple[Any, ...]]


def stored_files(conn: sqlite3.Connection) -> Stored:
    """What `unchanged` asks of every stored transcript, in one read (an import of many
    files asks it once instead of once a file)."""
    return {r[0]: tuple(r) for r in conn.execute(_STORED)}


def unchanged(conn: sqlite3.Connection, target: Target, stored: Stored, *, record: bool) -> bool:
    """A file already stored whole, under the same identity: nothing to write, so no write
    lock is taken (re-runs from cron stay off the writers' way). Its stat answers when it is
    the one recorded when the file was last read whole; else its content does (and the stat
    is recorded, so the next run need not read it; not with ``record`` False, a dry run).
    ``stored``: what `stored_files` read."""
    row = stored.get(target.source_name)
    if row is None or tuple(row[3:8]) != target.identity():
        return False
    try:
        st = target.stat or os.stat(target.path)
        sig = signature(st)
        if sig is not None and sig == row[8]:
            return True
        if target.path.name.endswith(".zst") or st.st_size != row[1]:
            return False
        with open_regular(target.path) as f:
            digest = hashlib.file_digest(f, "sha256").hexdigest()
    except OSError:
        return False
    if digest != row[2]:
        return False
    if sig is not None and record:  # e.g. the first run after an upgrade: the next reads nothing
        with transaction(conn):
            record_stat(conn, row[9], sig)
    return True


def size(target: Target) -> int | None:
    """The source file's size; None when there is no file (an upstream database's `db#id`)."""
    if target.stat is not None:
        return target.stat.st_size
    try:
        return os.stat(target.path).st_size
    except (OSError, ValueError):
        return None


def record_stat(conn: sqlite3.Connection, tid: int, sig: str | None) -> None:
    """Remember (or forget, with None) the stat of the file transcript ``tid`` was read whole
    from; the caller's write transaction."""
    if sig is None:
        conn.execute("DELETE FROM source_stats WHERE transcript_id = ?", (tid,))
    else:
        conn.execute(
            "INSERT INTO source_stats (transcript_id, stat) VALUES (?, ?)"
            " ON CONFLICT(transcript_id) DO UPDATE SET stat = excluded.stat",
            (tid, sig),
        )


ARCHIVES = ("reset", "deleted", "backup")


# Sources whose path is not a file (a database's rows, `live` appends): never renamed.
NOT_FILES = "source_name NOT LIKE 'upstream:%' AND source_name NOT LIKE 'live:%'"


def renamed(
    conn: sqlite3.Connection, src: LineSource, target: Target, result: FileResult
) -> Cursor | None:
    """An archive that is a stored transcript's file under a new name (upstream's legacy
    `/reset` renames `<id>.jsonl` to `<id>.jsonl.reset.<ISO>`): same session id, the stored
    prefix intact, the old file gone. It takes that transcript over (no second copy)."""
    rows = conn.execute(
        f"{_CURSOR}, source_name, source_path FROM transcripts WHERE session_id = ?"
        f" AND kind IN ('current', 'vanished') AND bytes_consumed > 0 AND {NOT_FILES}"
        " ORDER BY transcript_id",
        (target.session_id,),
    ).fetchall()
    for *cols, name, path in rows:
        if Path(path).exists():
            continue  # a copy, not a rename
        k = Cursor(*cols)
        if src.resume(k.bytes_consumed, k.lines_consumed, k.prefix_sha256):
            conn.execute(
                "UPDATE transcripts SET source_name = ? WHERE transcript_id = ?",
                (target.source_name, k.transcript_id),
            )
            result.renamed_from = str(name)
            result.status = "updated"
            return k
        src.restart()
    return None


def owner_key(conn: sqlite3.Connection, target: Target) -> str:
    """A derived key yields to the real key an earlier generation of this id was stored under
    (a transcript imported while current, later renamed to a reset archive)."""
    if ":orphan:" not in target.session_key:
        return target.session_key
    row = conn.execute(
        "SELECT session_key FROM transcripts WHERE session_id = ?"
        " AND session_key NOT LIKE '%:orphan:%' LIMIT 1",
        (target.session_id,),
    ).fetchone()
    return str(row[0]) if row else target.session_key


def ensure_session(conn: sqlite3.Connection, target: Target) -> None:
    conn.execute(
        "INSERT INTO sessions (session_key, session_id, derived, agent_id) VALUES (?, ?, 1, ?)"
        " ON CONFLICT(session_key) DO NOTHING",
        (target.session_key, target.session_id, keys.agent_of(target.session_key)),
    )


def create(conn: sqlite3.Connection, target: Target) -> Cursor:
    cur = conn.execute(
        "INSERT INTO transcripts (source_name, session_key, session_id, kind, archived_at,"
        " source_path, imported_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (target.source_name, *target.identity(), now_ms()),
    )
    assert cur.lastrowid is not None
    return Cursor(cur.lastrowid, 1, 0, "", 0, 0, None)


def update_identity(conn: sqlite3.Connection, cursor: Cursor, target: Target) -> None:
    """The transcript row takes the source's identity (key, id, kind, path), except that a
    lone file given as SOURCE (kind orphan: it names no key) leaves a transcript the store
    already knows under its sessions dir as it is."""
    old = conn.execute(
        "SELECT session_key, kind FROM transcripts WHERE transcript_id = ?",
        (cursor.transcript_id,),
    ).fetchone()
    if target.kind == "orphan" and old is not None and old[1] != "orphan":
        return
    conn.execute(
        "UPDATE transcripts SET session_key = ?, session_id = ?, kind = ?, archived_at = ?,"
        " source_path = ? WHERE transcript_id = ?",
        (*target.identity(), cursor.transcript_id),
    )
    if old is not None and old[0] != target.session_key and ":orphan:" in old[0]:
        # the transcript's real key is known now (a sessions.json fixed since): the orphan
        # key it was stored under goes when nothing else is left under it
        conn.execute(
            "DELETE FROM sessions WHERE session_key = ? AND NOT EXISTS (SELECT 1 FROM"
            " transcripts WHERE session_key = ?)",
            (old[0], old[0]),
        )


def new_revision(conn: sqlite3.Connection, cursor: Cursor) -> None:
    """Keep the superseded lines in archived_events; the session must be reconciled. The
    quarantined lines belonged to the old revision: those still malformed are met again as
    the new one is read, and a line fixed in the file leaves the quarantine."""
    tid = cursor.transcript_id
    conn.execute(
        "INSERT OR IGNORE INTO archived_events (transcript_id, revision, seq, line_no, raw)"
        " SELECT transcript_id, ?, seq, line_no, raw FROM events WHERE transcript_id = ?",
        (cursor.revision, tid),
    )
    conn.execute("DELETE FROM events WHERE transcript_id = ?", (tid,))
    conn.execute("DELETE FROM quarantine WHERE transcript_id = ?", (tid,))
    conn.execute("UPDATE transcripts SET revision = revision + 1 WHERE transcript_id = ?", (tid,))
    index_rows.mark_dirty(conn, tid)
    cursor.revision += 1
    cursor.version = None


def tally(r: ImportReport, t: Target, res: FileResult) -> None:
    """Add one transcript's result to the report (files and upstream databases alike)."""
    key, path = res.session_key or t.session_key, str(t.path)
    if res.renamed_from is not None:
        why = (
            f"{res.renamed_from} was renamed to this {t.kind} archive: its stored copy (under"
            f" {key}) takes the new name, nothing is stored twice"
        )
        r.issues.append(Issue("transcript_renamed", why, path, None, key))
    elif t.unreferenced and key == t.session_key:
        # A reset archive's key is only known if its generation was imported while current
        # (then it files under that key, silently); otherwise it is kept, and reported, under
        # a derived key.
        code = "transcript_unreferenced" if t.kind == "current" else "archive_unreferenced"
        why = f"no store entry references this file: imported as {key}"
        r.issues.append(Issue(code, why, path, None, key))
    r.events += res.events
    r.bytes_read += res.bytes_read
    r.malformed_lines += res.malformed
    r.issues.extend(res.issues)
    if res.status in ("deleted", "refused"):  # `delete` removed it, or a stray file: skipped
        r.skipped += 1
    elif res.status == "imported":
        r.imported += 1
    elif res.status in ("updated", "rewritten"):
        r.updated += 1
        if res.status == "rewritten":
            r.rewritten += 1
            why = (
                "already-imported lines changed: stored as a new revision, session marked for"
                " reindex"
            )
            r.issues.append(Issue("transcript_rewritten", why, path, None, t.session_key))
    else:
        r.unchanged += 1
