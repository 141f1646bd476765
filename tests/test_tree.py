"""The transcript tree (tree.py): upstream's rules on every case of its transcript-tree tests
(tree_cases.py), through the walk, through `history` and `search`, and the append rule that
indexes appended lines in place only when they provably extend the walked branch."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import tree_cases as tc
from helpers import (
    Session,
    as_v6,
    json_out,
    parse_entries,
    query,
    run_cli,
    walk,
    write_sessions_json,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from openclaw_sessions.model import transcript, tree
from openclaw_sessions.store.migrations import SCHEMA_VERSION


def branch_ids(objs: list[dict[str, Any]]) -> list[str | None]:
    lines = [json.dumps(x) for x in [tc.HEADER, *objs]]
    w = walk(parse_entries(lines))
    return [json.loads(lines[s]).get("id") for s in w.seqs]


@pytest.mark.parametrize("case", sorted(tc.CASES))
def test_every_upstream_case_walks_to_its_branch(case: str) -> None:
    objs, want = tc.CASES[case]
    assert branch_ids(objs) == want


def test_a_leaf_control_needs_a_target_key_null_counts() -> None:
    assert tree.leaf_control({"type": "leaf", "id": "l", "parentId": "t", "targetId": None}) == (
        None, None,
    )  # fmt: skip
    assert tree.leaf_control({"type": "leaf", "id": "l", "parentId": "t"}) is None
    assert tree.leaf_control(json.dumps({"targetId": "a", "appendParentId": " "})) is None
    assert tree.leaf_control({"targetId": "a", "appendMode": "side"}) == ("a", "a")
    assert tree.leaf_control("not json") is None


def test_stale_parent_rows_normalise_onto_the_leaf_only_once_there_is_one() -> None:
    first_dangling = [tc.msg("tail", "missing"), tc.ans("reply", "tail")]
    assert branch_ids(first_dangling) == ["tail", "reply"]  # no leaf yet: kept as it is
    later = [tc.msg("q", None), tc.ans("a", "q"), tc.msg("next", "missing")]
    assert branch_ids(later) == ["q", "a", "next"]


def test_a_parent_defined_later_in_the_file_is_stale_when_read() -> None:
    # Upstream resolves in file order: the child hangs under the leaf of its own time.
    objs = [tc.msg("root", None), tc.ans("child", "late"), tc.msg("late", "root")]
    assert branch_ids(objs) == ["root", "late"]
    assert branch_ids(objs[:2]) == ["root", "child"]


def test_cycles_give_an_empty_branch_and_no_leaf_to_extend() -> None:
    objs = [tc.msg("a", "b"), tc.msg("b", "a")]
    lines = [json.dumps(x) for x in [tc.HEADER, *objs]]
    w = walk(parse_entries(lines))
    assert w.seqs == []
    assert w.leaf is None


def test_v1_transcripts_are_flat() -> None:
    v1 = [{"type": "session", "id": "x", "timestamp": "2025-01-01T00:00:00Z"},
          {"type": "message", "message": {"role": "user", "content": "one"}},
          {"type": "thinking_level_change", "thinkingLevel": "high"},
          {"type": "message", "message": {"role": "assistant", "content": "two"}}]  # fmt: skip
    w = walk(parse_entries([json.dumps(x) for x in v1]))
    assert w.flat
    assert w.seqs == [1, 2, 3]
    assert [m[1] for m in w.messages] == ["v1-000001", "v1-000003"]


# --- against a plain restatement of upstream's algorithm ----------------------------------


def _ok(v: Any) -> bool:
    return isinstance(v, str) and v.strip(tree.JS_SPACE) != ""


def _explicit(r: dict[str, Any]) -> dict[str, Any] | None:
    """Upstream's parse of a line with a parentId key (None: not a tree entry)."""
    if r.get("type") == "session" or "parentId" not in r or not _ok(r.get("id")):
        return None
    if r["parentId"] is not None and not _ok(r["parentId"]):
        return None
    if r.get("type") == "leaf":
        target = r.get("targetId", "")
        cursor = r["appendParentId"] if "appendParentId" in r else target
        if any(v is not None and not _ok(v) for v in (target, cursor)) or (
            r.get("appendMode", "side") != "side"
        ):
            return None
        return {"id": r["id"], "parent": target, "leaf": target, "sets": True, "cursor": cursor}
    sets = r.get("type") in tree.CANONICAL and r.get("appendMode") != "side"
    return {"id": r["id"], "parent": r["parentId"], "leaf": r["id"], "sets": sets,
            "cursor": r["id"]}  # fmt: skip


def _reference(objs: list[dict[str, Any]]) -> list[int]:
    """Upstream's scan and selection, written as plainly as they read (file order = index)."""
    nodes: dict[str, dict[str, Any]] = {}
    bad: set[str] = set()
    leaf = cursor = None
    explicit_update = False

    def known(x: str | None) -> bool:
        return x is None or (x in nodes and x not in bad)

    def resolve(p: str | None) -> str | None:
        seen: set[str] = set()
        while p is not None and p not in seen and p in nodes and nodes[p]["control"]:
            seen.add(p)
            p = nodes[p]["parent"]
        return p

    for i, r in enumerate(objs):
        e = _explicit(r)
        canonical = r.get("type") in tree.CANONICAL
        side = r.get("appendMode") == "side"
        if e and r["type"] == "leaf" and not (known(e["leaf"]) and known(e["cursor"])):
            bad.add(e["id"])
            nodes[e["id"]] = {"parent": r["parentId"], "at": i, "control": True}
            continue
        if e is None and canonical and "parentId" not in r and _ok(r.get("id")):
            e = {"id": r["id"], "parent": leaf, "leaf": r["id"], "sets": not side,
                 "cursor": r["id"], "parentless": True}  # fmt: skip
        if e is None:
            continue
        if canonical:
            p = e["parent"]
            if not e.get("parentless") and not side:
                if p is not None and p not in nodes and leaf is not None:
                    p = leaf
                elif p == cursor and leaf != cursor:
                    p = leaf
            e["parent"] = resolve(p)
        nodes[e["id"]] = {"parent": e["parent"], "at": i, "control": r.get("type") == "leaf"}
        cursor = e["cursor"]
        if e["sets"]:
            leaf = e["leaf"]
            explicit_update = explicit_update or not e.get("parentless")

    def path(start: str | None) -> list[tuple[str, int]]:
        out: list[tuple[str, int]] = []
        seen: set[str] = set()
        while start is not None and start in nodes:
            if start in seen:
                return []
            seen.add(start)
            if not nodes[start]["control"]:
                out.insert(0, (start, nodes[start]["at"]))
            start = nodes[start]["parent"]
        return out

    if not explicit_update:
        return [i for i, r in enumerate(objs) if r.get("type") != "session"]
    active = [at for _, at in path(leaf)]
    for i in range(active[0] - 1 if active else -1, -1, -1):
        r = objs[i]
        if r.get("type") in ("compaction", "reset"):
            if r["type"] == "reset" and _ok(r.get("id")) and _ok(r.get("firstKeptEntryId")):
                rp = path(r["id"])
                ids = [n for n, _ in rp]
                if r["firstKeptEntryId"] in ids:
                    return [at for _, at in rp[ids.index(r["firstKeptEntryId"]) :]] + active
            return [i, *active]
    return active


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(st.lists(st.deferred(lambda: _line()), max_size=18))
def test_the_walk_is_upstreams_algorithm_on_any_line_soup(objs: list[dict[str, Any]]) -> None:
    """Duplicates, cycles, dangling and chained controls, stale and bad parents, side rows,
    resets: the tuple walk over stored columns selects exactly upstream's lines."""
    lines = [json.dumps(x) for x in [tc.HEADER, *objs]]
    w = walk(parse_entries(lines))
    assert w.seqs == [i + 1 for i in _reference(objs)]
    # Its marks are exactly its reset and compaction lines, in order.
    bounds = [s for s in w.seqs if objs[s - 1].get("type") in ("reset", "compaction")]
    assert [m[0] for m in w.marks] == bounds


# --- the append rule ---------------------------------------------------------------------


_IDS = ["a", "b", "c", "d"]
_REF = st.sampled_from([None, "zz", *_IDS])


@st.composite
def _line(draw: st.DrawFn) -> dict[str, Any]:
    etype = draw(st.sampled_from(["message", "message", "custom", "metadata", "leaf", "reset",
                                  "compaction"]))  # fmt: skip
    line: dict[str, Any] = {"type": etype, "id": draw(st.sampled_from([*_IDS, " "]))}
    parent = draw(st.sampled_from(["absent", "null", "ref", "ref", "bad"]))
    if parent != "absent":
        line["parentId"] = {"null": None, "bad": 5}.get(parent, draw(_REF))
    if draw(st.integers(0, 5)) == 0:
        line["appendMode"] = draw(st.sampled_from(["side", "other"]))
    if etype == "leaf":
        for key in ("targetId", "appendParentId"):
            if draw(st.booleans()):
                line[key] = draw(_REF)
    if etype == "reset" and draw(st.booleans()):
        line["firstKeptEntryId"] = draw(_REF)
    if etype == "message":
        line["message"] = {"role": draw(st.sampled_from(["user", "assistant"])), "content": "x"}
    return line


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.lists(_line(), max_size=14), st.lists(_line(), min_size=1, max_size=5))
def test_an_accepted_extension_is_exactly_what_the_walk_adds(
    before: list[dict[str, Any]], after: list[dict[str, Any]]
) -> None:
    """Whenever the append rule accepts lines, walking the whole tree gives the same branch
    (leaf, messages, flat mode): the same-transaction index never disagrees with a reindex."""
    lines = [json.dumps(x) for x in [tc.HEADER, *before, *after]]
    entries = parse_entries(lines)
    old = walk(entries[: 1 + len(before)])
    rows = [transcript.tree_row(e) for e in entries[1 + len(before) :]]
    known = {m[1] for m in old.messages}.union(old.others)
    ext = tree.extend(old.leaf, known, old.flat, rows)
    if ext is None:
        return
    new = walk(entries)
    assert new.messages == old.messages + ext.messages
    assert new.marks == old.marks + ext.marks
    assert (new.leaf, new.flat) == (ext.leaf, old.flat)


def test_plain_appends_extend_and_anything_else_does_not() -> None:
    base = walk(parse_entries(tc.lines("stale_parent_mid_conversation")))
    known = {m[1] for m in base.messages}

    def ext(*objs: dict[str, Any]) -> tree.Extension | None:
        entries = parse_entries([json.dumps(o) for o in objs])
        return tree.extend(base.leaf, known, base.flat, [transcript.tree_row(e) for e in entries])

    assert ext(tc.msg("five", "four"), tc.ans("six", "five")) is not None
    assert ext(tc.msg("five", tc.NO_PARENT)) is not None
    assert ext(tc.opaque("meta", "four")) is not None  # never on a path
    assert ext(tc.msg("five", "gone")) is None  # stale: only the whole tree can tell
    assert ext(tc.msg("five", "two")) is None  # a rewind
    assert ext(tc.msg("one", "four")) is None  # an id on the branch
    assert ext(tc.leaf("nav", "four", "four")) is None
    assert ext(tc.ans("five", "four", appendMode="side")) is None


# --- through the CLI -----------------------------------------------------------------------


def _import(tmp_path: Path, case: str) -> Path:
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    d.mkdir(parents=True)
    (d / "tree-case.jsonl").write_text(tc.text(case), encoding="utf-8")
    write_sessions_json(d, {"agent:main:main": {"sessionId": "tree-case"}})
    r = run_cli("import", str(tmp_path / "src"), "--reindex", "--quiet")
    assert r.exit_code == 0, r.stderr
    return d


def _history() -> list[str]:
    r = run_cli("history", "agent:main:main", "--json", "--limit", "100")
    assert r.exit_code in (0, 1), r.stderr
    return [m["id"] for m in json_out(r)["messages"]]


def _found(word: str) -> bool:
    r = run_cli("search", word, "--json")
    assert r.exit_code in (0, 1), r.stderr
    return bool(json_out(r)["results"])


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(tc.CASES))
def test_history_and_search_show_exactly_the_branch(tmp_path: Path, case: str) -> None:
    _import(tmp_path, case)
    want = tc.expected_messages(case)
    assert _history() == want
    for obj in tc.CASES[case][0]:
        if obj["type"] == "message" and obj["id"].strip():
            assert _found(f"word{obj['id']}") == (obj["id"] in want), obj["id"]


def test_a_live_stale_parent_row_is_reindexed_not_indexed_in_place(
    tmp_path: Path, state: Path
) -> None:
    """The issue's case as it happens live: the gateway appends a bootstrap row with a stale
    parent to an indexed session; the conversation never disappears."""
    s = Session("live-1")
    q = s.user("wordquestion")
    s.assistant("wordanswer", parent=q)
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    s.write(d / "live-1.jsonl")
    write_sessions_json(d, {"agent:main:main": {"sessionId": "live-1"}})
    assert run_cli("import", str(tmp_path / "src"), "--reindex", "--quiet").exit_code == 0
    s.add({"type": "custom", "customType": "openclaw:bootstrap-context:full", "data": {}},
          parent="not-in-this-file")  # fmt: skip
    s.write(d / "live-1.jsonl")
    assert run_cli("import", str(tmp_path / "src"), "--quiet", "--no-reindex").exit_code == 0
    assert query(state, "SELECT needs_rebuild FROM index_state") == [(1,)]
    assert run_cli("reindex", "--quiet").exit_code == 0
    assert len(_history()) == 2
    assert _found("wordquestion")
    assert _found("wordanswer")
    s.user("wordfollowup")  # hangs under the custom row, now the leaf: indexed in place
    s.write(d / "live-1.jsonl")
    assert run_cli("import", str(tmp_path / "src"), "--quiet", "--no-reindex").exit_code == 0
    assert query(state, "SELECT needs_rebuild FROM index_state") == [(0,)]
    assert _found("wordfollowup")
    assert len(_history()) == 3


# --- a store built under the old rules ----------------------------------------------------

# What the walk before schema v5 made of three cases (it resolved parents on the final tree,
# let every line with an id move the leaf, and ignored `targetId: null`): their index rows.
_OLD_INDEX = {
    "stale_parent_custom_row": [],  # the whole conversation hidden
    "blank_ids_and_bad_parents": ["numparent"],  # `parentId: 7` read as a new root
    "navigation_to_an_empty_branch": ["old", "oldreply"],
}


def _as_v4(state: Path, keys: dict[str, str]) -> None:
    """Turn a fresh store into one the v4 code wrote: its columns, its (wrong) index rows, a
    clean index state and stored branches in branch format 1."""
    import marshal
    import sqlite3
    from array import array

    from helpers import db_file

    from openclaw_sessions.index import index_rows

    as_v6(db_file(state))  # v6 kept lines as text and bigrams in index_rows, as v4 did
    conn = sqlite3.connect(db_file(state), isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("UPDATE events SET flags = flags & ~4")  # no FLAG_NOT_NODE yet
    conn.execute("UPDATE events SET entry_id = ' ' WHERE entry_id IS NULL AND raw LIKE ?",
                 ('%"id": " "%',))  # fmt: skip
    conn.execute("DELETE FROM index_rows")
    conn.execute("DELETE FROM branches")
    for case, key in keys.items():
        tid, nxt, rev = conn.execute(
            "SELECT transcript_id, next_seq, revision FROM transcripts WHERE session_key = ?",
            (key,),
        ).fetchone()
        rows = []
        for mid in _OLD_INDEX[case]:
            (seq,) = conn.execute(
                "SELECT seq FROM events WHERE transcript_id = ? AND entry_id = ?", (tid, mid)
            ).fetchone()
            rows.append((tid, seq, mid, "user", 0, f"word{mid}", None))
        index_rows.insert_rows(conn, rows)
        blob = marshal.dumps((1, array("q", [r[1] for r in rows]).tobytes(), [r[2] for r in rows],
                              ["user"], array("H", [0] * len(rows)).tobytes(),
                              array("q", [0] * len(rows)).tobytes(), []))  # fmt: skip
        conn.execute("INSERT INTO branches VALUES (?, ?, ?, ?, ?)", (tid, rev, nxt, None, blob))
    conn.execute("UPDATE index_state SET needs_rebuild = 0, claim_token = NULL")
    conn.execute("PRAGMA user_version = 4")
    conn.execute("COMMIT")
    conn.close()


@pytest.mark.slow
def test_a_store_indexed_under_the_old_rules_is_rebuilt_on_upgrade(
    tmp_path: Path, state: Path
) -> None:
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    d.mkdir(parents=True)
    keys = {case: f"agent:main:c{i}" for i, case in enumerate(_OLD_INDEX)}
    for i, case in enumerate(_OLD_INDEX):
        (d / f"c{i}.jsonl").write_text(tc.text(case), encoding="utf-8")
    write_sessions_json(d, {key: {"sessionId": f"c{i}"} for i, key in enumerate(keys.values())})
    assert run_cli("import", str(tmp_path / "src"), "--reindex", "--quiet").exit_code == 0
    _as_v4(state, keys)
    r = run_cli("search", "wordnumparent", "--json")  # opening the store migrates it (v5)
    assert r.exit_code == 1
    assert json_out(r)["indexing"] is True  # dirty: never a stale hit
    r = run_cli("status", "--json")
    assert r.exit_code == 4
    assert json_out(r)["pendingSessions"] == 3
    assert json_out(r)["schemaVersion"] == SCHEMA_VERSION  # migrated through v5 (and on)
    for case, key in keys.items():  # history walks at once: right before any reindex
        r = run_cli("history", key, "--json", "--limit", "100")
        assert [m["id"] for m in json_out(r)["messages"]] == tc.expected_messages(case)
    assert run_cli("reindex", "--quiet").exit_code == 0
    assert run_cli("status", "--json").exit_code == 0
    for case in keys:
        for obj in tc.CASES[case][0]:
            if obj["type"] == "message" and obj["id"].strip():
                assert _found(f"word{obj['id']}") == (obj["id"] in tc.expected_messages(case))
    from helpers import cached_and_walked

    assert all(c is not None and c == w for c, w in cached_and_walked(state))
