"""A search query as the central database runs it: local search's own terms
(policy/fts_query.build), each phrase folded into tokens as FTS5 would (fold.py), matched as
a run of whole tokens in the row's folded words (or CJK bigram tokens), with the tsvector's
GIN index as the candidate filter; every filter in the WHERE clause, before LIMIT."""

from __future__ import annotations

from itertools import pairwise
from typing import Any, NamedTuple

from openclaw_sessions.policy import fts_query

from . import fold, schema
from .rows import BIGRAM_MARK, LEXEME_CHARS, lexeme

S = schema.SCHEMA


class Phrase(NamedTuple):
    column: str  # words | bigrams
    needle: str  # " t1 t2 " (whole tokens) or " t1 t2" (the last one a prefix)
    lexemes: tuple[str, ...]  # tsquery operands
    # the tsvector alone decides it: one token, not cut (a prefix of a cut lexeme is still
    # exact: lexemes are cut at LEXEME_CHARS, and so are the tokens they must start with)
    exact: bool = False


def _phrase(column: str, tokens: list[str], prefix: bool) -> Phrase:
    mark = BIGRAM_MARK if column == "bigrams" else ""
    ops = []
    for i, t in enumerate(tokens):
        last = i == len(tokens) - 1
        star = (prefix and last) or len(t) > LEXEME_CHARS
        ops.append(lexeme(mark + t) + (":*" if star else ""))
    needle = " " + " ".join(tokens) + ("" if prefix else " ")
    exact = len(tokens) == 1 and len(tokens[0]) <= LEXEME_CHARS
    return Phrase(column, needle, tuple(ops), exact)


def phrases(plan: fts_query.QueryPlan, prefix: bool) -> list[Phrase] | None:
    """The phrases every matching row holds, or None when nothing can match (an empty plan,
    or a phrase with no token: FTS5 matches nothing then)."""
    if plan.empty:
        return None
    out = []
    primary = [t for t in plan.terms if t.route == "primary"]
    last_prefix = prefix and bool(plan.terms) and plan.terms[-1].route == "primary"
    for i, t in enumerate(primary):
        tokens = fold.primary().tokens(t.text)
        if not tokens:
            return None
        out.append(_phrase("words", tokens, last_prefix and i == len(primary) - 1))
    for t in plan.terms:
        if t.route != "bigram":
            continue
        # one CJK character: a prefix of its bigrams; a run: its bigrams, as the index holds them
        star = len(t.text) == 1
        pairs = t.text if star else " ".join(a + b for a, b in pairwise(t.text))
        tokens = fold.bigram().tokens(pairs)
        if not tokens:
            return None
        out.append(_phrase("bigrams", tokens, star))
    return out


class Where(NamedTuple):
    sql: str
    params: list[Any]


def _checks(found: list[Phrase]) -> Where:
    parts = [f"strpos(coalesce(r.{p.column}, ''), %s) > 0" for p in found]
    return Where(" AND ".join(parts), [p.needle for p in found])


def match(found: list[Phrase]) -> Where:
    """The match condition over ocs_rows r: the GIN-indexed tsvector, and the phrases it
    cannot decide alone checked on the folded text; a row without a tsvector (too many
    words) by the folded text alone."""
    tsq = " & ".join(op for p in found for op in p.lexemes)
    inexact = _checks([p for p in found if not p.exact])
    every = _checks(found)
    also = f" AND {inexact.sql}" if inexact.sql else ""
    sql = f"((r.tsv @@ %s::tsquery{also}) OR (r.tsv IS NULL AND {every.sql}))"
    return Where(sql, [tsq, *inexact.params, *every.params])


def score(found: list[Phrase]) -> Where:
    """A BM25-like score of a row (term frequency saturated, length normalised; no IDF):
    relevance order centrally. Local bm25 also weighs rarer words up, so near ties may
    order differently; the set of hits is the same."""
    terms = []
    params: list[Any] = []
    for p in found:
        col = f"coalesce(r.{p.column}, '')"
        tf = f"((length({col}) - length(replace({col}, %s, ''))) / greatest(length(%s), 1))::float8"
        terms.append(f"({tf} / ({tf} + 1.2 * (0.25 + 0.75 * r.ntok / 40.0)))")
        params += [p.needle, p.needle, p.needle, p.needle]
    return Where(" + ".join(terms) or "0", params)
