"""The central database matches what FTS5 matches: a text's folded words and CJK bigram
tokens (remote/fold.py, remote/rows.py) and a query's phrases (remote/query.py) agree with
SQLite's own unicode61 tokenizers on any text, accents, case, scripts and punctuation mixed
(no server needed: the phrases are checked as the SQL checks them, a substring of whole
tokens)."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openclaw_sessions.errors import UsageError
from openclaw_sessions.policy import fts_query
from openclaw_sessions.policy.cjk import index_bigram_text
from openclaw_sessions.remote import fold
from openclaw_sessions.remote.query import Phrase, branches
from openclaw_sessions.remote.rows import fold_text, lexeme

CHARS = (
    list("aAeEéÉèçÇñÑöÖüÜßİıǅﬁ²ⅫдДйЙёΩωσς")
    + list("数据問題日本語한국어ภาษาไทย・ー々〇")
    + list(" -_.,:;'\"*()[]!?/\\@#%&+=~\u0301\u0308\u200b\t\x00\ufffd\ue000")
)
TEXTS = st.text(alphabet=st.sampled_from(CHARS), min_size=0, max_size=30)


def _fts() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE p USING fts5(t, tokenize='{fold.PRIMARY_TOKENIZER}')")
    quoted = fold.BIGRAM_TOKENIZER.replace('"', '""')
    conn.execute(f'CREATE VIRTUAL TABLE b USING fts5(t, tokenize="{quoted}")')
    return conn


def _sqlite_matches(conn: sqlite3.Connection, text: str, plan: fts_query.QueryPlan) -> bool:
    conn.execute("DELETE FROM p")
    conn.execute("DELETE FROM b")
    conn.execute("INSERT INTO p(rowid, t) VALUES (1, ?)", (text,))
    cjk = index_bigram_text(text)  # what the local bigram index holds
    if cjk is not None:
        conn.execute("INSERT INTO b(rowid, t) VALUES (1, ?)", (cjk,))

    def hit(table: str, expr: str | None) -> bool:
        return bool(
            conn.execute(f"SELECT 1 FROM {table} WHERE {table} MATCH ?", (expr,)).fetchall()
        )

    def branch(p: fts_query.QueryPlan) -> bool:
        """One branch (fts_query.with_glued adds one seeking the Latin words in b)."""
        ok = (p.primary is None or hit("p", p.primary)) and (p.bigram is None or hit("b", p.bigram))
        ok = ok and (p.not_primary is None or not hit("p", p.not_primary))
        return ok and (p.not_bigram is None or not hit("b", p.not_bigram)) and not p.empty

    return any(branch(p) for p in plan.branches)


def _central_matches(text: str, plan: fts_query.QueryPlan, prefix: bool) -> bool:
    """What query.match's SQL decides for this text: a branch whose phrases the row holds
    and whose ``unless`` phrases it does not all hold; a row holds phrases by the tsvector
    (`@@`, every operand) and the phrases it cannot decide alone on the folded text, or,
    without a tsvector, by the folded text alone."""
    bs = branches(plan, prefix)
    if bs is None:
        return False
    f = fold_text(text)

    def has(p: Phrase) -> bool:
        return p.needle in (f.words if p.column == "words" else (f.bigrams or ""))

    lexemes = set(f.tsv.split(" ")) if f.tsv is not None else set()

    def operand(op: str) -> bool:
        if op.startswith("(") and op.endswith(")"):  # (a | b)
            return any(operand(o) for o in op[1:-1].split(" | "))
        if op.endswith(":*"):
            return any(lex.startswith(op[:-3]) for lex in lexemes)
        return op in lexemes

    def holds(found: list[Phrase]) -> bool:
        if f.tsv is None:
            return all(has(p) for p in found)
        tsv_ok = all(operand(op) for p in found for op in p.lexemes)
        checked = all(has(p) for p in found if not p.exact)
        if tsv_ok and checked:
            assert all(has(p) for p in found), text  # the shortcut agrees with the folded text
        return tsv_ok and checked

    return any(holds(b.found) and not (b.unless and holds(b.unless)) for b in bs)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(doc=TEXTS, query=TEXTS, prefix=st.booleans())
def test_central_matching_is_fts5_matching(doc: str, query: str, prefix: bool) -> None:
    try:
        plan = fts_query.build(query, prefix=prefix)
    except UsageError:
        return
    doc = doc.replace("\x00", "\ufffd")  # as push stores it (PostgreSQL holds no NUL)
    conn = _fts()
    assert _central_matches(doc, plan, prefix) == _sqlite_matches(conn, doc, plan), (doc, query)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(doc=TEXTS)
def test_a_text_and_its_words_match_themselves(doc: str) -> None:
    """Every word of a text, asked for (also as a prefix), matches as FTS5 matches it."""
    for word in doc.split():
        test_central_matching_is_fts5_matching.hypothesis.inner_test(doc, word, False)  # type: ignore[attr-defined]
        test_central_matching_is_fts5_matching.hypothesis.inner_test(doc, word, True)  # type: ignore[attr-defined]


def test_folding_examples() -> None:
    p = fold.primary()
    assert p.tokens("Déjà-vu İstanbul STRASSE straße e\u0301") == [
        "deja", "vu", "istanbul", "strasse", "straße", "e",
    ]  # fmt: skip
    assert p.tokens("abc漢字def x_y") == ["abc漢字def", "x", "y"]
    assert lexeme("it's") == "'it''s'"
    assert lexeme("a\\b") == "'a\\\\b'"
    assert len(lexeme("x" * 500)) == 102


@pytest.mark.parametrize(
    "doc, query",
    [
        ("èท", "E"),  # a word beside CJK text keeps its accent there: local finds no "e"
        ("èท", "è"),
        ("\u0301ท", "\u0301"),  # a mark: no word of the word index, a token of the bigram one
        ("修改youer服务端", "youer"),
        ("修改youer服务端", "youer 服务"),
        ("deploy 修改 deploy", "deploy"),  # the word index finds it: not the bigram branch's
        ("migration 迁移 timeout", "migration timeout"),
        ("migration 迁移 timeout", "migration-timeout"),  # a CJK run breaks the phrase
    ],
)
def test_words_beside_cjk_text(doc: str, query: str) -> None:
    for prefix in (False, True):
        plan = fts_query.build(query, prefix=prefix)
        assert _central_matches(doc, plan, prefix) == _sqlite_matches(_fts(), doc, plan), prefix


HUGE = " ".join(f"w{i:07d}" for i in range(60_000))


@pytest.mark.parametrize(
    "doc, query, prefix",
    [
        ("a" * 120 + " b", "a" * 120, False),
        ("a" * 120 + " b", "a" * 110, True),
        ("a" * 120 + " b", "a" * 110, False),
        ("a" * 100 + "z b", "a" * 100 + "y", False),
        ("a" * 100 + "z b", "a" * 100, True),
        (HUGE, "w0000007-w0000008", False),  # no tsvector: the folded text alone decides
        (HUGE, "w0000008-w0000007", False),
        (HUGE, "w005999", True),
    ],
)
def test_long_tokens_and_huge_rows(doc: str, query: str, prefix: bool) -> None:
    plan = fts_query.build(query, prefix=prefix)
    assert (fold_text(doc).tsv is None) == (doc is HUGE)
    assert _central_matches(doc, plan, prefix) == _sqlite_matches(_fts(), doc, plan)
