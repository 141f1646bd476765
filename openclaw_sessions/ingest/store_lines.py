"""One transcript → events, in one transaction: new, appended, unchanged or rewritten.

Only complete lines (ending in "\\n") are consumed; a trailing partial line waits for the next
run. The consumed prefix is fingerprinted (sha256), so an append is told from a rewrite by
content, not by size or mtime. The lines come from a `line_sources.LineSource`: a JSONL file
(plain or .zst), the rows of an upstream agent database, or a live append. Which transcript row
they go to, and where its import stands: transcripts.py.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openclaw_sessions.index import index_rows
from openclaw_sessions.model import transcript
from openclaw_sessions.reports import Issue, timestamp_invalid
from openclaw_sessions.store import rawcodec
from openclaw_sessions.store.db import transaction

from . import deleted, discover, transcripts
from .line_sources import BadLine, FileSource, LineSource
from .regular import open_regular
from .transcripts import FileResult, Target

if TYPE_CHECKING:
    from openclaw_sessions.redact import Redactor

BATCH = 2000
# An event's row: its transcript, line number and line, then a transcript.Entry's fields.
_INSERT = (
    "INSERT INTO events (transcript_id, line_no, raw, seq, entry_id, parent_id, flags, type,"
    " role, ts, target_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def import_file(
    conn: sqlite3.Connection,
    target: Target,
    redactor: Redactor,
    *,
    dry_run: bool,
    stored: transcripts.Stored,
) -> FileResult:
    """Store new lines of one file (plain or .zst) in one write transaction. ``stored``: the
    transcripts as `transcripts.stored_files` read them (once for every file of a store)."""
    target = target._replace(session_key=transcripts.owner_key(conn, target))
    own = foreign_place(target, stored)
    if own is not None:  # never replaces the history of a session stored from elsewhere
        return _foreign(target, stored, own)
    if transcripts.unchanged(conn, target, stored, record=not dry_run):
        return FileResult(session_key=target.session_key)
    # The stat before the read (the listing's, or now): see transcripts.signature.
    sig = transcripts.signature(target.stat or os.stat(target.path))
    src = FileSource(target.path)
    try:
        return import_lines(conn, target, src, redactor, dry_run=dry_run, stat=sig)
    finally:
        src.close()


def foreign_place(target: Target, stored: transcripts.Stored) -> str | None:
    """The path a stored transcript of the same name was imported from, when ``target`` is
    another file in another place while that one is still there (None: the target is the
    stored transcript's own file, or its place is gone, as when a state root moved)."""
    row = stored.get(target.source_name)
    if row is None or not row[7] or row[0] != target.source_name:
        return None
    own = Path(str(row[7]))
    here = discover.safe_resolve(target.path.parent)
    if here is not None and discover.safe_resolve(own.parent) == here:
        return None
    return str(own) if own.exists() else None


def _foreign(target: Target, stored: transcripts.Stored, own: str) -> FileResult:
    """A stray file carrying a stored session's id: imported as nothing. A copy of exactly
    what is stored changes nothing and says nothing; anything else is an error naming it."""
    row = stored[target.source_name]
    try:
        with open_regular(target.path) as f:
            same = hashlib.file_digest(f, "sha256").hexdigest() == row[2]
    except OSError:
        same = False
    result = FileResult(session_key=str(row[3]))
    if not same:
        why = (
            f"this session's transcript was imported from {own}: a file elsewhere never replaces it"
        )
        result.issues.append(Issue("transcript_foreign", why, str(target.path), None, str(row[3])))
        result.status = "refused"
    return result


def import_lines(
    conn: sqlite3.Connection,
    target: Target,
    src: LineSource,
    redactor: Redactor,
    *,
    dry_run: bool = False,
    stat: str | None = None,
) -> FileResult:
    """Store new lines of one source in one write transaction (rolled back on dry runs); a
    source `delete` removed is skipped while it is unchanged (deleted.py). ``stat``: the file's
    signature taken before it was opened, recorded when the source was read whole (a trailing
    partial line leaves none: the next run reads the file again)."""
    held = deleted.skipped(conn, target, src, dry_run=dry_run)
    if held is not None:
        return held
    result = FileResult()
    with transaction(conn, commit=not dry_run):
        tid = _import_locked(conn, src, target, redactor, result)
        transcripts.record_stat(conn, tid, None if src.partial else stat)
    return result


def _import_locked(
    conn: sqlite3.Connection,
    src: LineSource,
    target: Target,
    redactor: Redactor,
    result: FileResult,
) -> int:
    cursor = transcripts.cursor_of(conn, target.source_name)
    resumed = False
    if cursor is None and target.kind in transcripts.ARCHIVES:
        cursor = transcripts.renamed(conn, src, target, result)
        resumed = cursor is not None
    elif cursor is not None and cursor.bytes_consumed > 0:
        resumed = src.resume(cursor.bytes_consumed, cursor.lines_consumed, cursor.prefix_sha256)
        if not resumed:
            transcripts.new_revision(conn, cursor)
            result.status = "rewritten"
            src.restart()
    target = target._replace(session_key=transcripts.owner_key(conn, target))
    result.session_key = target.session_key
    transcripts.ensure_session(conn, target)
    if cursor is None:
        cursor = transcripts.create(conn, target)
        result.status = "imported"
    if not resumed:
        cursor.bytes_consumed = cursor.lines_consumed = cursor.next_seq = 0
    transcripts.update_identity(conn, cursor, target)
    _consume(conn, src, cursor, target, redactor, result)
    return cursor.transcript_id


def _consume(
    conn: sqlite3.Connection,
    src: LineSource,
    cursor: transcripts.Cursor,
    target: Target,
    redactor: Redactor,
    result: FileResult,
) -> None:
    tid = cursor.transcript_id
    appending = cursor.next_seq > 0
    legacy = cursor.version is None and cursor.next_seq > 0 and _legacy_from_db(conn, tid)
    line_no, seq = cursor.lines_consumed, cursor.next_seq  # line_no: the last line consumed
    batch: list[tuple[Any, ...]] = []
    appended: list[tuple[transcript.Entry, dict[str, Any]]] = []
    first_ts: int | None = None
    last_ts: int | None = None
    consumed = 0  # bytes, added to the counters once (a per-line attribute update is costly)
    pack = rawcodec.packer(conn)
    for line_no, line in src.lines(cursor.lines_consumed):
        consumed += len(line)
        body = line[:-1]
        if line.__class__ is BadLine:
            _quarantine(conn, tid, target, line_no, body, transcript.LineError(line.reason), result)
            continue
        if not body or body.isspace():
            continue
        try:
            text = body.decode("utf-8")
            # A BOM on the first line is encoding noise, not content: parse past it, keep it.
            obj = transcript.parse_line(text[1:] if line_no == 1 and text[:1] == "\ufeff" else text)
        except (UnicodeDecodeError, transcript.LineError) as exc:
            _quarantine(conn, tid, target, line_no, body, exc, result)
            continue
        if seq == 0:
            legacy = transcript.is_legacy(obj)
            if obj.get("type") == "session":
                cursor.version = transcript.header_version(obj)
        e = transcript.make_entry(obj, seq, legacy=legacy)
        if e.ts is None and (bad := transcript.bad_time(obj)) is not None:
            result.issues.append(
                timestamp_invalid(str(target.path), line_no, target.session_key, bad)
            )
        batch.append((tid, line_no, pack(body), *e[:8]))  # the columns of _INSERT
        if e.ts is not None and e.type != "session":
            first_ts = e.ts if first_ts is None else first_ts
            last_ts = e.ts
        if appending:
            appended.append((e, obj))
        seq += 1
        if len(batch) >= BATCH:
            if _flush(conn, batch, appended, tid, redactor):
                pack = rawcodec.packer(conn)
    _flush(conn, batch, appended, tid, redactor)
    cursor.bytes_consumed += consumed
    result.bytes_read += consumed
    result.events = seq - cursor.next_seq
    if result.status == "unchanged" and (result.events or result.malformed):
        result.status = "updated"
    conn.execute(
        "UPDATE transcripts SET bytes_consumed = ?, prefix_sha256 = ?, lines_consumed = ?,"
        " next_seq = ?, version = ?, first_ts = coalesce(first_ts, ?),"
        " last_ts = coalesce(?, last_ts) WHERE transcript_id = ?",
        (
            cursor.bytes_consumed,
            src.fingerprint(),
            line_no,
            seq,
            cursor.version,
            first_ts,
            last_ts,
            tid,
        ),
    )
    if src.partial:
        why = "last line has no newline yet (file being written?): it waits for the next run"
        result.issues.append(
            Issue("line_incomplete", why, str(target.path), None, target.session_key)
        )


def _flush(
    conn: sqlite3.Connection,
    batch: list[tuple[Any, ...]],
    appended: list[tuple[transcript.Entry, dict[str, Any]]],
    tid: int,
    redactor: Redactor,
) -> bool:
    """Store a batch of events (and index the appended ones that extend the branch); True
    when the store trained a new dictionary for raw lines meanwhile (rawcodec.py)."""
    trained = False
    if batch:
        conn.executemany(_INSERT, batch)
        batch.clear()
        trained = rawcodec.due(conn) and rawcodec.train(conn)
    if appended:
        index_rows.append_indexed(conn, tid, appended, redactor)
        appended.clear()
    return trained


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
    why = f"line {line_no}: {reason}; kept in quarantine"
    result.issues.append(Issue(code, why, str(target.path), line_no, target.session_key))
