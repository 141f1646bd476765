"""The operator's search, beyond upstream's: its relevance order over every agent's best
candidates (policy/rank.py), `--relax` (why.py says why an answer is empty or partial), and
the exchange match: when no single message holds every word, one exchange (a user message and
the replies up to the next user message) that holds them all answers. A question names two
words and the reply the third ("agent X 定时任务"), or the user writes one term and the
assistant the other ("BMR 基础代谢"): the operator finds them in the relevance order,
labelled with the messages that hold the words.

`--as` never comes here: its order and JSON stay upstream's `sessions_search` exactly.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import NamedTuple

from openclaw_sessions.errors import UsageError
from openclaw_sessions.policy import fts_query, query_lang, rank
from openclaw_sessions.read.models import Hit, SearchResult
from openclaw_sessions.read.tokens import tokens
from openclaw_sessions.store.db import transaction

from . import fts


class Info(NamedTuple):
    """What the order reads of a candidate beyond its row (rank.Cand)."""

    head: str  # its text's start
    size: int  # its transcript's stored lines
    exchange: str  # "transcript:seq" of the question opening its exchange ("": none)


POOL = 64  # candidates re-ranked at least (a flood of 30 copies leaves room for the rest)
MAX_WORDS = 8  # an exchange holding more is no longer one question (and each costs a query)
PART_CAP = 2000  # matches read per word: an exchange needs each word, a rarer one bounds it
# The exchange of an index row r: the seq of the last user message at or before it (NULL: a
# reply before any question). The (transcript_id, seq) unique index serves it.
EXCHANGE_OF = (
    "(SELECT max(u.seq) FROM index_rows u WHERE u.transcript_id = r.transcript_id"
    " AND u.role = 'user' AND u.seq <= r.seq)"
)


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
    ex = f"r.transcript_id || ':' || {EXCHANGE_OF}"
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
        self.exchanges: list[tuple[str, ...]] = []  # per candidate: find_exchanges' ids, or ()

    def add(self, agent: str, rows: list[fts.Row], info: list[Info]) -> None:
        for r, (head, size, ex) in zip(rows, info, strict=True):
            self.rows.append((agent, r))
            self.cands.append(rank.Cand(r[0], int(r[4]), -float(r[5]), head, size, r[3], ex))
            self.exchanges.append(())

    def add_exchanges(self, agent: str, found: list[Exchange]) -> bool:
        """Exchanges that hold every word (find_exchanges), each as its reply's hit;
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



class Exchange(NamedTuple):
    """One exchange's answer: the row shown (its reply first), its head and transcript size,
    and the matching messages of the exchange, in transcript order."""

    row: fts.Row
    head: str
    size: int
    message_ids: tuple[str, ...]


def exchange_parts(plan: fts_query.QueryPlan) -> list[str] | None:
    """The words an exchange must hold, each quoted as the query language reads it; None:
    an exchange cannot answer (fewer than two words or more than MAX_WORDS, or `-words` to
    leave out)."""
    every = [t.text for t in plan.terms if t.route != "ignored"]
    words = list(dict.fromkeys(plan.wanted or every))
    if plan.not_primary is not None or plan.not_bigram is not None or set(every) - set(words):
        return None
    if not 2 <= len(words) <= MAX_WORDS:
        return None
    return ['"' + w.replace('"', " ") + '"' for w in words]


def exchange_answer(
    plan: fts_query.QueryPlan,
    result: SearchResult,
    role: str | None,
    order: str,
    run: Callable[..., SearchResult],
) -> SearchResult | None:
    """The exchanges that hold every word when ``result`` (the operator's, in ``order``) is
    empty, by ``run(plan, exchange_of=words)`` (Call.run); None: no exchange does, or none
    may (another order, --role keeps to one side of an exchange, a -word, one word)."""
    if result.hits or role is not None or order != "relevance":
        return None
    words = exchange_parts(plan)
    if not words:
        return None
    found = run(any_part_plan(words), exchange_of=words)
    return found if found.hits else None


def any_part_plan(quoted: list[str]) -> fts_query.QueryPlan:
    """What the snippet of an exchange hit marks: any of its words."""
    return query_lang.build(" OR ".join(quoted))


def find_exchanges(
    conn: sqlite3.Connection,
    quoted: list[str],
    filters: fts.Filters,
    fp: str,
    k: int,
) -> list[Exchange]:
    """The best ``k`` exchanges that hold every word (each word's best matches, at most
    PART_CAP of them), best first by the sum of each word's best -bm25 in the exchange."""
    # exchange -> per word: its best score there; and every matching row of the exchange
    best: dict[tuple[int, int], list[float]] = {}
    rows: dict[tuple[int, int], dict[int, tuple[fts.Row, str, int, int]]] = {}
    extra = f", t.next_seq, substr(r.text, 1, ?), r.transcript_id, r.seq, {EXCHANGE_OF}"
    with transaction(conn, write=False):
        for i, word in enumerate(quoted):
            sub = query_lang.build(word)
            if sub.empty:
                return []
            ranks, _, got = fts.best(conn, sub, filters, fp, PART_CAP, extra, [rank.HEAD_CHARS * 2])
            seen: set[tuple[int, int]] = set()
            for r in got:
                if r[10] is None or (i and (r[8], r[10]) not in best):
                    continue  # before any question, or not holding the earlier words
                ex = (int(r[8]), int(r[10]))
                score = -float(ranks[r[0]])
                slots = best.setdefault(ex, [0.0] * len(quoted))
                slots[i] = max(slots[i], score)
                seen.add(ex)
                row = (r[1], r[2], r[3], r[4], r[5], ranks[r[0]], r[0])
                rows.setdefault(ex, {})[r[0]] = (row, r[7], int(r[6]), int(r[9]))
            for ex in [e for e in best if e not in seen]:  # lacks this word
                del best[ex]
                rows.pop(ex, None)
    whole = sorted(best, key=lambda e: -sum(best[e]))[:k]
    return [_exchange(list(rows[e].values()), sum(best[e])) for e in whole]


def _exchange(members: list[tuple[fts.Row, str, int, int]], score: float) -> Exchange:
    """The exchange's hit: its best-scoring reply (else its question) at the exchange's
    score, naming every matching message of the exchange."""
    replies = [m for m in members if m[0][3] != "user"] or members
    row, head, size, _ = min(replies, key=lambda m: m[0][5])
    ids = tuple(m[0][2] for m in sorted(members, key=lambda m: m[3]))
    return Exchange((*row[:5], -score, row[6]), head, size, ids)

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
