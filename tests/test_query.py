"""Query building: quoting, operators as text, prefix, CJK routing, validation."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openclaw_sessions import query
from openclaw_sessions.errors import UsageError


def test_terms_are_quoted_and_anded() -> None:
    p = query.build('deploy "prod" OR NOT')
    assert p.primary == '"deploy" AND """prod""" AND "OR" AND "NOT"'


def test_prefix_only_on_last_term() -> None:
    assert query.build("kube dep", prefix=True).primary == '"kube" AND "dep"*'


def test_validation() -> None:
    with pytest.raises(UsageError, match="must not be empty"):
        query.build("   ")
    with pytest.raises(UsageError, match="exceed 4096"):
        query.build("a" * 4097)
    assert query.build("  a  ").query == "a"


def test_cjk_routing() -> None:
    p = query.build("deploy 量子猫 猫 量子")
    assert p.primary == '"deploy"'
    assert p.trigram == '"量子猫"'
    assert p.bigram == '"猫"* AND "量子"'
    mixed = query.build("deploy量子猫")
    assert mixed.primary == '"deploy"' and mixed.trigram == '"量子猫"'


def test_hangul_and_thai_route_like_cjk() -> None:
    assert query.build("텔레메트리").trigram == '"텔레메트리"'
    assert query.build("สวัสดี").trigram is not None


def test_bigram_text() -> None:
    assert query.cjk_bigram_text("abc 量子猫 x 猫") == "量子 子猫 猫 猫"
    assert query.cjk_bigram_text("latin only") is None


def test_punctuation_only_terms_are_ignored() -> None:
    p = query.build("deploy - (")
    assert p.primary == '"deploy"'
    assert query.build("( -").empty


@settings(max_examples=300, deadline=None)
@given(st.text(min_size=1, max_size=60))
def test_no_query_raises_an_fts_error(q: str) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE f USING fts5(t, tokenize='unicode61 remove_diacritics 2')")
    conn.execute("CREATE VIRTUAL TABLE g USING fts5(t, tokenize='trigram')")
    conn.execute("INSERT INTO f VALUES ('hello world')")
    try:
        p = query.build(q, prefix=True)
    except UsageError:
        return
    for table, expr in (("f", p.primary), ("g", p.trigram), ("f", p.bigram)):
        if expr is not None:
            conn.execute(f"SELECT * FROM {table} WHERE {table} MATCH ?", (expr,)).fetchall()
