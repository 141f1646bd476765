"""Query building: quoting, operators as text, prefix, CJK routing, validation."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openclaw_sessions.errors import UsageError
from openclaw_sessions.policy import cjk, fts_query


def test_terms_are_quoted_and_anded() -> None:
    p = fts_query.build('deploy "prod" OR NOT')
    assert p.primary == '"deploy" AND """prod""" AND "OR" AND "NOT"'


def test_prefix_only_on_last_term() -> None:
    assert fts_query.build("kube dep", prefix=True).primary == '"kube" AND "dep"*'


def test_validation() -> None:
    with pytest.raises(UsageError, match="must not be empty"):
        fts_query.build("   ")
    with pytest.raises(UsageError, match="exceed 4096"):
        fts_query.build("a" * 4097)
    assert fts_query.build("  a  ").query == "a"


def test_cjk_routing() -> None:
    p = fts_query.build("deploy 量子猫 猫 量子")
    assert p.primary == '"deploy"'
    assert p.bigram == '"量子 子猫" AND "猫"* AND "量子"'
    mixed = fts_query.build("deploy量子猫")
    assert mixed.primary == '"deploy"'
    assert mixed.bigram == '"量子 子猫"'


def test_hangul_and_thai_route_like_cjk() -> None:
    assert fts_query.build("텔레메트리").bigram == '"텔레 레메 메트 트리"'
    assert fts_query.build("สวัสดี").bigram is not None


def test_a_bigram_phrase_finds_exactly_the_substrings_within_runs() -> None:
    """What the dropped trigram index found, the bigram phrase finds: no more, no less."""
    docs = [
        "数据库连接超时",
        "数据 库",
        "库数据",
        "连接数据库",
        "数据库",
        "データベース接続",
        "数据",
    ]
    conn = sqlite3.connect(":memory:")
    conn.execute(
        'CREATE VIRTUAL TABLE b USING fts5(cjk, tokenize="unicode61 remove_diacritics 0'
        " categories 'L* N* Co M*'\")"
    )
    for i, d in enumerate(docs):
        conn.execute("INSERT INTO b(rowid, cjk) VALUES (?, ?)", (i, cjk.cjk_bigram_text(d)))
    for term in (
        "数据库",
        "据库",
        "数据",
        "库",
        "数据库连接",
        "ベース",
        "データベース接続",
        "库数",
    ):
        got = {r[0] for r in conn.execute("SELECT rowid FROM b WHERE b MATCH ?",
                                          (fts_query.build(term).bigram,))}  # fmt: skip
        want = {i for i, d in enumerate(docs) if any(term in run for run in d.split())}
        assert got == want, term


def test_bigram_text() -> None:
    assert cjk.cjk_bigram_text("abc 量子猫 x 猫") == "量子 子猫 猫 猫"
    assert cjk.cjk_bigram_text("latin only") is None


def test_punctuation_only_terms_are_ignored() -> None:
    p = fts_query.build("deploy - (")
    assert p.primary == '"deploy"'
    assert fts_query.build("( -").empty


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.text(min_size=1, max_size=60))
def test_no_query_raises_an_fts_error(q: str) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE f USING fts5(t, tokenize='unicode61 remove_diacritics 2')")
    conn.execute(
        'CREATE VIRTUAL TABLE g USING fts5(t, tokenize="unicode61 remove_diacritics 0'
        " categories 'L* N* Co M*'\")"
    )
    conn.execute("INSERT INTO f VALUES ('hello world')")
    try:
        p = fts_query.build(q, prefix=True)
    except UsageError:
        return
    for table, expr in (("f", p.primary), ("g", p.bigram)):
        if expr is not None:
            conn.execute(f"SELECT * FROM {table} WHERE {table} MATCH ?", (expr,)).fetchall()
