"""The `upstream_archived` table: which stored generations upstream no longer holds live.

- ``cold``: OpenClaw's `session.maintenance.coldStorage` moved the generation's rows out of
  `transcript_events` into a cold archive; import reads it from there (read-only), so the
  stored copy stays whole. Upstream's `sessions_search` leaves such transcripts out (and counts
  them, `archivedTranscriptsExcluded`); its `sessions_history` restores and shows them.
- ``deleted``: `sessions.delete` removed the session in OpenClaw (its transcript moved into
  `session_transcript_archives` with reason `deleted`); upstream answers as for a missing
  session.

The operator's views keep both, labelled; the agent's views follow upstream
(read/search/archived.py).
"""

from __future__ import annotations

import sqlite3

STATES = ("cold", "deleted")


def mark(conn: sqlite3.Connection, tid: int, state: str, archive_name: str, at: int | None) -> bool:
    """Record ``tid``'s state (the caller holds the write transaction); True when it changed."""
    assert state in STATES
    row = conn.execute(
        "SELECT state, archive_name FROM upstream_archived WHERE transcript_id = ?", (tid,)
    ).fetchone()
    if row is not None and tuple(row) == (state, archive_name):
        return False
    conn.execute(
        "INSERT INTO upstream_archived (transcript_id, state, archive_name, archived_at)"
        " VALUES (?, ?, ?, ?) ON CONFLICT(transcript_id) DO UPDATE SET state = excluded.state,"
        " archive_name = excluded.archive_name, archived_at = excluded.archived_at",
        (tid, state, archive_name, at),
    )
    return row is None or row[0] != state


def clear(conn: sqlite3.Connection, tid: int) -> bool:
    """The generation is live again (restored in OpenClaw); True when it was marked."""
    n = conn.execute("DELETE FROM upstream_archived WHERE transcript_id = ?", (tid,)).rowcount
    return n > 0


def state_of(conn: sqlite3.Connection, tid: int) -> str | None:
    row = conn.execute(
        "SELECT state FROM upstream_archived WHERE transcript_id = ?", (tid,)
    ).fetchone()
    return None if row is None else str(row[0])


def by_session_id(conn: sqlite3.Connection) -> dict[str, str]:
    """session id → state, for every marked generation of the store (few rows)."""
    rows = conn.execute(
        "SELECT t.session_id, a.state FROM upstream_archived a JOIN transcripts t"
        " USING (transcript_id)"
    )
    return {str(sid): str(state) for sid, state in rows}


# The keys deleted in OpenClaw: a generation of theirs deleted there, none that is not.
DELETED_KEYS_SQL = (
    "SELECT t.session_key FROM transcripts t JOIN upstream_archived a USING (transcript_id)"
    " WHERE a.state = 'deleted' EXCEPT SELECT t.session_key FROM transcripts t"
    " LEFT JOIN upstream_archived a USING (transcript_id) WHERE a.state IS NOT 'deleted'"
)


def key_state(conn: sqlite3.Connection, key: str, current_id: str | None) -> str | None:
    """'deleted' for a key deleted in OpenClaw, else the state of its current generation
    ('cold'), else None."""
    rows = dict(
        conn.execute(
            "SELECT t.session_id, a.state FROM transcripts t LEFT JOIN upstream_archived a"
            " USING (transcript_id) WHERE t.session_key = ?",
            (key,),
        ).fetchall()
    )
    if rows and all(v == "deleted" for v in rows.values()):
        return "deleted"
    state = rows.get(current_id) if current_id is not None else None
    return None if state is None else str(state)


def deleted(conn: sqlite3.Connection) -> tuple[set[str], set[tuple[str, str]]]:
    """The keys deleted in OpenClaw (every stored generation of theirs deleted) and the
    deleted generations as (key, session id)."""
    gens = {
        (str(k), str(s))
        for k, s in conn.execute(
            "SELECT t.session_key, t.session_id FROM upstream_archived a JOIN transcripts t"
            " USING (transcript_id) WHERE a.state = 'deleted'"
        )
    }
    if not gens:
        return set(), gens
    return {str(r[0]) for r in conn.execute(DELETED_KEYS_SQL)}, gens
