"""The operator's search, beyond upstream's: its relevance order over every agent's best
candidates (policy/rank.py) and `--relax` (why.py says why an answer is empty or partial).

`--as` never comes here: its order and JSON stay upstream's `sessions_search` exactly.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import NamedTuple

from openclaw_sessions.errors import UsageError
from openclaw_sessions.policy import fts_query, query_lang, rank
from openclaw_sessions.read.models import Hit
from openclaw_sessions.read.tokens import tokens

from . import exchange, fts


class Info(NamedTuple):
    """What the order reads of a candidate beyond its row (rank.Cand)."""

    head: str  # its text's start
    size: int  # its transcript's stored lines
    exchange: str  # "transcript:seq" of the question opening its exchange ("": none)


POOL = 64  # candidates re-ranked at least (a flood of 30 copies leaves room for the rest)


def candidates(
    conn: sqlite3.Connection,
    plan: fts_query.QueryPlan,
    filters: fts.Filters,
    fp: str,
    k: int,
) -> tuple[list[fts.Row], list[Info], bool]:
    """(about the best ``k`` matches by bm25, each one's text start and its transcript's
    stored lines (its length, free to read), whether more match): what the operator's order re-ranks
    (policy/rank.py). A pool, not a page: ties at its edge need not be broken exactly, so the
    candidates grow only while the filters leave fewer than ``k``."""
    if plan.empty:
        return [], [], False
    n = k + k // 4 + 1  # the operator sees every session but incognito ones: few are left out
    # the exchange (the question that opens it) too: a reply comes before its question
    ex = f"r.transcript_id || ':' || {exchange.EXCHANGE_OF}"
    head = (f", t.next_seq, substr(r.text, 1, ?), {ex}", [rank.HEAD_CHARS * 2])
    with fts.snapshot(conn):  # a batch holds one already
        while True:
            ranks, bound, rows = fts.best(conn, plan, filters, fp, n, *head)
            if bound == float("inf") or len(rows) > k:
                break
            n *= 8
        top = rows[:k]
    out = [(r[1], r[2], r[3], r[4], r[5], ranks[r[0]], r[0]) for r in top]
    return out, [Info(r[7], int(r[6]), r[8] or "") for r in top], len(rows) > k


class Pool:
    """Every agent's candidates of one search."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, fts.Row]] = []
        self.cands: list[rank.Cand] = []
        self.exchanges: list[tuple[str, ...]] = []  # per candidate: exchange.find's ids, or ()

    def add(self, agent: str, rows: list[fts.Row], info: list[Info]) -> None:
        for r, (head, size, ex) in zip(rows, info, strict=True):
            self.rows.append((agent, r))
            self.cands.append(rank.Cand(r[0], int(r[4]), -float(r[5]), head, size, r[3], ex))
            self.exchanges.append(())

    def add_exchanges(self, agent: str, found: list[exchange.Found]) -> bool:
        """Exchanges that hold every word (read/exchange.py), each as its reply's hit;
        whether there are any."""
        self.add(agent, [f.row for f in found], [Info(f.head, f.size, "") for f in found])
        self.exchanges[len(self.exchanges) - len(found) :] = [f.message_ids for f in found]
        return bool(found)

    def session_order(self) -> list[str]:
        """The candidates' sessions, each at its best hit's place in the operator's order."""
        order = rank.order(self.cands, per_session=None)
        return list(dict.fromkeys(self.cands[r.pos].key for r in order))

    def top(
        self,
        conn_of: Callable[[str], sqlite3.Connection],
        plan: fts_query.QueryPlan,
        limit: int,
        one_session: bool,
        relaxed: bool = False,
    ) -> tuple[list[Hit], bool]:
        """(the first ``limit`` hits in the operator's order, more exist); ``one_session``:
        --session names it, else a few hits of a session come before the others'."""
        cap = None if one_session else max(1, min(rank.PER_SESSION, limit // 3))
        order = rank.order(self.cands, per_session=cap)
        shown = order[:limit]
        made: dict[int, Hit] = {}
        for agent in sorted({self.rows[r.pos][0] for r in shown}):
            mine = [r for r in shown if self.rows[r.pos][0] == agent]
            rows = [self.rows[r.pos][1] for r in mine]
            hits = fts.materialize(conn_of(agent), plan, rows)
            for r, h in zip(mine, hits, strict=True):
                made[r.pos] = h._replace(
                    agent_id=agent, copies=r.copies, relaxed=relaxed, exchange=self.exchanges[r.pos]
                )
        return [made[r.pos] for r in shown], len(order) > limit


def build_plan(query: str, *, prefix: bool, literal: bool) -> fts_query.QueryPlan:
    """Upstream's literal terms (``literal``: --literal or --as), else the query language."""
    if literal:
        return fts_query.build(query, prefix=prefix, tokenize=tokens)
    return query_lang.build(query, prefix=prefix, tokenize=tokens)


def relaxed_plan(
    plan: fts_query.QueryPlan, *, literal: bool, asked: bool = False
) -> fts_query.QueryPlan | None:
    """Most but not all of the query: every way to leave one part out (a group counts as one
    part; ``literal``: every word is a part). None: fewer than two, nothing to relax, or more
    parts than --relax takes (``asked``: --relax is on, and that is a usage error)."""
    if not literal:
        try:
            return query_lang.relaxed(plan.query, tokens)
        except UsageError:  # too many ways across the scripts or parts: the words, below
            pass
    words = list(plan.wanted) or [t.text for t in plan.terms if t.route != "ignored"]
    words = list(dict.fromkeys(words))
    if len(words) < 2:
        return None
    if len(words) > query_lang.MAX_RELAX_PARTS:
        if asked:
            query_lang.check_relax(len(words))
        return None
    quoted = ['"' + w.replace('"', " ") + '"' for w in words]
    groups = [
        "(" + " ".join(q for j, q in enumerate(quoted) if j != i) + ")" for i in range(len(words))
    ]
    left_out = " ".join('-"' + t.replace('"', " ") + '"' for t in _left_out(plan))
    try:
        return query_lang.build("(" + " OR ".join(groups) + ") " + left_out, tokenize=tokens)
    except UsageError:  # too many alternatives across the scripts: any of the words
        return query_lang.build("(" + " OR ".join(quoted) + ") " + left_out, tokenize=tokens)


def _left_out(plan: fts_query.QueryPlan) -> list[str]:
    """The query's -words: a relaxed query leaves them out too."""
    if not plan.wanted:
        return []
    wanted = set(plan.wanted)
    return [t.text for t in plan.terms if t.route != "ignored" and t.text not in wanted]
