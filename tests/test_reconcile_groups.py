"""index/reconcile.py `_groups`: how pending transcripts are cut into write groups, zero-event
transcripts included (issue #33: a generation moved to cold storage is re-imported with no
events; at the head of the pending list it used to crash `reindex` with an IndexError)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import upstream_fixture as uf
from helpers import Session, connect, db_file, json_out, run_cli

from openclaw_sessions.index.reconcile import GROUP_EVENTS, _groups


def _store_with(sizes: list[int]) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE transcripts (transcript_id INTEGER PRIMARY KEY, next_seq INTEGER)")
    conn.executemany("INSERT INTO transcripts VALUES (?, ?)", list(enumerate(sizes, 1)))
    return conn


def test_zero_event_transcript_first_opens_a_group() -> None:
    conn = _store_with([0, 3, 0])
    groups, events = _groups(conn, [1, 2, 3])
    assert groups == [[1, 2, 3]]
    assert events == 3


def test_only_zero_event_transcripts() -> None:
    groups, events = _groups(_store_with([0, 0]), [1, 2])
    assert groups == [[1, 2]]
    assert events == 0


def test_large_transcripts_stay_alone_and_small_ones_group() -> None:
    big = GROUP_EVENTS // 4 + 1
    groups, _ = _groups(_store_with([0, big, 2, 2, GROUP_EVENTS]), [1, 2, 3, 4, 5])
    assert groups == [[1], [2], [3, 4], [5]]


def test_unknown_transcript_id_counts_as_empty() -> None:
    assert _groups(_store_with([]), [7]) == ([[7]], 0)


def test_generation_emptied_upstream_reindexes_and_search_settles(
    tmp_path: Path, state: Path
) -> None:
    """End to end: upstream's cold storage empties a generation's rows; the re-import stores
    it with zero events; `reindex` finishes and search is not left `indexing`."""
    root = tmp_path / "src"
    s = Session("cold-0")
    s.user("pelican words in the old generation")
    uf.build(
        uf.agent_db(root), [uf.UpSession("agent:main:main", "cold-0", uf.jsonl_lines(s.text()))]
    )
    assert run_cli("import", str(root), "--reindex").exit_code == 0
    with sqlite3.connect(uf.agent_db(root)) as c:
        c.execute("DELETE FROM transcript_events WHERE session_id = 'cold-0'")
    r = run_cli("import", str(root), "--json")
    assert r.exit_code == 0, r.stderr
    conn = connect(db_file(state))
    try:
        sizes = conn.execute("SELECT next_seq FROM transcripts").fetchall()
    finally:
        conn.close()
    assert sizes == [(0,)], "the re-import left a zero-event transcript"
    r = run_cli("reindex", "--json")
    assert r.exit_code == 0, r.stderr
    res = json_out(run_cli("search", "pelican", "--json"))
    assert "indexing" not in res, json.dumps(res)
