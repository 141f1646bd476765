"""The operator's exchange match: when no single message holds every word, one exchange (a user
message and the replies up to the next user message) that holds them all answers.

A question names two words and the reply the third ("agent X 定时任务"), or the user writes one
term and the assistant the other ("BMR 基础代谢"): the operator finds them in the relevance
order, labelled with the messages that hold the words. `--as` never comes here.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import NamedTuple

from openclaw_sessions.policy import fts_query, query_lang, rank
from openclaw_sessions.read.models import SearchResult
from openclaw_sessions.store.db import transaction

from . import fts

MAX_WORDS = 8  # an exchange holding more is no longer one question (and each costs a query)
PART_CAP = 2000  # matches read per word: an exchange needs each word, a rarer one bounds it
# The exchange of an index row r: the seq of the last user message at or before it (NULL: a
# reply before any question). The (transcript_id, seq) unique index serves it.
EXCHANGE_OF = (
    "(SELECT max(u.seq) FROM index_rows u WHERE u.transcript_id = r.transcript_id"
    " AND u.role = 'user' AND u.seq <= r.seq)"
)


class Found(NamedTuple):
    """One exchange's answer: the row shown (its reply first), its head and transcript size,
    and the matching messages of the exchange, in transcript order."""

    row: fts.Row
    head: str
    size: int
    message_ids: tuple[str, ...]


def parts(plan: fts_query.QueryPlan) -> list[str] | None:
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


def answer(
    plan: fts_query.QueryPlan,
    result: SearchResult,
    role: str | None,
    order: str,
    run: Callable[..., SearchResult],
) -> SearchResult | None:
    """The exchanges that hold every word when ``result`` (the operator's, in ``order``) is
    empty, by ``run(plan, exchange_of=words)`` (search._run); None: no exchange does, or none
    may (another order, --role keeps to one side of an exchange, a -word, one word)."""
    words = parts(plan) if not result.hits and role is None and order == "relevance" else None
    if not words:
        return None
    found = run(any_part_plan(words), exchange_of=words)
    return found if found.hits else None


def any_part_plan(quoted: list[str]) -> fts_query.QueryPlan:
    """What the snippet of an exchange hit marks: any of its words."""
    return query_lang.build(" OR ".join(quoted))


def find(
    conn: sqlite3.Connection,
    quoted: list[str],
    filters: fts.Filters,
    fp: str,
    k: int,
) -> list[Found]:
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
    return [_found(list(rows[e].values()), sum(best[e])) for e in whole]


def _found(members: list[tuple[fts.Row, str, int, int]], score: float) -> Found:
    """The exchange's hit: its best-scoring reply (else its question) at the exchange's
    score, naming every matching message of the exchange."""
    replies = [m for m in members if m[0][3] != "user"] or members
    row, head, size, _ = min(replies, key=lambda m: m[0][5])
    ids = tuple(m[0][2] for m in sorted(members, key=lambda m: m[3]))
    return Found((*row[:5], -score, row[6]), head, size, ids)
