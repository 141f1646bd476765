"""The operator's search, beyond upstream's: its relevance order over every agent's best
candidates (policy/rank.py), `--relax`, and the `absence` of an empty or partial answer.

`--as` never comes here: its order and JSON stay upstream's `sessions_search` exactly.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple

from openclaw_sessions.errors import UsageError
from openclaw_sessions.policy import fts_query, query_lang, rank
from openclaw_sessions.redact import Redactor
from openclaw_sessions.store.db import open_store

from . import exchange, search_sql
from .models import Hit, SearchResult
from .scope import register
from .tokens import tokens


class Info(NamedTuple):
    """What the order reads of a candidate beyond its row (rank.Cand)."""

    head: str  # its text's start
    size: int  # its transcript's stored lines
    exchange: str  # "transcript:seq" of the question opening its exchange ("": none)


POOL = 64  # candidates re-ranked at least (a flood of 30 copies leaves room for the rest)


def candidates(
    conn: sqlite3.Connection,
    plan: fts_query.QueryPlan,
    filters: search_sql.Filters,
    fp: str,
    k: int,
) -> tuple[list[search_sql.Row], list[Info], bool]:
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
    with search_sql.snapshot(conn):  # a batch holds one already
        while True:
            ranks, bound, rows = search_sql.best(conn, plan, filters, fp, n, *head)
            if bound == float("inf") or len(rows) > k:
                break
            n *= 8
        top = rows[:k]
    out = [(r[1], r[2], r[3], r[4], r[5], ranks[r[0]], r[0]) for r in top]
    return out, [Info(r[7], int(r[6]), r[8] or "") for r in top], len(rows) > k


class Pool:
    """Every agent's candidates of one search."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, search_sql.Row]] = []
        self.cands: list[rank.Cand] = []
        self.exchanges: list[tuple[str, ...]] = []  # per candidate: exchange.find's ids, or ()

    def add(self, agent: str, rows: list[search_sql.Row], info: list[Info]) -> None:
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
        root: Path,
        plan: fts_query.QueryPlan,
        redactor: Redactor,
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
            with open_store(root, agent) as conn:
                hits = search_sql.materialize(conn, plan, rows, redactor)
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


class Absence(NamedTuple):
    """What an empty or partial operator answer lacks, added up over the agents."""

    not_found: dict[str, int]  # term -> indexed matches (0: found nowhere)
    off_index: dict[str, int]  # term -> matches on abandoned branches or unindexed messages
    pending: int


def why_empty(
    conn: sqlite3.Connection, plan: fts_query.QueryPlan, redactor: Redactor, *, deep: bool
) -> Absence:
    """One agent's part: whether each term occurs in indexed text at all (at most one row
    read per term) and the sessions pending; ``deep`` (--explain asked for it): --explain's counts,
    with the matches off the index (a scan of every stored line)."""
    from .explain import explain, occurrences, pending_sessions, term_plan
    from .scope import OPERATOR_VISIBLE

    fp = redactor.fingerprint
    if not deep:
        found: dict[str, int] = {}
        for term in fts_query.distinct(plan.terms, tokens):  # a repeated term: one question
            sub = term_plan(term)
            if sub is not None and not sub.empty:
                found[term.text] = occurrences(conn, sub, OPERATOR_VISIBLE, fp, cap=1)
        return Absence(found, {}, pending_sessions(conn, fp, OPERATOR_VISIBLE))
    got = explain(
        conn, plan, visible=OPERATOR_VISIBLE, operator=True, redactor=redactor, matched=False
    )
    why = got.get("why", [])
    counts = {w["term"]: int(w["indexedMatches"]) for w in why if "indexedMatches" in w}
    off = {
        w["term"]: int(w["abandonedOrUnindexedMatches"])
        for w in why
        if w.get("abandonedOrUnindexedMatches")
    }
    return Absence(counts, off, int(got["pendingSessions"]))


def absence(
    root: Path,
    agents: list[str],
    plan: fts_query.QueryPlan,
    redactor: Redactor,
    result: SearchResult,
    *,
    deep: bool,
    relax_possible: bool,
    relaxed: bool,
) -> dict[str, Any] | None:
    """The JSON ``absence`` of an operator answer: why it is empty or partial, and what lifts
    that (None when it is whole). ``deep``: --explain's counts (why_empty);
    ``relax_possible``: --relax could loosen the query; ``relaxed``: it did."""
    empty, pending = not result.hits, result.indexing
    if not (empty or result.truncated or pending or result.unindexed):
        return None
    parts = []
    if empty or pending:
        for agent in agents:
            with open_store(root, agent) as conn:
                register(conn, agent, None)
                parts.append(why_empty(conn, plan, redactor, deep=deep))
    out: dict[str, Any] = {}
    lift: list[str] = []
    if empty and parts:
        terms: Counter[str] = Counter()
        off: Counter[str] = Counter()
        for p in parts:
            terms.update(p.not_found)
            off.update(p.off_index)
        # found nowhere: not in indexed text, nor (--explain reads them) in what is pending,
        # unindexed or abandoned; without --explain a pending message may hold it
        if deep or not pending:
            out["termsNotFound"] = [t for t, n in terms.items() if n == 0 and not off[t]]
        if off:
            out["abandonedOrUnindexed"] = dict(off)
        if relax_possible and not relaxed:
            lift.append("--relax")
    if relaxed:
        out["relaxed"] = "no message matches every word: these match most of them"
    if pending:
        out["pendingSessions"] = max(sum(p.pending for p in parts), 1) if parts else True
        lift.append("--wait")
    if result.unindexed:
        out["unindexedSessions"] = result.unindexed
    if result.cut_by is not None:
        shown, total = len(result.hits), result.total
        out["cut"] = {"by": result.cut_by, "shown": shown, "total": total}
        lift.append(
            f"--limit {max(total, shown + 1)}" if result.cut_by == "limit" else "--max-bytes 0"
        )
    if not out:
        return None
    if lift:
        out["lift"] = lift
    return out
