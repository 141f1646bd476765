"""The stored active branch (table `branches`): written by reconcile and by leaf-extending
appends, always equal to a fresh walk of the tree when current, ignored when behind."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from helpers import (
    Session,
    branchy,
    cached_and_walked,
    db_file,
    expected_ids,
    json_out,
    query,
    run_cli,
    write_sessions_json,
)

from openclaw_sessions.store import branches


def sdir(root: Path) -> Path:
    return root / "agents" / "main" / "sessions"


@contextmanager
def store_conn(state: Path) -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(db_file(state))
    try:
        yield conn
    finally:
        conn.close()


def history_ids(*args: str) -> list[str]:
    r = run_cli("history", *args, "--json", "--limit", "1000")
    assert r.exit_code in (0, 1), r.stderr
    return [m["id"] for m in json_out(r)["messages"]]


def setup(tmp_path: Path, s: Session) -> Path:
    src = tmp_path / "src"
    s.write(sdir(src) / f"{s.session_id}.jsonl")
    write_sessions_json(sdir(src), {"agent:main:main": {"sessionId": s.session_id}})
    assert run_cli("import", str(src), "--reindex", "--quiet").exit_code == 0
    return src


def reimport(src: Path, s: Session) -> None:
    s.write(sdir(src) / f"{s.session_id}.jsonl")
    r = run_cli("import", str(src), "--quiet", "--no-reindex")
    assert r.exit_code == 0, r.stderr


def test_reindex_stores_exactly_the_walked_branch(tmp_path: Path, state: Path) -> None:
    s = branchy(30)
    setup(tmp_path, s)
    ((cached, walked),) = cached_and_walked(state)
    assert cached is not None
    assert cached == walked
    assert [r.entry_id for r in cached.rows if r.role != "toolResult"] == expected_ids(s)


def test_a_leaf_extending_append_extends_it_in_the_same_transaction(
    tmp_path: Path, state: Path
) -> None:
    s = branchy(10)
    src = setup(tmp_path, s)
    s.user("appended question")
    s.add({"type": "custom", "customType": "note", "data": {}})
    s.assistant("appended answer")
    s.tool("appended tool output")
    reimport(src, s)
    ((cached, walked),) = cached_and_walked(state)
    assert cached is not None
    assert cached == walked
    assert history_ids("main") == expected_ids(s)
    assert query(state, "SELECT needs_rebuild FROM index_state") == [(0,)]


def test_a_rewind_leaves_it_behind_until_the_next_reindex(tmp_path: Path, state: Path) -> None:
    s = branchy(10)
    src = setup(tmp_path, s)
    fork = s.lines[3]["id"]
    s.navigate(fork)
    s.user("new branch question")
    reimport(src, s)
    ((cached, walked),) = cached_and_walked(state)
    assert cached is None  # behind: readers walk
    assert history_ids("main") == expected_ids(s)
    assert run_cli("reindex", "--quiet").exit_code == 0
    ((cached, walked),) = cached_and_walked(state)
    assert cached == walked
    assert history_ids("main") == expected_ids(s)


@pytest.mark.slow
def test_an_append_reusing_an_id_on_the_path_is_not_an_extension(
    tmp_path: Path, state: Path
) -> None:
    """Upstream indexes it as an append, but the tree walk sees a cycle: the stored branch
    must follow the walk, not the append rule."""
    s = branchy(5)
    src = setup(tmp_path, s)
    reused = s.lines[1]["id"]  # the first user message, on the active path
    s.add({"type": "custom", "customType": "note", "data": {}}, id=reused)
    reimport(src, s)
    ((cached, walked),) = cached_and_walked(state)
    assert cached is None
    assert history_ids("main") == expected_ids(s) == []  # a cycle: upstream shows nothing
    assert run_cli("reindex", "--quiet").exit_code == 0
    ((cached, walked),) = cached_and_walked(state)
    assert cached == walked


def bad_columns() -> bytes:
    """Well-formed marshal with columns of different lengths."""
    import marshal

    return marshal.dumps((branches.FORMAT, b"\0" * 16, ["a"], [None], b"\0\0", b"", []))


@pytest.mark.slow
def test_a_damaged_or_foreign_copy_falls_back_to_the_walk(tmp_path: Path, state: Path) -> None:
    s = branchy(12)
    setup(tmp_path, s)
    want = history_ids("main")
    for blob in (b"not marshal", b"\xff" * 8, json.dumps([1, 2]).encode(), bad_columns()):
        with store_conn(state) as conn:
            conn.execute("UPDATE branches SET messages = ?", (blob,))
            conn.commit()
        assert cached_and_walked(state)[0][0] is None
        assert history_ids("main") == want == expected_ids(s)


def test_delete_takes_it_with_the_transcript(tmp_path: Path, state: Path) -> None:
    setup(tmp_path, branchy(3))
    assert query(state, "SELECT count(*) FROM branches") == [(1,)]
    assert run_cli("delete", "agent:main:main", "--yes").exit_code == 0
    assert query(state, "SELECT count(*) FROM branches") == [(0,)]


@pytest.mark.slow
def test_real_corpus_history_is_the_same_with_and_without_it(corpus: Path, state: Path) -> None:
    files = sorted(p for p in corpus.rglob("*.jsonl*") if not p.name.endswith(".lock"))
    assert run_cli("import", *map(str, files), "--reindex", "--quiet").exit_code in (0, 4)
    pairs = cached_and_walked(state)
    assert pairs
    assert all(c == w for c, w in pairs)
    sids = [r[0] for r in query(state, "SELECT session_id FROM transcripts ORDER BY 1")]

    def everything() -> list[Any]:
        out = []
        for sid in sids:
            r = run_cli("history", sid, "--include-tools", "--limit", "1000", "--json")
            out.append((r.exit_code, r.stdout))
        return out

    with_copy = everything()
    with store_conn(state) as conn:
        conn.execute("DELETE FROM branches")
        conn.commit()
    assert everything() == with_copy
