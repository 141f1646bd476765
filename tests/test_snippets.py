"""Snippets with bounded work per hit (issue #15 B) and UTF-16 snippet caps (issue #14 §3).

Work is asserted, not timed: which statements run, and how much text FTS5's snippet() sees.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from helpers import Session, db_file, json_out, run_cli, write_sessions_json

from openclaw_sessions.policy import fts_query
from openclaw_sessions.policy.cut import utf16_len
from openclaw_sessions.read import scope
from openclaw_sessions.read.search import fts, snippets
from openclaw_sessions.redact import build_redactor

REPEAT = "lorem ipsum dolor sit amet "


def store(root: Path, texts: list[str], key: str = "agent:main:main") -> Path:
    d = root / "src" / "agents" / "main" / "sessions"
    s = Session("snip-1")
    for t in texts:
        s.user(t)
    s.write(d / "snip-1.jsonl")
    write_sessions_json(d, {key: {"sessionId": "snip-1"}})
    assert run_cli("import", str(root / "src"), "--reindex").exit_code == 0
    return db_file(root / "state")


class Traced:
    """Runs fts.find_hits on a store; records every statement and the scratch input."""

    def __init__(self, path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.conn = sqlite3.connect(path)
        scope.register(self.conn, "main", None)  # the operator's per-row visibility
        self.sql: list[str] = []
        self.conn.set_trace_callback(self.sql.append)
        self.scratch: list[str] = []
        real = snippets.Snippets._scratch_query

        def spy(obj: snippets.Snippets, column: str, text: str, *rest: object) -> str | None:
            self.scratch.append(text)
            return real(obj, column, text, *rest)  # type: ignore[arg-type]

        monkeypatch.setattr(snippets.Snippets, "_scratch_query", spy)

    def run(self, q: str, limit: int = 10, order: str = "relevance") -> list[dict]:
        redactor = build_redactor()
        filt = fts.Filters()
        plan = fts_query.build(q)
        hits, _ = fts.find_hits(self.conn, plan, filt, redactor.fingerprint, limit, order)
        return [h.to_json() for h in hits]

    def whole_row_snippets(self) -> int:
        return sum(1 for s in self.sql if "snippet(index_fts" in s)


def fts5_snippet(path: Path, q: str, text_like: str) -> str:
    """FTS5's own snippet of the row (upstream's SQL), for comparison."""
    conn = sqlite3.connect(path)
    try:
        row = conn.execute(
            "SELECT snippet(index_fts, 0, '', '', ' … ', 48) FROM index_fts"
            " WHERE index_fts MATCH ? AND rowid IN (SELECT row_id FROM index_rows"
            " WHERE text LIKE ?)",
            (fts_query.build(q).primary, text_like),
        ).fetchone()
        return str(row[0])
    finally:
        conn.close()


def test_repetitive_message_gets_a_bounded_snippet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = store(tmp_path, [REPEAT * 200_000, "a short lorem message"])
    t = Traced(path, monkeypatch)
    for order in ("relevance", "recent"):
        t.sql.clear()
        t.scratch.clear()
        hits = t.run("lorem", order=order)
        assert len(hits) == 2
        # FTS5's quadratic snippet() only ran on the short row; the long one was scanned
        # once in a bounded prefix and its snippet built from a bounded excerpt.
        assert t.whole_row_snippets() == 1
        assert len(t.scratch) == 2
        assert max(len(x) for x in t.scratch) <= snippets.SCAN_CHARS
        assert len(t.scratch[1]) <= sum(snippets.EXCERPT)
        long_hit = next(h for h in hits if h["snippet"].startswith("lorem ipsum"))
        assert long_hit["snippet"].rstrip().endswith("…")
        assert utf16_len(long_hit["snippet"]) <= 301


def test_normal_messages_keep_fts5s_own_snippet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    short = "one two three lorem four five"
    # Longer than FULL_CHARS but with few matches: still FTS5's snippet of the whole row,
    # which picks the densest window (the second cluster), not the first match.
    long_few = (
        "lorem alone here. "
        + "filler words go on " * 150
        + "then lorem and lorem and lorem together "
        + "tail words " * 100
    )
    assert len(long_few) > snippets.FULL_CHARS
    path = store(tmp_path, [short, long_few])
    t = Traced(path, monkeypatch)
    hits = {h["snippet"].replace("…", "").strip()[:20]: h for h in t.run("lorem")}
    assert t.whole_row_snippets() == 2
    for like in (short, long_few):
        expected = fts5_snippet(path, "lorem", like)
        got = [h["snippet"] for h in hits.values()]
        assert expected[:300] + ("…" if len(expected) > 300 else "") in got
    assert any("lorem and lorem and lorem" in h["snippet"] for h in hits.values())


def test_a_deep_first_match_is_centred_with_ellipses(tmp_path: Path) -> None:
    text = "start " + "alpha beta gamma " * 1500 + "the zzneedle sits here " + "omega " * 2000
    assert len(text) > snippets.SCAN_CHARS // 2
    many = "zzneedle " * 400 + "end"  # long and over MAX_HITS: the excerpt path
    store(tmp_path, [text, many])
    r = run_cli("search", "zzneedle", "--json")
    hits = json_out(r)["results"]
    deep = next(h for h in hits if "sits here" in h["snippet"])
    assert deep["snippet"].startswith(" … ")
    assert deep["snippet"].rstrip("…").endswith(" … ")
    mid = deep["snippet"].index("zzneedle")
    assert 60 < mid < 240  # near the middle of the 48-token window
    rep = next(h for h in hits if h is not deep)
    assert rep["snippet"].startswith("zzneedle zzneedle")
    assert rep["snippet"].endswith("…")


def test_match_beyond_the_scanned_prefix_still_answers(tmp_path: Path) -> None:
    text = REPEAT * 3000 + " zzfar"  # 81,000 characters: the only match is past the scan
    store(tmp_path, [text])
    r = run_cli("search", "zzfar", "--json")
    assert r.exit_code == 0
    (hit,) = json_out(r)["results"]
    assert hit["snippet"].startswith("lorem ipsum")
    assert hit["snippet"].endswith("…")


def test_long_and_all_terms_and_prefix_queries(tmp_path: Path) -> None:
    text = REPEAT * 5000 + " kubernetes cluster"
    store(tmp_path, [text])
    for q, extra in (("lorem amet", ()), ("kube", ("--prefix",)), ("cluster lorem", ())):
        r = run_cli("search", q, *extra, "--json")
        assert r.exit_code == 0, q
        assert len(json_out(r)["results"]) == 1


def test_cjk_window_is_bounded_and_keeps_original_offsets() -> None:
    far = "字" * (snippets.SCAN_CHARS + 10) + "量子猫"
    assert snippets.cjk_snippet(far, ["量子猫"]).startswith("字字")  # not scanned: the start
    text = "ß" * 50 + "量子猫" + "x" * 10  # casefold would shift offsets: ß → ss
    snip = snippets.cjk_snippet(text, ["量子猫"])
    assert "\x02量子猫\x03" in snip
    assert snip.startswith("… ")


@pytest.mark.parametrize(
    ("char", "name"),
    [("😀", "emoji"), ("\U00020000", "CJK extension B"), ("\U00010400", "Deseret")],
)
def test_snippets_are_capped_at_300_utf16_units(tmp_path: Path, char: str, name: str) -> None:
    store(tmp_path, ["zzastral " + char * 400])
    r = run_cli("search", "zzastral", "--json")
    (hit,) = json_out(r)["results"]
    snip = hit["snippet"]
    assert snip.endswith("…"), name
    body = snip[:-1]
    assert utf16_len(body) <= 300
    assert utf16_len(body) > 300 - 2
    assert "\ud800" > body[-1] or body[-1] > "\udfff"  # never half a pair


def test_history_texts_are_capped_at_4000_utf16_units(tmp_path: Path) -> None:
    store(tmp_path, ["😀" * 2500, "\U00010400" * 1999 + "ok"])
    r = run_cli("history", "agent:main:main", "--json")
    msgs = json_out(r)["messages"]
    first = msgs[0]["content"][0]["text"]
    assert first.endswith("\n…(truncated)…")
    assert utf16_len(first[: -len("\n…(truncated)…")]) == 4000
    second = msgs[1]["content"][0]["text"]
    assert second == "\U00010400" * 1999 + "ok"  # 4000 units exactly: not cut
    assert json_out(r)["contentTruncated"] is True


def test_scratch_tables_use_the_index_tokenizers() -> None:
    """Snippets and explain re-tokenize text in scratch tables: same tokenizers as schema.sql."""
    from openclaw_sessions.store import migrations

    schema = migrations.schema_sql()
    assert f"tokenize='{migrations.PRIMARY_TOKENIZER}'" in schema
    assert f'tokenize="{migrations.BIGRAM_TOKENIZER}"' in schema
