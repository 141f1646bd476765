"""What `search` counts: the total of a hit list (`"total"`, or `"totalAtLeast"` when it is not
cheap to know), `--count` (matching messages), `--count --by-session` and `--sessions` (the
sessions with a match, like `rg -l`). Every count is one SQL statement per agent over the
same FROM and WHERE as the hits (fts._matching), so it respects every filter and the
caller's visibility exactly as the results do.

The total rule: a hit list that was not cut holds every match, so its length is the total
(no extra work); a cut one is counted with a LIMIT, TOTAL_CAP rows for the whole search, so
a common word costs at most that many rows: below the cap the total is exact, at the cap it
is a lower bound (`totalAtLeast`). `--count` is always exact (its whole point), at O(matches).
"""

from __future__ import annotations

import sqlite3
from typing import NamedTuple

from openclaw_sessions.policy import fts_query, keys
from openclaw_sessions.read.models import SessionHits
from openclaw_sessions.store.db import transaction

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
    _, body, params = fts._matching(plan, f, fp)
    if cap is None:
        return int(conn.execute(f"SELECT count(*){body}", params).fetchone()[0])
    sql = f"SELECT count(*) FROM (SELECT 1{body} LIMIT ?)"
    return int(conn.execute(sql, [*params, cap]).fetchone()[0])
