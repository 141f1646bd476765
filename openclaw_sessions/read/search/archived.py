"""Search's rule for generations upstream no longer holds live (store/upstream_archived.py).

The agent's view (`--as`, MCP) is upstream's: `sessions_search` never matches a cold-stored
transcript and says how many of the caller's visible sessions' transcripts it left out
(`archivedTranscriptsExcluded`, counted over `session_transcript_cold_archives` joined to
the visible windows, with `--session` narrowing it as upstream's `sessionKey`/`sessionId`
do); a session deleted in OpenClaw is not there at all. The operator's view keeps both and
labels each hit (`archived: "cold"` / `"deleted"`: page.py).
"""

from __future__ import annotations

import sqlite3

from openclaw_sessions.read.scope import SESSION_JOIN

from .fts import Filters

# Added to a caller's per-row condition: rows of marked transcripts are not the agent's.
NOT_ARCHIVED = "t.transcript_id NOT IN (SELECT transcript_id FROM upstream_archived)"


def caller_visible(visible: str) -> str:
    return f"({visible} AND {NOT_ARCHIVED})"


def excluded(conn: sqlite3.Connection, f: Filters) -> int:
    """The cold-stored transcripts the caller's search left out: those of the sessions it may
    see (``f.visible``, the caller's condition without NOT_ARCHIVED), in the store's agent
    namespace or the ``--session`` named."""
    scope, params = f.scope()
    where = ["a.state = 'cold'", f.visible, *scope]
    sql = (
        "SELECT count(*) FROM upstream_archived a JOIN transcripts t USING (transcript_id)"
        f"{SESSION_JOIN} WHERE {' AND '.join(where)}"
    )
    return int(conn.execute(sql, params).fetchone()[0])

