"""Issue #34 point 2: one query's work is bounded by its size, whatever the caller.

Each group asserts the work done (phrases in the FTS5 expression, statements run, lines
scanned), never time: repeated terms are folded (the agent's scores stay upstream's sum over
its phrases), nesting, distinct words and --relax are capped with a usage error (exit 2), and
--explain reads the stored lines once for all its absent terms.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from helpers import Session, json_out, run_cli, write_sessions_json

from openclaw_sessions.errors import UsageError
from openclaw_sessions.policy import fts_query, query_lang
from openclaw_sessions.read.tokens import tokens

TEXTS = {
    "a": "the cat sat on the mat while the dog slept",
    "b": "the cat and the other cat",
    "c": "a cat alone, no article here",
    "d": "the the the the the cat",
    "e": "dog only",
}


def _store(tmp_path: Path) -> None:
    src = tmp_path / "src" / "agents" / "main" / "sessions"
    for name, text in TEXTS.items():
        s = Session(name)
        s.user(text)
        s.assistant(f"{text} and more of the cat")
        s.write(src / f"{name}.jsonl")
    write_sessions_json(src, {f"agent:main:{k}": {"sessionId": k} for k in TEXTS})
    assert run_cli("import", str(tmp_path / "src"), "--reindex", "--quiet").exit_code == 0


# -- agent mode: folding keeps upstream's answer ---------------------------------------------


def test_a_repeated_term_is_one_phrase_with_its_count() -> None:
    plan = fts_query.build(" ".join(["the"] * 1000), tokenize=tokens)
    assert plan.primary == '"the"'
    assert plan.repeats == (("index_fts", '"the"', 999),)
    # the tokenizer decides what is the same phrase: case and punctuation fold
    mixed = fts_query.build("the The! cat the? (the cat", tokenize=tokens)
    assert mixed.primary == '"the" AND "cat"'
    assert {e: n for _, e, n in mixed.repeats} == {'"the"': 3, '"cat"': 1}
    # the index's tokens, not an imitation: accents and non-ASCII punctuation fold too
    assert fts_query.build("the¡ thé «the»", tokenize=tokens).primary == '"the¡"'
    # the pure default only folds what surely is one word (ASCII case and punctuation)
    assert fts_query.build("the The! the¡").primary == '"the" AND "the¡"'
    assert len(mixed.terms) == 6  # the terms stay upstream's, for --explain and batches
    # a prefix is another phrase; distinct phrases are not folded
    assert fts_query.build("dep dep", prefix=True).primary == '"dep" AND "dep"*'
    assert fts_query.build("a b c").repeats == ()


def test_agent_scores_are_upstreams_unfolded_statement(tmp_path: Path, state: Path) -> None:
    """--as runs the folded query; its hits, order and scores are those of upstream's own
    statement (every term a phrase, ANDed, bm25) up to float rounding."""
    _store(tmp_path)
    conn = sqlite3.connect(state / "agents" / "main" / "openclaw-sessions.sqlite")
    for q in ("the the cat", "cat the the the cat", "the " * 40 + "dog"):
        upstream = " AND ".join(f'"{t}"' for t in q.split())
        want = dict(
            conn.execute(
                "SELECT t.session_key || ' ' || r.message_id, -bm25(index_fts) FROM index_fts"
                " JOIN index_rows r ON r.row_id = index_fts.rowid JOIN transcripts t"
                " ON t.transcript_id = r.transcript_id WHERE index_fts MATCH ?",
                (upstream,),
            ).fetchall()
        )
        for order in ("relevance", "recent"):
            r = run_cli("search", q, "--as", "agent:main:a", "--json", "--order", order,
                        "--limit", "25")  # fmt: skip
            hits = json_out(r)["results"]
            got = {f"{h['sessionKey']} {h['messageId']}": h["score"] for h in hits}
            assert got, q
            assert got == pytest.approx({k: want[k] for k in got}, rel=1e-12), (q, order)
            if order == "relevance":  # best first, as upstream orders
                assert list(got.values()) == sorted(got.values(), reverse=True)


# -- operator mode: folded, and capped with a usage error ------------------------------------


def test_operator_query_folds_repeats_in_and_and_or() -> None:
    assert query_lang.build(" ".join(["the"] * 1000)).primary == '"the"'
    assert query_lang.build("the The! (the OR thé?) cat", tokenize=tokens).primary == (
        '("the" AND "cat")'
    )
    assert query_lang.build("a OR a OR b").primary == '("a" OR "b")'


def test_nesting_and_distinct_words_are_capped(tmp_path: Path) -> None:
    _store(tmp_path)
    for q in ("(" * 400 + "x", "-(" * 200 + "x", "(" * (query_lang.MAX_DEPTH + 1) + "x"):
        r = run_cli("search", "--", q)
        assert r.exit_code == 2, r.stdout
        assert r.stderr.startswith("error: query nests parentheses")
        assert r.stderr.count("\n") == 1
    assert query_lang.build("(" * query_lang.MAX_DEPTH + "x").primary == '"x"'
    many = " ".join(f"w{i}" for i in range(query_lang.MAX_TERMS + 1))
    r = run_cli("search", many)
    assert r.exit_code == 2
    assert "distinct words" in r.stderr
    # --literal (and --as) keep upstream's terms: no cap there, the repeats fold
    assert run_cli("search", many, "--literal").exit_code == 1
    assert run_cli("search", "(" * 400 + "x", "--literal").exit_code == 1


def test_relax_is_capped_and_its_plan_bounded(tmp_path: Path) -> None:
    _store(tmp_path)
    words = " ".join(f"w{i}" for i in range(query_lang.MAX_RELAX_PARTS + 1))
    r = run_cli("search", words, "--relax")
    assert r.exit_code == 2
    assert "--relax takes at most" in r.stderr
    # without --relax the same query is just a search (nothing relaxable is offered)
    r = run_cli("search", words, "--json")
    assert r.exit_code == 1
    assert "--relax" not in json_out(r)["absence"].get("lift", [])
    with pytest.raises(UsageError):
        query_lang.relaxed(words)
    plan = query_lang.relaxed(" ".join(f"w{i}" for i in range(query_lang.MAX_RELAX_PARTS)))
    assert plan is not None
    assert plan.primary is not None
    n = query_lang.MAX_RELAX_PARTS
    assert plan.primary.count('"') == 2 * n * (n - 1)  # parts x (parts - 1) phrases
    # repeated words are one part: "cat cat cat dog" relaxes over two parts
    loose = query_lang.relaxed("cat cat cat zzz")
    assert loose is not None
    assert loose.primary == '("zzz" OR "cat")'


# -- --explain: one scan of the stored lines for every absent term -----------------------------


def test_explain_scans_stored_lines_once_for_all_absent_terms(tmp_path: Path, state: Path) -> None:
    from openclaw_sessions.read.scope import OPERATOR_VISIBLE, register
    from openclaw_sessions.read.search import why as ex
    from openclaw_sessions.redact import Redactor
    from openclaw_sessions.store.db import open_store

    _store(tmp_path)
    terms = " ".join(f"absent{i}" for i in range(200)) + " absent0 ABSENT0"
    plan = fts_query.build(terms, tokenize=tokens)
    with open_store(state, "main") as conn:
        register(conn, "main", None)
        scans: list[str] = []
        conn.set_trace_callback(lambda s: scans.append(s) if "FROM events e" in s else None)
        got = ex.explain(conn, plan, visible=OPERATOR_VISIBLE, operator=True,
                         redactor=Redactor(), matched=False)  # fmt: skip
    assert len(scans) == 1
    assert len(got["why"]) == 200  # the repeats are one question
    assert len(got["offIndexUnchecked"]) == 200 - ex.OFF_INDEX_TERMS
    checked = [w for w in got["why"] if "abandonedOrUnindexedMatches" in w]
    assert len(checked) == ex.OFF_INDEX_TERMS
