"""What `search` counts: the total of a hit list (`"total"`, or `"totalAtLeast"` when it is not
cheap to know), `--count` (matching messages), `--count --by-session` and `--sessions` (the
sessions with a match, like `rg -l`). Every count is one SQL statement per agent over the
same FROM and WHERE as the hits (fts._matching), so it respects every filter and the
caller's visibility exactly as the results do.

The total rule: a hit list that was not cut holds every match, so its length is the total
(no extra work); a cut one is counted with a LIMIT, TOTAL_CAP rows for the whole search, so
a common word costs at most that many rows: below the cap the total is exact, at the cap it
is a lower bound (`totalAtLeast`). `--count` is always exact (its whole point), at O(matches).

And whether an answer may be incomplete, per agent store: sessions still waiting to be indexed
(and the background reconciler started for them), and sessions whose indexing failed. The
operator hears of every one; a caller (--as) only of the sessions it may see.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import NamedTuple

from openclaw_sessions.index import locks
from openclaw_sessions.policy import fts_query, keys, visibility
from openclaw_sessions.read.models import SessionHits
from openclaw_sessions.read.scope import visible_pending
from openclaw_sessions.store import paths
from openclaw_sessions.store.db import transaction
from openclaw_sessions.store.pending import any_stale, current_failures
from openclaw_sessions.store.sessions import session_ref

from . import fts

TOTAL_CAP = 1000


class _Found(NamedTuple):
    hits: SessionHits
    score: float  # the best hit's -bm25
    last_ts: int  # the newest hit's time


class Tally:
    """The counts of one search, added up agent by agent."""

    def __init__(self) -> None:
        self.total = 0
        self.exact = True
        self._found: list[_Found] = []

    def add_total(
        self,
        conn: sqlite3.Connection,
        plan: fts_query.QueryPlan,
        filters: fts.Filters,
        fp: str,
        shown: int,
        cut: bool,
    ) -> None:
        """One agent's matches behind a hit list of ``shown`` hits (``cut``: more exist)."""
        if not cut:
            self.total += shown
            return
        # One budget for the whole search (every agent), and a --limit past it still counts
        # its own hits: a common word costs at most TOTAL_CAP rows, however many agents.
        cap = max(TOTAL_CAP - self.total, shown + 1)
        n = count_matches(conn, plan, filters, fp, cap)
        self.total += n
        self.exact = self.exact and n < cap

    def add(
        self,
        conn: sqlite3.Connection,
        agent: str,
        plan: fts_query.QueryPlan,
        filters: fts.Filters,
        fp: str,
        *,
        per_session: bool,
    ) -> None:
        """One agent's matching messages, exactly; per session when asked (one statement;
        bm25() cannot sit in an aggregate, so the matches are materialised first)."""
        if not per_session or plan.empty:
            self.total += count_matches(conn, plan, filters, fp, None)
            return
        score, body, params = fts._matching(plan, filters, fp)
        sql = (
            f"WITH mm AS MATERIALIZED (SELECT t.session_key AS k, {score} AS score, r.ts AS ts"
            f"{body}) SELECT k, count(*), -min(score), max(ts) FROM mm GROUP BY k"
        )
        with transaction(conn, write=False):
            for key, n, best, last in conn.execute(sql, params).fetchall():
                hits = SessionHits(key, keys.agent_of(key) or agent, n)
                self._found.append(_Found(hits, float(best), int(last)))
                self.total += n

    def sessions(self, order: str, ranked: list[str] | None = None) -> tuple[SessionHits, ...]:
        """The sessions with a match, in the search's order: newest hit first (recent), else
        best hit first (bm25, upstream's); ``ranked``: session keys in the operator's
        relevance order (read/ranked.py), which come first, in that order."""
        if order == "recent":
            found = sorted(self._found, key=lambda f: (-f.last_ts, f.hits.session_key))
        else:
            found = sorted(self._found, key=lambda f: (-f.score, -f.last_ts, f.hits.session_key))
        if ranked:
            place = {key: i for i, key in enumerate(ranked)}
            found.sort(key=lambda f: place.get(f.hits.session_key, len(place)))  # stable
        return tuple(f.hits for f in found)


def count_matches(
    conn: sqlite3.Connection,
    plan: fts_query.QueryPlan,
    f: fts.Filters,
    fp: str,
    cap: int | None,
) -> int:
    """How many messages match, every filter applied as for the hits (one statement); at most
    ``cap`` (None: no cap), so a total costs at most ``cap`` rows however common the word."""
    if plan.empty:
        return 0
    _, body, params = fts._matching(plan, f, fp, scored=False)
    if cap is None:
        return int(conn.execute(f"SELECT count(*){body}", params).fetchone()[0])
    sql = f"SELECT count(*) FROM (SELECT 1{body} LIMIT ?)"
    return int(conn.execute(sql, [*params, cap]).fetchone()[0])


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
