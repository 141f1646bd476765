"""Whether a search's answer may be incomplete, per agent store: sessions still waiting to be
indexed (and the background reconciler started for them), and sessions whose indexing failed.
The operator hears of every one; a caller (--as) only of the sessions it may see."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from openclaw_sessions.index import locks
from openclaw_sessions.policy import keys, visibility
from openclaw_sessions.read.scope import visible_pending
from openclaw_sessions.store import paths
from openclaw_sessions.store.pending import any_stale, current_failures
from openclaw_sessions.store.sessions import session_ref


def unindexed(
    conn: sqlite3.Connection,
    agent: str,
    fp: str,
    policy: visibility.Policy | None,
    only: str | None,
) -> int:
    """Sessions in the search's scope whose indexing failed (a poison transcript): they are
    not pending, so they do not make the answer `indexing`; the caller is told instead."""
    failures = current_failures(conn, fp)
    if not failures:  # the common case: no policy to build
        return 0
    policy = policy or visibility.Policy(visibility.Caller(None, agent), ())
    found = set()
    for f in failures:
        if only is not None and only.lower() != f.session_key and only != f.session_id:
            continue
        row = conn.execute(
            "SELECT session_key, session_id, spawned_by, parent_session_key, owner_session_key"
            " FROM sessions WHERE session_key = ?",
            (f.session_key,),
        ).fetchone()
        ref = (
            session_ref(row, agent)
            if row
            else keys.SessionRef(f.session_key, keys.agent_of(f.session_key) or agent)
        )
        if policy.owns_unscoped(ref) and policy.visible(ref):
            found.add(f.session_key)
    return len(found)


def stale_kick(
    conn: sqlite3.Connection,
    root: Path,
    agent: str,
    fp: str,
    policy: visibility.Policy | None,
    only: str | None,
) -> bool:
    """True when results may be incomplete; starts the background reconciler if needed.
    The operator is told of any stale session (or a reconciler at work); a caller (--as)
    only of the sessions it searches (scope.visible_pending; ``only``: the one it names):
    the pending set holds every transcript a running reconciler has yet to finish, so
    nothing of its own is missed."""
    agent_dir = paths.agent_dir(root, agent)
    stale = any_stale(conn, fp)
    if stale and not locks.background_busy(agent_dir):
        locks.spawn(root, agent)
    if policy is not None and policy.caller.key is not None:
        return stale and visible_pending(conn, fp, only, agent)
    return stale or locks.is_running(agent_dir)
