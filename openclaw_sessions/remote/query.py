"""A search query as the central database runs it: local search's own terms
(policy/fts_query.build), each phrase folded into tokens as FTS5 would (fold.py), matched as
a run of whole tokens in the row's folded words (or its bigram index tokens), with the
tsvector's GIN index as the candidate filter; every filter in the WHERE clause, before LIMIT.
A query is local's branches (branches()): the word index, and the bigram index for the rows
the word index misses (a word written against CJK text), each scored by its own bm25."""

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


def _phrase(column: str, tokens: list[str], prefix: bool, beside: bool = False) -> Phrase:
    """``beside``: words of the bigram index beside CJK text, whose lexeme is the word's own
    when the row's words hold it too (rows.fold_text): either one, checked on the text."""
    mark = BIGRAM_MARK if column == "bigrams" else ""
    ops = []
    for i, t in enumerate(tokens):
        last = i == len(tokens) - 1
        star = ":*" if (prefix and last) or len(t) > LEXEME_CHARS else ""
        op = lexeme(mark + t) + star
        ops.append(f"({op} | {lexeme(t)}{star})" if beside else op)
    needle = " " + " ".join(tokens) + ("" if prefix else " ")
    exact = len(tokens) == 1 and len(tokens[0]) <= LEXEME_CHARS and not beside
    return Phrase(column, needle, tuple(ops), exact)


class Branch(NamedTuple):
    """One way a row matches, as one branch of local search (read/search_sql.best): the
    phrases it holds, the index whose bm25 scores it and the phrases that bm25 sums, and the
    phrases that, all held, make the row another branch's (the branches are disjoint)."""

    found: list[Phrase]
    fts: str  # index_fts | index_bigram
    scored: list[Phrase]
    unless: list[Phrase]


def _distinct(terms: list[fts_query.Term], prefix: bool) -> list[tuple[str, bool]]:
    """(text, prefix) of each phrase of local's folded primary expression: a term the word
    index reads as an earlier one's is left out (fts_query.fold, keyed as read/tokens.py)."""
    seen: dict[tuple[tuple[str, ...], bool], str] = {}
    for i, t in enumerate(terms):
        star = prefix and i == len(terms) - 1
        seen.setdefault((tuple(fold.primary().tokens(t.text)), star), t.text)
    return [(text, star) for (_toks, star), text in seen.items()]


def _bigram_phrases(plan: fts_query.QueryPlan, distinct: bool) -> list[Phrase] | None:
    out = []
    runs = [t.text for t in plan.terms if t.route == "bigram"]
    for run in dict.fromkeys(runs) if distinct else runs:
        # one CJK character: a prefix of its bigrams; a run: its bigrams, as the index holds them
        star = len(run) == 1
        pairs = run if star else " ".join(a + b for a, b in pairwise(run))
        tokens = fold.bigram().tokens(pairs)
        if not tokens:
            return None
        out.append(_phrase("bigrams", tokens, star))
    return out


def branches(plan: fts_query.QueryPlan, prefix: bool) -> list[Branch] | None:
    """How a row matches the query, as local search's branches (fts_query.with_glued): its
    words in the word index (scored there when the query has words, else by its CJK runs in
    the bigram index), or, for a row the word index misses, its words in the bigram index
    (a word written against CJK text), scored there over every distinct phrase. None when
    no row can match (an empty plan, or a phrase with no token in every branch: FTS5
    matches nothing then)."""
    if plan.empty:
        return None
    bigram = _bigram_phrases(plan, False)
    if bigram is None:
        return None
    primary = [t for t in plan.terms if t.route == "primary"]
    last_prefix = prefix and bool(plan.terms) and plan.terms[-1].route == "primary"
    words = [fold.primary().tokens(t.text) for t in primary]
    out = []
    main = [_phrase("words", w, last_prefix and i == len(words) - 1) for i, w in enumerate(words)]
    if all(words):
        out.append(Branch([*main, *bigram], "index_fts" if main else "index_bigram",
                          main or bigram, []))  # fmt: skip
    if primary:
        glued = []
        for text, star in _distinct(primary, last_prefix):
            tokens = fold.bigram().tokens(text)
            if not tokens:
                return out or None
            glued.append((tokens, star))
        cjk = _bigram_phrases(plan, True) or []
        scored = [*(_phrase("bigrams", t, star, beside=True) for t, star in glued), *cjk]
        found = scored
        if len(glued) == 1 and len(glued[0][0]) == 1:
            # one word: a row of this branch lacks it among its words (or has no words: a
            # mark), so its lexeme is the one marked beside CJK text alone, a short list
            # however common the word (the count of n_i still reads both: scored)
            found = [_phrase("bigrams", *glued[0]), *cjk]
        out.append(Branch(found, "index_bigram", scored, main if all(words) else []))
    return out or None


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


def _unless(phrases: list[Phrase]) -> Where:
    """Leaves out a row holding every one of ``phrases`` (another branch's row); NULL (a
    tsvector's test on a row without one) counts as not holding."""
    if not phrases:
        return Where("", [])
    indexed, unindexed = parts(phrases)
    return Where(
        f" AND NOT coalesce(({indexed.sql}) OR ({unindexed.sql}), false)",
        [*indexed.params, *unindexed.params],
    )


def holding(found: list[Phrase]) -> Where:
    """The rows of ocs_rows that hold every phrase of ``found``, as a FROM item ``r``."""
    return match([Branch(found, "", [], [])])


def match(bs: list[Branch]) -> Where:
    """The rows matching any of the (disjoint) branches, as a FROM item ``r``: each branch
    in both parts (parts()) as branches of a UNION ALL, not one OR: the planner then
    estimates the matches from the tsvector's statistics (an OR hid them: it drove the
    search from every session, issue 39)."""
    sql, params = [], list[Any]()
    rows = f"SELECT * FROM {S}.ocs_rows r WHERE"
    for b in bs:
        indexed, unindexed = parts(b.found)
        nt = _unless(b.unless)
        sql += [f"{rows} {indexed.sql}{nt.sql}", f"{rows} {unindexed.sql}{nt.sql}"]
        params += [*indexed.params, *nt.params, *unindexed.params, *nt.params]
    return Where(f"({' UNION ALL '.join(sql)}) r", params)


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


def score(b: Branch, tf: list[str] | None = None, dl: str | None = None) -> Where:
    """FTS5's bm25 of the branch's index, negated (higher is better), over ``weights`` w (a
    row per host and agent: avgdl, idf0, idf1, … in ``b.scored``'s order): sum of idf_i ·
    tf_i (k1 + 1) / (tf_i + k1 (1 - b + b dl / avgdl)), k1 = 1.2, b = 0.75 (SQLite's
    fts5_aux.c). Each tf_i counted in the row's words, or read from column ``tf[i]``; the
    length counted in them too, or read from column ``dl``."""
    terms, params = [], list[Any]()
    for i, p in enumerate(b.scored):
        tf_i = tf_sql(p) if tf is None else f"({tf[i]})::float8"
        # as fts5_aux.c computes it, operation by operation, in float8: the same bits
        norm = f"(0.25::float8 + 0.75::float8 * ({dl or dl_sql(b.fts)})::float8 / w.avgdl)"
        terms.append(f"(w.idf{i} * (({tf_i} * 2.2::float8) / ({tf_i} + 1.2::float8 * {norm})))")
        params += [doubled(p), doubled(p)] * 2 if tf is None else []
    return Where(" + ".join(terms) or "0", params)


def dl_sql(fts: str) -> str:
    """A row's length as the scoring index counts it: its primary tokens, or its bigram
    index tokens."""
    if fts == "index_fts":
        return "r.ntok"
    b = "coalesce(r.bigrams, ' ')"
    return f"(length({b}) - length(replace({b}, ' ', '')) - 1)"
