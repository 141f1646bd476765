"""User query → FTS5 expressions, with CJK routing (pure).

Every whitespace term becomes a quoted FTS5 phrase, so operators and punctuation are literal
text (upstream's rule). Runs of CJK-like script (cjk.py) are routed to the bigram index: a run
of 2+ characters is the phrase of its overlapping bigrams (exact substring match within a
run), one character is a prefix of the bigrams it starts (or the run's last one).

A phrase repeated in one query is run once (``fold``): FTS5 costs time quadratic in the
number of phrases of a row's matches (bm25 and snippet merge every phrase's positions), so
``the`` 1,000 times took minutes. ANDing a phrase with itself changes no hit, and bm25 is a sum
over phrases: the repeats are added back to the score (``QueryPlan.repeats``, read/search/fts.py)
so the scores stay upstream's, but for float rounding.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from operator import add as _add
from typing import NamedTuple

from openclaw_sessions.errors import UsageError

from .cjk import CJK_RUN, maybe_cjk
from .limits import MAX_QUERY_CHARS

_HAS_WORD = re.compile(r"\w")


def with_glued(plan: QueryPlan) -> QueryPlan:
    """``plan`` with, for each of its branches that seeks Latin words, the same words sought
    in the bigram index (index_bigram_text) among the rows the word index does not find them
    in: a word written against CJK text is found, the rows the word index finds keep their
    score."""
    latin = tuple(t.text for t in plan.terms if t.route == "primary")
    glued = []
    for p in plan.alternatives or (plan,):
        if p.primary is None:
            continue
        both = p.primary if p.bigram is None else f"({p.primary}) AND ({p.bigram})"
        left = p.primary if p.not_primary is None else f"({p.primary}) OR ({p.not_primary})"
        terms = p.cjk_terms + latin
        glued.append(QueryPlan(p.query, p.terms, None, both, terms, left, p.not_bigram))
    if not glued:
        return plan
    # the snippet of a row only the bigram index finds marks the words where they stand
    marks = tuple(dict.fromkeys(plan.cjk_terms + latin))
    return plan._replace(glued=tuple(glued), cjk_terms=marks)


def phrase(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


class Term(NamedTuple):
    text: str
    route: str  # "primary" | "bigram" | "ignored"


class QueryPlan(NamedTuple):
    """How a query runs: one FTS5 expression per index, ANDed together."""

    query: str
    terms: tuple[Term, ...]
    primary: str | None = None
    bigram: str | None = None
    cjk_terms: tuple[str, ...] = ()
    # The query language (query_lang.py): rows matching these are left out (`-word` with
    # nothing else to find on that index), the expression snippets mark (None: ``primary``),
    # and the alternatives of an OR across the two indexes (each a plan of its own).
    not_primary: str | None = None
    not_bigram: str | None = None
    highlight: str | None = None
    alternatives: tuple[QueryPlan, ...] = ()
    wanted: tuple[str, ...] = ()  # the words to find (not the -words); empty: every term
    # The Latin words of the plan sought in the bigram index too (with_glued): more branches.
    glued: tuple[QueryPlan, ...] = ()
    # Phrases of the driving expression the query held more than once, folded into one:
    # (index, phrase, extra copies), each copy's bm25 added back to the row's score.
    repeats: tuple[tuple[str, str, int], ...] = ()

    @property
    def empty(self) -> bool:
        return self.primary is None and self.bigram is None and not self.alternatives

    @property
    def branches(self) -> tuple[QueryPlan, ...]:
        """The plans whose matches together are this plan's (itself when it has no OR across
        the indexes), and its words written against CJK text (``glued``)."""
        return (*(self.alternatives or (self,)), *self.glued)


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def validate(query: str) -> str:
    # Control characters (NUL ends an FTS5 string) are separators; lone surrogates (from a
    # broken terminal or argv) cannot be encoded for SQLite and become U+FFFD.
    q = _CONTROL.sub(" ", query)
    q = q.encode("utf-8", "surrogatepass").decode("utf-8", "replace").strip()
    if not q:
        raise UsageError("query must not be empty")
    if len(q) > MAX_QUERY_CHARS:
        raise UsageError(f"query must not exceed {MAX_QUERY_CHARS} characters")
    return q


def split_scripts(term: str) -> list[Term]:
    """One whitespace term → its Latin-ish and CJK parts."""
    if not maybe_cjk(term):
        return [_latin(term)] if term else []
    return [  # the CJK runs are split's odd parts
        Term(unicodedata.normalize("NFC", part), "bigram") if i % 2 else _latin(part)
        for i, part in enumerate(re.split(CJK_RUN, term))
        if part
    ]


def _latin(text: str) -> Term:
    # A term with no word character has no token: upstream would match nothing at all.
    return Term(text, "primary" if _HAS_WORD.search(text) else "ignored")


# Up to this many phrases, snippets read upstream's own expression (repeats included: they
# weigh in FTS5's choice of the window); above it, the folded one (the snippet's cost is
# quadratic in the phrases' positions).
SNIPPET_PHRASES = 16


def build(query: str, *, prefix: bool = False, tokenize: Tokenize | None = None) -> QueryPlan:
    """Validate and route a query: upstream's terms, each distinct phrase run once
    (``tokenize``: what makes two phrases one, read/tokens.py; default ascii_tokens)."""
    q = validate(query)
    terms = [t for raw in q.split() for t in split_scripts(raw)]
    primary = [phrase(t.text) for t in terms if t.route == "primary"]
    if prefix and primary and terms and terms[-1].route == "primary":
        primary[-1] += "*"
    prim = fold([t for t in terms if t.route == "primary"], primary, tokenize or ascii_tokens)
    bigram = [bigram_phrase(t.text) for t in terms if t.route == "bigram"]
    big = fold([t for t in terms if t.route == "bigram"], bigram, ascii_tokens)
    driving = ("index_fts", prim) if prim else ("index_bigram", big)
    plan = QueryPlan(
        query=q,
        terms=tuple(terms),
        primary=" AND ".join(e for e, _ in prim) or None,
        bigram=" AND ".join(e for e, _ in big) or None,
        cjk_terms=tuple(dict.fromkeys(t.text for t in terms if t.route == "bigram")),
        highlight=" AND ".join(primary) if len(prim) < len(primary) <= SNIPPET_PHRASES else None,
        repeats=tuple((driving[0], e, n - 1) for e, n in driving[1] if n > 1),
    )
    return with_glued(plan)


def fold(terms: list[Term], exprs: list[str], tokenize: Tokenize) -> list[tuple[str, int]]:
    """Each distinct phrase of ``exprs`` (one per term, in order) once, with how many times it
    occurs: two primary phrases are one when the index's tokenizer makes the same tokens of
    them (``the``, ``The!``), two bigram ones when their runs are the same text."""
    keys: list[object]
    if terms and terms[0].route == "primary" and len(terms) > 1:
        toks = tokenize(t.text for t in terms)
        keys = [(k, e.endswith("*")) for k, e in zip(toks, exprs, strict=True)]
    else:
        keys = list(exprs)
    seen: dict[object, tuple[str, int]] = {}  # in first-seen order
    for key, expr in zip(keys, exprs, strict=True):
        first, n = seen.get(key, (expr, 0))
        seen[key] = (first, n + 1)
    return list(seen.values())


def ascii_tokens(texts: Iterable[str]) -> list[tuple[str, ...]]:
    """The pure, cautious fold key (read/tokens.py gives the index's own): an ASCII text is
    its runs of letters and digits, lowercased, as the index's tokenizer makes them; any
    other text is only itself."""
    return [
        tuple(re.findall("[a-z0-9]+", t.lower())) if t.isascii() else ("\x00" + t,) for t in texts
    ]


Tokenize = Callable[[Iterable[str]], list[tuple[str, ...]]]


def bigram_phrase(run: str) -> str:
    """A CJK run as an expression over the bigram column: its bigrams as one phrase (they are
    adjacent tokens exactly where the run occurs), a lone character as a prefix."""
    if len(run) == 1:
        return phrase(run) + "*"
    return phrase(" ".join(map(_add, run, run[1:])))


def distinct(terms: Sequence[Term], tokenize: Tokenize = ascii_tokens) -> list[Term]:
    """``terms`` with each one the index reads as another's left out (``the``, ``The!``)."""
    prim = [t for t in terms if t.route == "primary"]
    toks = dict(zip(prim, tokenize(t.text for t in prim), strict=True)) if len(prim) > 1 else {}
    seen: dict[object, Term] = {}
    for t in terms:
        seen.setdefault((t.route, toks.get(t, t.text)), t)
    return list(seen.values())
