"""`delete`'s core: which transcripts a KEY or session id names, and deleting them with
their index rows, remembered in a tombstone so that import does not bring them back."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import NamedTuple

from openclaw_sessions.errors import NotFoundError
from openclaw_sessions.policy import keys

from . import db, paths, tombstones
from .paths import StateScope
from .sessions import STORE_STAT


def resolve_delete_target(
    conn: sqlite3.Connection, target: str, agent: str
) -> tuple[str, list[int]]:
    """A key or a bare rest of a key (as keys.resolve_session_key reads those) → (that key,
    its transcript ids); else a session id → (its key, that generation's transcript ids)."""
    t = target.strip()
    for key in (t.lower(), keys.scoped(t, agent)):
        rows = conn.execute(
            "SELECT transcript_id FROM transcripts WHERE session_key = ?", (key,)
        ).fetchall()
        exists = conn.execute("SELECT 1 FROM sessions WHERE session_key = ?", (key,)).fetchone()
        if rows or exists:
            return key, [r[0] for r in rows]
    rows = conn.execute(
        "SELECT transcript_id, session_key FROM transcripts WHERE session_id = ?",
        (_id_of_prefix(conn, t),),
    ).fetchall()
    if rows:
        return rows[0][1], [r[0] for r in rows if r[1] == rows[0][1]]
    raise NotFoundError(f"Session not found: {t}", hint="see `openclaw-sessions status` or search")


def _id_of_prefix(conn: sqlite3.Connection, target: str) -> str:
    """The stored session id ``target`` is, or is a unique prefix of (keys.MIN_ID_PREFIX
    characters at least); else ``target``."""
    if (
        len(target) < keys.MIN_ID_PREFIX
        or conn.execute("SELECT 1 FROM transcripts WHERE session_id = ?", (target,)).fetchone()
    ):
        return target
    low = target.lower()
    found = conn.execute(
        "SELECT DISTINCT session_id FROM transcripts WHERE session_id COLLATE NOCASE >= ?"
        " AND session_id COLLATE NOCASE < ?",
        (low, low + "\U0010ffff"),
    ).fetchall()
    ids = sorted({str(r[0]) for r in found if str(r[0]).lower().startswith(low)})
    if len(ids) > 1:
        raise keys.ambiguous(target, len(ids))
    return ids[0] if ids else target


def _whole(conn: sqlite3.Connection, target: str, key: str, tids: list[int], agent: str) -> bool:
    """Does deleting ``target`` remove the whole session: it names the key itself (a key or
    its bare rest), or a session id whose generation is the key's last?"""
    t = target.strip()
    if key in (t.lower(), keys.scoped(t, agent)):
        return True
    total = conn.execute("SELECT count(*) FROM transcripts WHERE session_key = ?", (key,))
    return int(total.fetchone()[0]) <= len(tids)


def _count(conn: sqlite3.Connection, table: str, tids: list[int]) -> int:
    sql = f"SELECT count(*) FROM {table} WHERE transcript_id = ?"
    return sum(int(conn.execute(sql, (t,)).fetchone()[0]) for t in tids)


class DeleteOptions(NamedTuple):
    """`delete`'s options; each field declares the CLI parameter of its name (type, default)."""

    target: str  # a session key, a bare rest of one, or a session id
    state_dir: Path | None = None
    agent: str = paths.DEFAULT_AGENT


def delete_session(opts: DeleteOptions) -> dict[str, object]:
    """Delete in one transaction what the target names, with its events and index rows: a
    key, the session with every generation; a session id, that generation only (the key and
    its other generations stay: a vanished transcript's id drops just that one). Deleted
    transcripts leave tombstones, so import does not bring them back; the counts are theirs."""
    ctx = StateScope.at(opts.state_dir, opts.agent)
    agent = paths.check_agent_id(ctx.agent)
    with db.open_store(ctx.root, agent) as conn:
        with db.transaction(conn):
            key, tids = resolve_delete_target(conn, opts.target, agent)
            n_rows, n_events = (_count(conn, table, tids) for table in ("index_rows", "events"))
            whole = _whole(conn, opts.target, key, tids, agent)
            tombstones.record(conn, key, None if whole else tids)  # the next import skips it
            for tid in tids:
                conn.execute("DELETE FROM index_rows WHERE transcript_id = ?", (tid,))
                conn.execute("DELETE FROM transcripts WHERE transcript_id = ?", (tid,))
            if whole:
                conn.execute("DELETE FROM sessions WHERE session_key = ?", (key,))
            # The next import stores the session stores' entries again, this one included.
            conn.execute("DELETE FROM meta WHERE key GLOB ?", (STORE_STAT + "*",))
    return {"sessionKey": key, "transcripts": len(tids), "events": n_events, "indexRows": n_rows}


def preview_delete(opts: DeleteOptions) -> str:
    """What `delete` would remove, for its prompt ("agent:main:main and all its transcripts",
    or one generation of it); nothing is written."""
    ctx = StateScope.at(opts.state_dir, opts.agent)
    agent = paths.check_agent_id(ctx.agent)
    with db.open_store(ctx.root, agent) as conn:
        key, tids = resolve_delete_target(conn, opts.target, agent)
        if _whole(conn, opts.target, key, tids, agent):
            return f"{key} and all its transcripts"
    return f"generation {opts.target.strip()} of {key} (the key keeps its other generations)"
