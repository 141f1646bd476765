"""Tombstones: what `delete` removed, so that the next `import` does not bring it back.

`delete KEY` records, in its own transaction, the session key (source '') and every transcript
of it as it was stored (`delete ID`, one generation: that transcript only, the key stays): its
source's name and path, and how much of the source was consumed with which fingerprint (bytes,
lines, prefix sha256; the same cursor import resumes from). Import skips a source whose
tombstone still matches it (ingest/deleted.py decides) and leaves a deleted key's store entry
out; a source that changed since (a session that went on) lifts its tombstone, and all of its
key's when the key itself was deleted, and imports again; so does `import --undelete KEY`. The
caller holds the write transaction for every write here.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from openclaw_sessions.errors import NotFoundError
from openclaw_sessions.policy import keys

from . import paths
from .db import now_ms, open_store


class Tomb(NamedTuple):
    """One deleted transcript, as it was stored."""

    session_key: str
    source_name: str
    source_path: str | None
    bytes_consumed: int
    lines_consumed: int
    prefix_sha256: str


class Deleted(NamedTuple):
    """The store's tombstones: the deleted keys (whole sessions) and the deleted transcripts
    by source name (those of the deleted keys, and single generations deleted by id)."""

    keys: frozenset[str]
    sources: dict[str, Tomb]


def record(conn: sqlite3.Connection, key: str, tids: Sequence[int] | None = None) -> None:
    """Remember ``key`` and every transcript stored under it (before they are deleted); with
    ``tids``, only those transcripts (one generation deleted: the key and its entry stay)."""
    now = now_ms()
    if tids is None:
        conn.execute(
            "INSERT INTO tombstones (session_key, source_name, deleted_at) VALUES (?, '', ?)"
            " ON CONFLICT DO UPDATE SET deleted_at = excluded.deleted_at",
            (key, now),
        )
    only = "" if tids is None else " AND transcript_id IN (SELECT value FROM json_each(?))"
    conn.execute(
        "INSERT INTO tombstones (session_key, source_name, session_id, source_path,"
        " bytes_consumed, lines_consumed, prefix_sha256, deleted_at) SELECT session_key,"
        " source_name, session_id, source_path, bytes_consumed, lines_consumed, prefix_sha256,"
        f" ? FROM transcripts WHERE session_key = ? AND source_name NOT LIKE 'live:%'{only}"
        " ON CONFLICT DO UPDATE SET source_path = excluded.source_path,"
        " bytes_consumed = excluded.bytes_consumed, lines_consumed = excluded.lines_consumed,"
        " prefix_sha256 = excluded.prefix_sha256, deleted_at = excluded.deleted_at",
        (now, key) if tids is None else (now, key, json.dumps(list(tids))),
    )


_TOMB = (
    "SELECT session_key, source_name, source_path, bytes_consumed, lines_consumed,"
    " prefix_sha256 FROM tombstones"
)


def _tombs(conn: sqlite3.Connection, where: str = "", *args: object) -> list[Tomb]:
    return [Tomb(*r) for r in conn.execute(f"{_TOMB} {where}", args).fetchall()]


def load(conn: sqlite3.Connection) -> Deleted:
    tombs = _tombs(conn)
    return Deleted(
        frozenset(t.session_key for t in tombs if not t.source_name),  # the key itself
        {t.source_name: t for t in tombs if t.source_name},
    )


def find(conn: sqlite3.Connection, source_name: str) -> Tomb | None:
    """The tombstone of a deleted source, if it is one (the table is small: a scan)."""
    found = _tombs(conn, "WHERE source_name = ?", source_name)
    return found[0] if found else None


def with_session_id(conn: sqlite3.Connection, session_id: str) -> list[Tomb]:
    """The deleted transcripts of a session id (a scan, as `find`)."""
    return _tombs(
        conn,
        "WHERE session_id = ? AND source_name != '' AND bytes_consumed > 0"
        " ORDER BY session_key, source_name",
        session_id,
    )


def with_size(conn: sqlite3.Connection, size: int) -> list[Tomb]:
    """The deleted transcripts that were ``size`` bytes long when deleted (a scan, as
    `find`): the candidates a byte-identical copy under another name is checked against."""
    where = "WHERE bytes_consumed = ? AND source_name != '' ORDER BY session_key, source_name"
    return _tombs(conn, where, size)


def lift(conn: sqlite3.Connection, key: str, source_name: str | None = None) -> int:
    """Forget the tombstones of ``key`` (its session comes back), or with ``source_name``
    that source's only, unless the key itself was deleted (then all of them: the session
    comes back whole); how many there were."""
    whole = conn.execute(
        "SELECT 1 FROM tombstones WHERE session_key = ? AND source_name = ''", (key,)
    ).fetchone()
    if source_name is None or whole:
        return conn.execute("DELETE FROM tombstones WHERE session_key = ?", (key,)).rowcount
    return conn.execute(
        "DELETE FROM tombstones WHERE session_key = ? AND source_name = ?", (key, source_name)
    ).rowcount


def resolve(conn: sqlite3.Connection, ref: str, agent: str) -> str | None:
    """The deleted key ``ref`` names (a key, the rest of one, or a session id of one of its
    transcripts), else None."""
    text = ref.strip()
    for key in (text.lower(), keys.scoped(text, agent)):
        if conn.execute("SELECT 1 FROM tombstones WHERE session_key = ?", (key,)).fetchone():
            return key
    row = conn.execute(
        "SELECT session_key FROM tombstones WHERE session_id = ? ORDER BY session_key LIMIT 1",
        (text,),
    ).fetchone()
    return None if row is None else str(row[0])


def raise_if_deleted(root: Path, agent: str, ref: str) -> None:
    """NotFoundError saying that ``ref`` names a session `delete` removed, and the way back;
    nothing when it does not."""
    if not paths.db_path(root, agent).exists():
        return
    with open_store(root, agent) as conn:
        key = resolve(conn, ref, agent)
    if key is not None:
        raise NotFoundError(
            f"session {key} was deleted with `delete`",
            hint=f"`openclaw-sessions import --undelete {key}` brings it back from its files",
        )
