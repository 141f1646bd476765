"""A key's generations (its current transcript and its older ones: reset archives, vanished
transcripts), and the one `history` shows: the one a session id (or a unique prefix of one)
names, else the current one; with ``--around``, the one holding the message."""

from __future__ import annotations

import sqlite3

from openclaw_sessions.errors import UsageError
from openclaw_sessions.model.branch import Branch, Messages
from openclaw_sessions.policy import keys
from openclaw_sessions.store.branches import active_branch

Generations = list[tuple[int, str]]  # (transcript id, session id)


def generations(conn: sqlite3.Connection, key: str) -> Generations:
    """(transcript id, session id) of every generation of ``key``, the current one first,
    then newest first."""
    rows = conn.execute(
        "SELECT transcript_id, session_id FROM transcripts WHERE session_key = ?1"
        " ORDER BY session_id = coalesce((SELECT session_id FROM sessions WHERE session_key = ?1),"
        " '') DESC, kind = 'current' DESC,"
        " coalesce(last_ts, first_ts, imported_at) DESC, transcript_id DESC",
        (key,),
    ).fetchall()
    return [(r[0], r[1]) for r in rows]


def named(gens: Generations, session_id: str) -> Generations:
    """The generations ``session_id`` names: its own, else the one it is a unique prefix of
    (keys.MIN_ID_PREFIX characters at least; several is a usage error)."""
    want = session_id.strip().lower()
    exact = [g for g in gens if g[1].lower() == want]
    if exact or len(want) < keys.MIN_ID_PREFIX:
        return exact
    found = [g for g in gens if g[1].lower().startswith(want)]
    ids = {sid for _tid, sid in found}
    if len(ids) > 1:
        raise keys.ambiguous(session_id.strip(), len(ids))
    return found


def pick(
    conn: sqlite3.Connection,
    gens: Generations,
    key: str,
    session_id: str | None,
    around: str | None,
) -> tuple[int | None, str | None, Branch]:
    """The generation to show and its active branch (oldest first). ``key`` is what the
    caller named (a session id there names its own generation); ``session_id`` is
    `--session-id`, the generation of an ``around`` message."""
    if session_id is not None:
        exact = [g for g in gens if g[1] == session_id.strip()]
        gens = exact or named(gens, session_id)
        if not gens:
            raise UsageError(
                "--session-id is not a generation of this session",
                hint="use the sessionId of a search hit for this session",
            )
    else:  # a session id given as KEY names its own generation: it comes first
        first = [g for g in gens if g[1].lower() == key.strip().lower()]
        gens = first + [g for g in gens if g not in first]
        if around is None:
            gens = gens[:1]
    if not gens:
        return None, None, Branch(None, Messages([], [], [], []), [])
    if around is not None and len(gens) > 1:
        anchor = around.strip()
        for tid, sid in gens:
            b = active_branch(conn, tid)
            if anchor in b.rows.ids or any(m[1] == anchor for m in b.marks):
                return tid, sid, b
    tid, sid = gens[0]
    return tid, sid, active_branch(conn, tid)
