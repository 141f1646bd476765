"""The central database matches what FTS5 matches: a text's folded words and CJK bigram
tokens (remote/fold.py, remote/rows.py) and a query's phrases (remote/query.py) agree with
SQLite's own unicode61 tokenizers on any text, accents, case, scripts and punctuation mixed
(no server needed: the phrases are checked as the SQL checks them, a substring of whole
tokens)."""

from __future__ import annotations

import sqlite3

from hypothesis import given, settings
from hypothesis import strategies as st

from openclaw_sessions.errors import UsageError
from openclaw_sessions.policy import fts_query
from openclaw_sessions.remote import fold
from openclaw_sessions.remote.query import phrases
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
    cjk = fts_query.cjk_bigram_text(text)
    if cjk is not None:
        conn.execute("INSERT INTO b(rowid, t) VALUES (1, ?)", (cjk,))
    ok = True
    if plan.primary is not None:
        ok = ok and bool(
            conn.execute("SELECT 1 FROM p WHERE p MATCH ?", (plan.primary,)).fetchall()
        )
    if plan.bigram is not None:
        ok = ok and bool(conn.execute("SELECT 1 FROM b WHERE b MATCH ?", (plan.bigram,)).fetchall())
    return ok and not plan.empty


def _central_matches(text: str, plan: fts_query.QueryPlan, prefix: bool) -> bool:
    found = phrases(plan, prefix)
    if found is None:
        return False
    f = fold_text(text)
    for p in found:
        hay = f.words if p.column == "words" else (f.bigrams or "")
        if p.needle not in hay:
            return False
        # the tsvector prefilter (GIN) never drops a real match
        lexemes = set((f.tsv or "").split(" ")) if f.tsv else None
        for op in p.lexemes:
            if lexemes is not None and not op.endswith(":*"):
                assert op in lexemes, (op, text)
    return True


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
    assert lexeme("it's") == "'it''s'" and lexeme("a\\b") == "'a\\\\b'"
    assert len(lexeme("x" * 500)) == 102
