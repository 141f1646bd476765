"""Latin words written against CJK text (issue #38 point 1): unicode61 fuses `修改youer服务端`
into one token of the word index, so the bigram index holds the other words of a row with CJK
text too (cjk.index_bigram_text) and a query's Latin words are sought there as well
(fts_query.with_glued), in the operator's search and the agent's; store migration 12 rebuilds
the bigram index of an older store."""

from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers import Session, connect, db_file, integrity, run_cli

from openclaw_sessions.policy import cjk

GLUED = {
    "youer": "修改youer服务端的计划",
    "itgc": "重跑gen-itgc后再看",
    "ab": "에러코드ab확인",
    "maxSpawnDepth": "把maxSpawnDepth改成3",
    "MEMORY.md": "写进MEMORY.md里",
    "42mm": "买42mm的表",
    "crossfit": "今天做crossfit训练",
}
APART = "migration迁移timeout"


@pytest.fixture
def store(tmp_path: Path, state: Path) -> Path:
    s = Session("g1")
    for text in [*GLUED.values(), "plain english youer here", APART]:
        s.user(text)
        s.assistant("好的")
    s.write(tmp_path / "src" / "agents" / "main" / "sessions" / "g1.jsonl")
    r = run_cli("import", str(tmp_path / "src"), "--reindex", "--quiet")
    assert r.exit_code == 0, r.stderr
    return state


def _hits(*args: str) -> list[dict[str, Any]]:
    r = run_cli("search", *args, "--json")
    out: list[dict[str, Any]] = json.loads(r.stdout)["results"]
    assert r.exit_code == (0 if out else 1), r.stderr
    return out


def test_the_bigram_text_holds_the_words_of_a_cjk_row() -> None:
    gap = cjk.GAP  # a CJK run between two words: no phrase
    assert (
        cjk.index_bigram_text("修改youer服务端") == f"修改 改 服务 务端 端 {gap} youer {gap}"
    )
    assert cjk.beside_cjk("migration迁移timeout") == f"migration {gap} timeout"
    assert cjk.index_bigram_text("no cjk here") is None
    # the frozen bigram text (remote rows, older stores) is unchanged
    assert cjk.cjk_bigram_text("修改youer服务端") == "修改 改 服务 务端 端"


@pytest.mark.parametrize("word", list(GLUED))
def test_a_word_against_cjk_text_is_found_by_operator_and_agent(store: Path, word: str) -> None:
    texts = [h["snippet"] for h in _hits(word)]
    assert GLUED[word] in texts
    agent = [h["snippet"] for h in _hits(word, "--as", "agent:main:main")]
    assert GLUED[word] in agent


def test_the_word_index_keeps_its_rows_and_scores(store: Path) -> None:
    """A row the word index finds is found there, at upstream's bm25 (not the bigram one)."""
    hits = {h["snippet"]: h for h in _hits("youer", "--as", "agent:main:main")}
    assert set(hits) == {GLUED["youer"], "plain english youer here"}
    conn = sqlite3.connect(db_file(store))
    want = conn.execute(
        "SELECT -bm25(index_fts) FROM index_fts JOIN index_rows r ON r.row_id = index_fts.rowid"
        " WHERE index_fts MATCH '\"youer\"'"
    ).fetchall()
    conn.close()
    assert [hits["plain english youer here"]["score"]] == pytest.approx([w for (w,) in want])
    marked = hits[GLUED["youer"]]
    assert "matches" not in marked  # the agent's hit stays upstream's shape
    op = {h["snippet"]: h for h in _hits("youer")}
    assert op[GLUED["youer"]]["matches"] == [[2, 7]]  # the word marked where it stands


def test_counts_recent_order_and_exclusions(store: Path) -> None:
    r = run_cli("search", "youer", "--count", "--json")
    assert json.loads(r.stdout)["count"] == 2, r.stdout
    assert {h["snippet"] for h in _hits("youer", "--order", "recent")} == {
        GLUED["youer"],
        "plain english youer here",
    }
    assert [h["snippet"] for h in _hits("youer -plain")] == [GLUED["youer"]]
    assert [h["snippet"] for h in _hits("youer 计划")] == [GLUED["youer"]]
    assert _hits("youer 训练") == []
    assert [h["snippet"] for h in _hits("migration timeout")] == [APART]
    assert _hits('"migration timeout"') == []  # a CJK run between them: no phrase


def test_migration_12_rebuilds_an_older_bigram_index(tmp_path: Path, state: Path) -> None:
    fixture = Path(__file__).parent / "fixtures" / "store_v11.sqlite.gz"
    path = db_file(state)
    path.parent.mkdir(parents=True)
    path.write_bytes(gzip.decompress(fixture.read_bytes()))
    sql = "SELECT count(*) FROM index_bigram WHERE index_bigram MATCH '\"migration\"'"
    old = sqlite3.connect(path)
    assert old.execute(sql).fetchone()[0] == 0  # v11 indexed only the CJK runs
    old.close()
    assert _hits("migration", "--wait")  # opened (migrated) by the current code
    conn = connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] >= 12
    assert conn.execute(sql).fetchone()[0] > 0
    conn.close()
    integrity(state)
