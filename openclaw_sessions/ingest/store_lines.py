"""One transcript → events, in one transaction: new, appended, unchanged or rewritten.

Only complete lines (ending in "\\n") are consumed; a trailing partial line waits for the next
run. The consumed prefix is fingerprinted (sha256), so an append is told from a rewrite by
content, not by size or mtime. The lines come from a `linesrc.LineSource`: a JSONL file (plain
or .zst), the rows of an upstream agent database, or a live append (line_sources.py).
"""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openclaw_sessions.index import index_rows
from openclaw_sessions.policy import transcript
from openclaw_sessions.reports import Issue, timestamp_invalid
from openclaw_sessions.store.db import now_ms, transaction

from .line_sources import CHUNK, BadLine, FileSource, LineSource
from .regular import open_regular

if TYPE_CHECKING:
    from openclaw_sessions.policy.redact import Redactor

BATCH = 2000


@dataclass(frozen=True)
class Target:
    """Where a file goes: its identity in the store and its session."""

    path: Path
    source_name: str
    session_key: str
    session_id: str
    kind: str  # current | reset | deleted | backup | orphan
    archived_at: str | None = None
    unreferenced: bool = False  # no store entry names the file: report the key it goes to


@dataclass
class FileResult:
    status: str = "unchanged"  # imported | updated | rewritten | unchanged
    events: int = 0
    malformed: int = 0
    bytes_read: int = 0
    issues: list[Issue] = field(default_factory=list)
    session_key: str | None = None  # the key it is stored under
    renamed_from: str | None = None  # the name it had in the store before (a /reset rename)


@dataclass
class _Known:
    transcript_id: int
    revision: int
    bytes_consumed: int
    prefix_sha256: str
    lines_consumed: int
    next_seq: int
    version: int | None


def _known(conn: sqlite3.Connection, source_name: str) -> _Known | None:
    row = conn.execute(
        "SELECT transcript_id, revision, bytes_consumed, prefix_sha256, lines_consumed,"
        " next_seq, version FROM transcripts WHERE source_name = ?",
        (source_name,),
    ).fetchone()
    return _Known(*row) if row else None


def import_file(
    conn: sqlite3.Connection, target: Target, redactor: Redactor, *, dry_run: bool = False
) -> FileResult:
    """Store new lines of one file (plain or .zst) in one write transaction."""
    target = replace(target, session_key=_owner_key(conn, target))
    if _unchanged(conn, target):
        return FileResult(session_key=target.session_key)
    src = FileSource(target.path)
    try:
        return import_lines(conn, target, src, redactor, dry_run=dry_run)
    finally:
        src.close()


def _unchanged(conn: sqlite3.Connection, target: Target) -> bool:
    """A file already stored whole, under the same identity: nothing to write, so no write
    lock is taken (re-runs from cron stay off the writers' way). Checked by content."""
    if target.path.name.endswith(".zst"):
        return False
    row = conn.execute(
        "SELECT bytes_consumed, prefix_sha256, session_key, session_id, kind, archived_at,"
        " source_path FROM transcripts WHERE source_name = ?",
        (target.source_name,),
    ).fetchone()
    if row is None or tuple(row[2:]) != (target.session_key, target.session_id, target.kind,
                                          target.archived_at, str(target.path)):  # fmt: skip
        return False
    try:
        if target.path.stat().st_size != row[0]:
            return False
        h = hashlib.sha256()
        with open_regular(target.path) as f:
            while chunk := f.read(CHUNK):
                h.update(chunk)
    except OSError:
        return False
    return bool(h.hexdigest() == row[1])


def import_lines(
    conn: sqlite3.Connection,
    target: Target,
    src: LineSource,
    redactor: Redactor,
    *,
    dry_run: bool = False,
) -> FileResult:
    """Store new lines of one source in one write transaction (rolled back on dry runs)."""
    result = FileResult()
    with transaction(conn, commit=not dry_run):
        _import_locked(conn, src, target, redactor, result)
    return result


def _import_locked(
    conn: sqlite3.Connection, src: LineSource, target: Target, redactor: Redactor,
    result: FileResult,
) -> None:  # fmt: skip
    known = _known(conn, target.source_name)
    resumed = False
    if known is None and target.kind in _ARCHIVES:
        known = _renamed(conn, src, target, result)
        resumed = known is not None
    elif known is not None and known.bytes_consumed > 0:
        resumed = src.resume(known.bytes_consumed, known.lines_consumed, known.prefix_sha256)
        if not resumed:
            _new_revision(conn, known)
            result.status = "rewritten"
            src.restart()
    target = replace(target, session_key=_owner_key(conn, target))
    result.session_key = target.session_key
    _ensure_session(conn, target)
    if known is None:
        known = _create(conn, target)
        result.status = "imported"
    if not resumed:
        known.bytes_consumed = known.lines_consumed = known.next_seq = 0
    _update_meta(conn, known, target)
    _consume(conn, src, known, target, redactor, result)


_ARCHIVES = ("reset", "deleted", "backup")
# Sources whose path is not a file (a database's rows, `live` appends): never renamed.
_NOT_FILES = "source_name NOT LIKE 'upstream:%' AND source_name NOT LIKE 'live:%'"


def _renamed(
    conn: sqlite3.Connection, src: LineSource, target: Target, result: FileResult
) -> _Known | None:
    """An archive that is a stored transcript's file under a new name (upstream's legacy
    `/reset` renames `<id>.jsonl` to `<id>.jsonl.reset.<ISO>`): same session id, the stored
    prefix intact, the old file gone. It takes that transcript over (no second copy)."""
    rows = conn.execute(
        "SELECT transcript_id, revision, bytes_consumed, prefix_sha256, lines_consumed,"
        " next_seq, version, source_name, source_path FROM transcripts WHERE session_id = ?"
        f" AND kind IN ('current', 'vanished') AND bytes_consumed > 0 AND {_NOT_FILES}"
        " ORDER BY transcript_id",
        (target.session_id,),
    ).fetchall()
    for *cols, name, path in rows:
        if Path(path).exists():
            continue  # a copy, not a rename
        k = _Known(*cols)
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


def _owner_key(conn: sqlite3.Connection, target: Target) -> str:
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


def _ensure_session(conn: sqlite3.Connection, target: Target) -> None:
    conn.execute(
        "INSERT INTO sessions (session_key, session_id, derived) VALUES (?, ?, 1)"
        " ON CONFLICT(session_key) DO NOTHING",
        (target.session_key, target.session_id),
    )


def _create(conn: sqlite3.Connection, target: Target) -> _Known:
    cur = conn.execute(
        "INSERT INTO transcripts (source_name, session_key, session_id, kind, archived_at,"
        " source_path, imported_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            target.source_name,
            target.session_key,
            target.session_id,
            target.kind,
            target.archived_at,
            str(target.path),
            now_ms(),
        ),
    )
    assert cur.lastrowid is not None
    return _Known(cur.lastrowid, 1, 0, "", 0, 0, None)


def _update_meta(conn: sqlite3.Connection, known: _Known, target: Target) -> None:
    conn.execute(
        "UPDATE transcripts SET session_key = ?, session_id = ?, kind = ?, archived_at = ?,"
        " source_path = ? WHERE transcript_id = ?",
        (
            target.session_key,
            target.session_id,
            target.kind,
            target.archived_at,
            str(target.path),
            known.transcript_id,
        ),
    )


def _new_revision(conn: sqlite3.Connection, known: _Known) -> None:
    """Keep the superseded lines in archived_events; the session must be reconciled."""
    tid = known.transcript_id
    conn.execute(
        "INSERT OR IGNORE INTO archived_events (transcript_id, revision, seq, line_no, raw)"
        " SELECT transcript_id, ?, seq, line_no, raw FROM events WHERE transcript_id = ?",
        (known.revision, tid),
    )
    conn.execute("DELETE FROM events WHERE transcript_id = ?", (tid,))
    conn.execute("UPDATE transcripts SET revision = revision + 1 WHERE transcript_id = ?", (tid,))
    index_rows.mark_dirty(conn, tid)
    known.revision += 1
    known.version = None


def _consume(
    conn: sqlite3.Connection,
    src: LineSource,
    known: _Known,
    target: Target,
    redactor: Redactor,
    result: FileResult,
) -> None:
    tid = known.transcript_id
    appending = known.next_seq > 0
    legacy = known.version is None and known.next_seq > 0 and _legacy_from_db(conn, tid)
    line_no, seq = known.lines_consumed, known.next_seq  # line_no: the last line consumed
    batch: list[tuple[Any, ...]] = []
    appended: list[tuple[transcript.Entry, dict[str, Any]]] = []
    first_ts: int | None = None
    last_ts: int | None = None
    consumed = 0  # bytes, added to the counters once (a per-line attribute update is costly)
    for line_no, line in src.lines(known.lines_consumed):
        consumed += len(line)
        if line.__class__ is BadLine:
            _quarantine(conn, tid, target, line_no, line[:-1], transcript.LineError(line.reason),
                        result)  # fmt: skip
            continue
        body = line[:-1]
        if not body or body.isspace():
            continue
        try:
            text = body.decode("utf-8")
            # A BOM on the first line is encoding noise, not content: parse past it, keep it.
            obj = transcript.parse_line(text[1:] if line_no == 1 and text[:1] == "\ufeff" else text)
        except (UnicodeDecodeError, transcript.LineError) as exc:
            _quarantine(conn, tid, target, line_no, body, exc, result)
            continue
        if seq == 0 and obj.get("type") == "session":
            known.version = transcript.header_version(obj)
            legacy = known.version is None
        elif seq == 0:
            legacy = "id" not in obj
        e = transcript.make_entry(obj, seq, legacy=legacy)
        if e.ts is None and (bad := transcript.bad_time(obj)) is not None:
            result.issues.append(
                timestamp_invalid(str(target.path), line_no, target.session_key, bad)
            )
        batch.append(
            (tid, seq, line_no, e.entry_id, e.parent_id, e.flags, e.target_id, e.type, e.role,
             e.ts, text)
        )  # fmt: skip
        if e.ts is not None and e.type != "session":
            first_ts = e.ts if first_ts is None else first_ts
            last_ts = e.ts
        if appending:
            appended.append((e, obj))
        seq += 1
        if len(batch) >= BATCH:
            _flush(conn, batch, appended, tid, redactor)
    _flush(conn, batch, appended, tid, redactor)
    known.bytes_consumed += consumed
    result.bytes_read += consumed
    result.events = seq - known.next_seq
    if result.status == "unchanged" and result.events:
        result.status = "updated"
    if result.status == "unchanged" and result.malformed:
        result.status = "updated"
    conn.execute(
        "UPDATE transcripts SET bytes_consumed = ?, prefix_sha256 = ?, lines_consumed = ?,"
        " next_seq = ?, version = ?, first_ts = coalesce(first_ts, ?),"
        " last_ts = coalesce(?, last_ts) WHERE transcript_id = ?",
        (known.bytes_consumed, src.fingerprint(), line_no, seq, known.version, first_ts,
         last_ts, tid),
    )  # fmt: skip
    if src.partial:
        _note_partial(target, result)


def _flush(
    conn: sqlite3.Connection,
    batch: list[tuple[Any, ...]],
    appended: list[tuple[transcript.Entry, dict[str, Any]]],
    tid: int,
    redactor: Redactor,
) -> None:
    if batch:
        conn.executemany(
            "INSERT INTO events (transcript_id, seq, line_no, entry_id, parent_id, flags,"
            " target_id, type, role, ts, raw) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            batch,
        )
        batch.clear()
    if appended:
        index_rows.append_indexed(conn, tid, appended, redactor)
        appended.clear()


def _legacy_from_db(conn: sqlite3.Connection, tid: int) -> bool:
    row = conn.execute(
        "SELECT entry_id FROM events WHERE transcript_id = ? AND seq = 1", (tid,)
    ).fetchone()
    return bool(row and row[0] and str(row[0]).startswith("v1-"))


def _quarantine(
    conn: sqlite3.Connection,
    tid: int,
    target: Target,
    line_no: int,
    body: bytes,
    exc: Exception,
    result: FileResult,
) -> None:
    bad_utf8 = isinstance(exc, UnicodeDecodeError)
    code = "line_invalid_utf8" if bad_utf8 else "line_malformed"
    reason = "invalid UTF-8" if bad_utf8 else str(exc)
    conn.execute(
        "INSERT OR IGNORE INTO quarantine (transcript_id, path, line_no, code, error, raw)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (tid, target.source_name, line_no, code, reason, body),
    )
    result.malformed += 1
    result.issues.append(
        Issue(code, f"line {line_no}: {reason}; kept in quarantine", str(target.path),
              line_no, target.session_key)
    )  # fmt: skip


def _note_partial(target: Target, result: FileResult) -> None:
    result.issues.append(
        Issue(
            "line_incomplete",
            "last line has no newline yet (file being written?): it waits for the next run",
            str(target.path),
            None,
            target.session_key,
        )
    )
