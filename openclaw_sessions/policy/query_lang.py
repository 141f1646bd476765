"""The operator's query language → FTS5 plans (pure).

``"exact phrase"``, ``a OR b``, ``-word`` (leave out), ``word*`` (prefix), parentheses, and
implicit AND between terms, which binds tighter than OR, as in FTS5's own syntax (NOT, then
AND, then OR): ``a OR b c`` is ``a OR (b c)``. Anything else is literal text, as upstream's
terms are: a word that is not an operator (``NOT``, ``NEAR``, ``col:x``, ``^x``) is a phrase,
punctuation never errors (an unbalanced parenthesis or quote closes at the end, a stray ``)``
or a dangling ``OR`` is ignored or literal). CJK runs go to the bigram index inside every
operator (a phrase is its Latin parts as phrases and its CJK runs as substrings, ANDed).

Parts of the query on one index become one FTS5 expression; an OR across the two indexes
becomes alternatives (at most ``MAX_ALTERNATIVES``), each a plan of its own whose matches are
unioned. A ``-word`` with nothing else to find on its index becomes a filter that leaves out
the rows matching it. A query (or alternative) that only excludes finds its words instead, as
upstream's literal terms would (``-v`` finds ``v``): never an error.

The work is bounded by the query's size: a part repeated in an AND or an OR is kept once (the
same rows match; the index's tokenizer decides what is the same word, so ``the`` and ``The!``
are one), and a query deeper than ``MAX_DEPTH`` parentheses or ``-``, with more than
``MAX_TERMS`` distinct words, or relaxed (--relax) over more than ``MAX_RELAX_PARTS`` parts is a
usage error that says so.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import NamedTuple

from openclaw_sessions.errors import UsageError

from .fts_query import (
    QueryPlan,
    Term,
    Tokenize,
    ascii_tokens,
    bigram_phrase,
    phrase,
    split_scripts,
    validate,
    with_glued,
)

MAX_ALTERNATIVES = 16
MAX_DEPTH = 32  # parentheses and `-` nested in one another
MAX_TERMS = 128  # distinct words, once repeats are folded
MAX_RELAX_PARTS = 16  # --relax: its ways hold parts x (parts - 1) words
_SPECIAL = '()"'


class _Tok(NamedTuple):
    kind: str  # word | phrase | or | neg | lp | rp
    text: str = ""


class Leaf(NamedTuple):
    route: str  # "primary" | "bigram"
    expr: str
    text: str


class Node(NamedTuple):
    op: str  # "and" | "or" | "not"
    kids: tuple[Node | Leaf, ...]


Expr = Node | Leaf


def lex(q: str) -> list[_Tok]:
    out: list[_Tok] = []
    i, n = 0, len(q)
    while i < n:
        c = q[i]
        if c.isspace():
            i += 1
        elif c == '"':
            end = q.find('"', i + 1)
            end = n if end < 0 else end
            out.append(_Tok("phrase", q[i + 1 : end]))
            i = end + 1
        elif c in "()":
            out.append(_Tok("lp" if c == "(" else "rp"))
            i += 1
        else:
            j = i
            while j < n and not q[j].isspace() and q[j] not in _SPECIAL:
                j += 1
            word = q[i:j]
            if word == "-" and j < n and q[j] in '("':
                out.append(_Tok("neg"))
            elif word.startswith("-") and len(word) > 1 and not (i and q[i - 1] in '")'):
                # (a "-" right after a closing quote or parenthesis is text, not an operator)
                out += [_Tok("neg"), _Tok("word", word[1:])]
            else:
                out.append(_Tok("or" if word == "OR" else "word", word))
            i = j
    return out


class _Parser:
    def __init__(self, toks: list[_Tok]) -> None:
        self.toks = toks
        self.i = 0
        self.depth = 0

    def peek(self) -> _Tok | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def parse(self) -> Expr | None:
        out = self.or_expr()
        while self.peek() is not None:  # a stray ')': skip it, go on
            self.i += 1
            out = _join("and", [out, self.or_expr()])
        return out

    def or_expr(self) -> Expr | None:
        """The space between terms binds tighter than OR, as in FTS5 (NOT, then AND, then
        OR): ``a OR b c`` is ``a OR (b c)``."""
        parts = [self.and_expr()]
        while (t := self.peek()) is not None and t.kind == "or":
            self.i += 1
            parts.append(self.and_expr())
        return _join("or", parts)

    def and_expr(self) -> Expr | None:
        parts: list[Expr | None] = []
        while (t := self.peek()) is not None and t.kind != "rp":
            if t.kind == "or" and parts and self._operand_follows():
                break  # an OR between two operands: or_expr's
            parts.append(self.unary())  # a leading, trailing or doubled OR: the word itself
        return _join("and", parts)

    def _nested(self, parse: Callable[[], Expr | None]) -> Expr | None:
        """One level deeper (a parenthesis or a `-`): the tree's depth is bounded, so nothing
        that walks it recurses past Python's limit."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise UsageError(
                f"query nests parentheses or '-' deeper than {MAX_DEPTH} levels",
                hint="flatten the query, or use --literal",
            )
        try:
            return parse()
        finally:
            self.depth -= 1

    def _operand_follows(self) -> bool:
        return self.i + 1 < len(self.toks) and self.toks[self.i + 1].kind not in ("or", "rp")

    def unary(self) -> Expr | None:
        t = self.peek()
        assert t is not None
        if t.kind == "neg":
            self.i += 1
            if (nxt := self.peek()) is None or nxt.kind == "rp":
                return None
            inner = self._nested(self.unary)
            return None if inner is None else Node("not", (inner,))
        self.i += 1
        if t.kind == "lp":
            inner = self._nested(self.or_expr)
            if (r := self.peek()) is not None and r.kind == "rp":
                self.i += 1
            return inner
        if t.kind == "phrase":
            return _join("and", list(_leaves(t.text, prefix=False)))
        text = "OR" if t.kind == "or" else t.text  # an OR with no operand: a word
        prefix = len(text) > 1 and text.endswith("*")
        return _join("and", list(_leaves(text.rstrip("*") if prefix else text, prefix=prefix)))


def _join(op: str, parts: list[Expr | None]) -> Expr | None:
    kept = [p for p in parts if p is not None]
    if not kept:
        return None
    return kept[0] if len(kept) == 1 else Node(op, tuple(kept))


def _leaves(text: str, *, prefix: bool) -> list[Leaf]:
    out = []
    parts = split_scripts(text)
    for k, t in enumerate(parts):
        if t.route == "primary":
            expr = phrase(t.text.strip())
            if prefix and k == len(parts) - 1:
                expr += "*"
            out.append(Leaf("primary", expr, t.text.strip()))
        elif t.route == "bigram":
            out.append(Leaf("bigram", bigram_phrase(t.text), t.text))
    return out


class _Branch(NamedTuple):
    pos: tuple[Leaf, ...] = ()
    neg: tuple[Leaf, ...] = ()


def _single(e: Expr) -> Leaf | None:
    """A positive part on one index as one FTS5 expression, else None."""
    if isinstance(e, Leaf):
        return e
    if e.op == "not":
        return None
    kids = [_single(k) for k in e.kids]
    if any(k is None for k in kids) or len({k.route for k in kids if k}) != 1:
        return None
    sep = " AND " if e.op == "and" else " OR "
    leaves = [k for k in kids if k is not None]
    expr = "(" + sep.join(k.expr for k in leaves) + ")"
    return Leaf(leaves[0].route, expr, " ".join(k.text for k in leaves))


def _negate(e: Expr) -> Expr:
    if isinstance(e, Leaf):
        return Node("not", (e,))
    if e.op == "not":
        return e.kids[0]
    return Node("or" if e.op == "and" else "and", tuple(_negate(k) for k in e.kids))


def _dnf(e: Expr) -> list[_Branch]:
    one = _single(e)
    if one is not None:
        return [_Branch(pos=(one,))]
    assert isinstance(e, Node)
    if e.op == "not":
        inner = _single(e.kids[0])
        if inner is not None:
            return [_Branch(neg=(inner,))]
        return _dnf(_negate(e.kids[0]))
    if e.op == "or":
        out = [b for k in e.kids for b in _dnf(k)]
    else:
        out = [_Branch()]
        for k in e.kids:
            out = [
                _Branch(a.pos + b.pos, a.neg + b.neg) for a, b in itertools.product(out, _dnf(k))
            ]
            _check(len(out))
    _check(len(out))
    return out


def _check(n: int) -> None:
    if n > MAX_ALTERNATIVES:
        raise UsageError(
            "query is too complex (too many OR alternatives across Latin and CJK words)",
            hint="group the words of one script together, or use --literal",
        )


def _plan(q: str, b: _Branch, terms: tuple[Term, ...]) -> QueryPlan:
    if not b.pos:  # nothing to find, only to leave out: the words as upstream reads them
        b = _Branch(pos=b.neg)

    def side(index: str) -> tuple[str | None, str | None]:
        pos = [x.expr for x in b.pos if x.route == index]
        neg = [x.expr for x in b.neg if x.route == index]
        if not pos:
            return None, " OR ".join(neg) or None
        expr = " AND ".join(pos)
        return (f"({expr}) NOT ({' OR '.join(neg)})" if neg else expr), None

    primary, not_primary = side("primary")
    bigram, not_bigram = side("bigram")
    marks = [x.expr for x in b.pos if x.route == "primary"]
    return QueryPlan(
        query=q,
        terms=terms,
        primary=primary,
        bigram=bigram,
        cjk_terms=tuple(w for x in b.pos if x.route == "bigram" for w in x.text.split()),
        not_primary=not_primary,
        not_bigram=not_bigram,
        highlight=" OR ".join(marks) or None,
    )


def _all_leaves(e: Expr | None, *, wanted: bool = False) -> list[Leaf]:
    """Every word of the query (``wanted``: only those to find, not the ones left out)."""
    if e is None:
        return []
    if isinstance(e, Leaf):
        return [e]
    if wanted and e.op == "not":
        return []
    return [x for k in e.kids for x in _all_leaves(k, wanted=wanted)]


def _tree(query: str, prefix: bool, tokenize: Tokenize | None) -> tuple[str, Expr | None]:
    q = validate(query)
    toks = lex(q)
    if prefix:
        last = max((i for i, t in enumerate(toks) if t.kind == "word"), default=None)
        if last is not None and not toks[last].text.endswith("*"):
            toks[last] = _Tok("word", toks[last].text + "*")
    tree = _fold(_Parser(toks).parse(), tokenize or ascii_tokens)
    if len(set(_all_leaves(tree))) > MAX_TERMS:
        raise UsageError(
            f"query has more than {MAX_TERMS} distinct words",
            hint="search for fewer words, or use --literal",
        )
    return q, tree


def _fold(tree: Expr | None, tokenize: Tokenize) -> Expr | None:
    """The tree with each part repeated under one AND or OR kept once (A AND A is A), two
    words being the same when the index's tokenizer makes the same tokens of them."""
    leaves = [x for x in _all_leaves(tree) if x.route == "primary"]
    canon = dict(zip(leaves, tokenize(x.text for x in leaves), strict=True)) if leaves else {}

    def key(e: Expr) -> object:
        if isinstance(e, Leaf):
            return (e.route, canon.get(e, e.text), e.expr.endswith("*"))
        return (e.op, tuple(key(k) for k in e.kids))

    def walk(e: Expr) -> tuple[Expr, object]:
        if isinstance(e, Leaf):
            return e, key(e)
        kept: dict[object, Expr] = {}
        for kid in e.kids:
            folded, k = walk(kid)
            kept.setdefault(k, folded)
        kids = tuple(kept.values())
        out = kids[0] if len(kids) == 1 and e.op != "not" else Node(e.op, kids)
        return out, (out.op, tuple(kept)) if isinstance(out, Node) else key(out)

    return None if tree is None else walk(tree)[0]


def build(query: str, *, prefix: bool = False, tokenize: Tokenize | None = None) -> QueryPlan:
    """Validate and parse an operator query (``prefix``: its last word is a prefix too;
    ``tokenize``: what makes two words one, fts_query.build)."""
    q, tree = _tree(query, prefix, tokenize)
    return _planned(q, tree, tuple(Term(x.text, x.route) for x in _all_leaves(tree)))


def relaxed(query: str, tokenize: Tokenize | None = None) -> QueryPlan | None:
    """--relax: the query with one of its parts left out, each way in turn (a word, a phrase
    or a parenthesised group is one part; the -words stay out of every way). None: fewer than
    two parts to find, nothing to relax."""
    q, tree = _tree(query, False, tokenize)
    parts = list(dict.fromkeys(_and_parts(tree)))
    neg = [p for p in parts if isinstance(p, Node) and p.op == "not"]
    pos = [p for p in parts if p not in neg]
    if len(pos) < 2:
        return None
    check_relax(len(pos))
    ways = [_join("and", [p for j, p in enumerate(pos) if j != i]) for i in range(len(pos))]
    loose = _join("and", [_join("or", list(ways)), *neg])
    terms = tuple(dict.fromkeys(Term(x.text, x.route) for x in _all_leaves(loose)))
    return _planned(q, loose, terms)


def check_relax(parts: int) -> None:
    """--relax over ``parts`` parts: each of its ways leaves one out, so its size is the square
    of theirs; above ``MAX_RELAX_PARTS`` it is refused."""
    if parts > MAX_RELAX_PARTS:
        raise UsageError(
            f"--relax takes at most {MAX_RELAX_PARTS} words or groups (this query has {parts})",
            hint="group words in parentheses (a group is one part), or search without --relax",
        )


def _and_parts(e: Expr | None) -> list[Expr]:
    if isinstance(e, Node) and e.op == "and":
        return [x for k in e.kids for x in _and_parts(k)]
    return [] if e is None else [e]


def _planned(q: str, tree: Expr | None, terms: tuple[Term, ...]) -> QueryPlan:
    if tree is None:
        return QueryPlan(q, terms)
    plans = tuple(_plan(q, b, terms) for b in _dnf(tree))
    wanted = tuple(dict.fromkeys(x.text for x in _all_leaves(tree, wanted=True)))
    if len(plans) == 1:
        return with_glued(plans[0]._replace(wanted=wanted))
    return with_glued(
        QueryPlan(
            q,
            terms,
            cjk_terms=tuple(w for p in plans for w in p.cjk_terms),
            highlight=" OR ".join(p.highlight for p in plans if p.highlight) or None,
            alternatives=plans,
            wanted=wanted,
        )
    )
