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


def parts(found: list[Phrase]) -> tuple[Where, Where]:
    """The match over ocs_rows r in two parts: rows the GIN-indexed tsvector finds (the
    phrases it cannot decide alone checked on the folded text), and rows without a tsvector
    (too many words) by the folded text alone."""
    tsq = " & ".join(op for p in found for op in p.lexemes)
    inexact = _checks([p for p in found if not p.exact])
    every = _checks(found)
    also = f" AND {inexact.sql}" if inexact.sql else ""
    return (
        Where(f"r.tsv @@ %s::tsquery{also}", [tsq, *inexact.params]),
        Where(f"r.tsv IS NULL AND {every.sql}", list(every.params)),
    )


def match(found: list[Phrase]) -> Where:
    """The matching rows of ocs_rows as a FROM item ``r``: both parts (parts()) as two
    branches of a UNION ALL, not one OR: the planner then estimates the matches from the
    tsvector's statistics (an OR hid them: it drove the search from every session, issue
    39)."""
    indexed, unindexed = parts(found)
    rows = f"SELECT * FROM {S}.ocs_rows r WHERE"
    sql = f"({rows} {indexed.sql} UNION ALL {rows} {unindexed.sql}) r"
    return Where(sql, [*indexed.params, *unindexed.params])


def scored(found: list[Phrase]) -> list[Phrase]:
    """The phrases bm25 scores: local search drives by the primary index when the query has
    primary terms (read/search/fts.driving_index), and scores by it alone; else by the CJK
    bigram index."""
    primary = [p for p in found if p.column == "words"]
    return primary or found


def doubled(p: Phrase) -> str:
    """The needle in the words with every space doubled (the subquery doubles the words'):
    there two occurrences never share a space, so replace() counts them all (" a a " holds
    " a " twice); a prefix needle keeps no space after it."""
    d = p.needle.replace(" ", "  ")
    return d[1:-1] if p.needle.endswith(" ") else d[1:]


def tf_sql(p: Phrase) -> str:
    """The phrase's occurrences in a row (FTS5's tf), over the row's doubled words ``d_<col>``
    (ranking.py's lateral subquery makes them), needle bound as a parameter."""
    col = f"d.d_{p.column}"
    return f"((length({col}) - length(replace({col}, %s, ''))) / length(%s))::float8"


def score(found: list[Phrase]) -> Where:
    """FTS5's bm25, negated (higher is better), over ``weights`` w (a row per host and agent:
    avgdl, idf0, idf1, … in scored()'s order): sum of idf_i · tf_i (k1 + 1) / (tf_i + k1 (1 -
    b + b dl / avgdl)), k1 = 1.2, b = 0.75 (SQLite's fts5_aux.c)."""
    terms, params = [], list[Any]()
    for i, p in enumerate(scored(found)):
        tf = tf_sql(p)
        # as fts5_aux.c computes it, operation by operation, in float8: the same bits
        norm = f"(0.25::float8 + 0.75::float8 * ({dl_sql(found)})::float8 / w.avgdl)"
        terms.append(f"(w.idf{i} * (({tf} * 2.2::float8) / ({tf} + 1.2::float8 * {norm})))")
        params += [doubled(p), doubled(p)] * 2
    return Where(" + ".join(terms) or "0", params)


def dl_sql(found: list[Phrase]) -> str:
    """A row's length as the scoring index counts it: its primary tokens, or its bigrams."""
    if scored(found)[0].column == "words":
        return "r.ntok"
    b = "coalesce(r.bigrams, ' ')"
    return f"(length({b}) - length(replace({b}, ' ', '')) - 1)"
