"""Hostile import sources (issue #23 part 4): an upstream agent
database that cannot be read, a store path that loops, a BOM in sessions.json, copies and
links of deleted transcripts, a huge sessions.json whose transcripts are missing."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
import upstream_fixture as uf
from helpers import Session, json_out, query, run_cli, write_sessions_json


def _zeta_db(root: Path, how: str) -> Path:
    """agents/zeta/agent/openclaw-agent.sqlite made unreadable: half-written or a newer layout."""
    sessions = []
    for i in range(4):
        s = Session(f"z-{i}")
        s.user(f"zeta words {i} " + "filler " * 1500)
        sessions.append(uf.UpSession(f"agent:zeta:s{i}", f"z-{i}", uf.jsonl_lines(s.text())))
    path = uf.build(uf.agent_db(root, "zeta"), sessions, wal=False, compress_over=None)
    if how == "half":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    else:
        with sqlite3.connect(path) as c:
            c.execute("ALTER TABLE transcript_events RENAME COLUMN event_json TO payload")
            c.execute("PRAGMA user_version = 99")
        c.close()
    return path


def _good_root(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    d = root / "agents" / "main" / "sessions"
    s = Session("m-1")
    s.user("mainword in a transcript")
    s.write(d / "m-1.jsonl")
    write_sessions_json(d, {"agent:main:main": {"sessionId": "m-1"}})
    up = Session("o-1")
    up.user("opsword from a good database")
    uf.build(uf.agent_db(root, "ops"), [uf.UpSession("agent:ops:main", "o-1",
             uf.jsonl_lines(up.text()))], agent_id="ops")  # fmt: skip
    return root


@pytest.mark.slow
@pytest.mark.parametrize("how", ["half", "newer"])
def test_one_unreadable_agent_database_is_reported_and_the_rest_imported(
    tmp_path: Path, state: Path, how: str
) -> None:
    root = _good_root(tmp_path)
    bad = _zeta_db(root, how)
    r = run_cli("import", str(root), "--json")
    assert r.exit_code == 4, r.stderr
    rep = json_out(r)
    bads = [i for i in rep["issues"] if i["code"] == "upstream_unreadable"]
    assert [i["path"] for i in bads] == [str(bad)]
    assert bads[0]["severity"] == "error"
    assert query(state, "SELECT session_key FROM transcripts") == [("agent:main:main",)]
    assert query(state, "SELECT session_key FROM transcripts", agent="ops") == [("agent:ops:main",)]
    # the plain report says it in one line, no traceback
    r = run_cli("import", str(root))
    assert r.exit_code == 0  # known now: counted, not failed on again
    assert "Traceback" not in r.stderr
    # --agent OTHER never opens it; --agent zeta reports it
    assert run_cli("import", str(root), "--agent", "ops").exit_code == 0
    state2 = tmp_path / "state2"
    r = run_cli("import", str(root), "--agent", "main", "--state-dir", str(state2))
    assert r.exit_code == 0, r.stderr
    r = run_cli("import", str(root), "--agent", "zeta", "--state-dir", str(state2))
    assert r.exit_code == 4
    assert "upstream_unreadable" in r.stderr
    assert r.stderr.count("\n") < 10
    assert "Traceback" not in r.stderr
    # given as the SOURCE itself: the same report
    r = run_cli("import", str(bad), "--state-dir", str(tmp_path / "state3"))
    assert r.exit_code == 4
    assert "upstream_unreadable" in r.stderr


def test_a_corrupt_page_inside_an_upstream_database_costs_only_its_transcripts(
    tmp_path: Path, state: Path
) -> None:
    root = _good_root(tmp_path)
    sessions = []
    for i in range(6):
        s = Session(f"z-{i}")
        for j in range(40):
            s.user(f"zeta words {i} {j} " + "filler " * 200)
        sessions.append(uf.UpSession(f"agent:zeta:s{i}", f"z-{i}", uf.jsonl_lines(s.text())))
    path = uf.build(uf.agent_db(root, "zeta"), sessions, wal=False, compress_over=None)
    with sqlite3.connect(path) as c:
        pages, size = (c.execute(f"PRAGMA {p}").fetchone()[0] for p in ("page_count", "page_size"))
    c.close()
    data = bytearray(path.read_bytes())
    data[(pages // 2) * size : (pages // 2 + 1) * size] = b"\xff" * size  # opens, reads fail
    path.write_bytes(bytes(data))
    r = run_cli("import", str(root), "--json")
    assert r.exit_code == 4, r.stderr
    bad = [i for i in json_out(r)["issues"] if i["code"] == "upstream_unreadable"]
    assert bad
    assert all(i["path"].startswith(f"{path}#z-") for i in bad)
    stored = {k for (k,) in query(state, "SELECT session_key FROM transcripts", agent="zeta")}
    assert len(stored) + len(bad) == 6
    assert stored  # the readable ones are in
    assert query(state, "SELECT session_key FROM transcripts") == [("agent:main:main",)]
    assert query(state, "SELECT session_key FROM transcripts", agent="ops") == [("agent:ops:main",)]


@pytest.mark.slow
@pytest.mark.parametrize("where", ["store", "agent_dir", "dir", "fifo"])
def test_a_store_path_that_loops_or_is_no_file_is_one_error_line_exit_3(
    tmp_path: Path, state: Path, where: str
) -> None:
    src = tmp_path / "src" / "agents" / "main" / "sessions"
    Session("m-1").write(src / "m-1.jsonl")
    agents = state / "agents"
    agents.mkdir(parents=True)
    if where == "store":
        (agents / "main").mkdir()
        (agents / "main" / "openclaw-sessions.sqlite").symlink_to("x")
        (agents / "main" / "x").symlink_to("openclaw-sessions.sqlite")
    elif where == "agent_dir":
        (agents / "main").symlink_to("other")
        (agents / "other").symlink_to("main")
    else:  # the store path is no file at all
        (agents / "main").mkdir()
        store = agents / "main" / "openclaw-sessions.sqlite"
        store.mkdir() if where == "dir" else os.mkfifo(store)
    for args in (["import", str(tmp_path / "src")], ["import", str(src / "m-1.jsonl")],
                 ["sessions"], ["status"], ["search", "x"], ["history", "agent:main:main"],
                 ["reindex"], ["delete", "agent:main:main", "--yes"]):  # fmt: skip
        r = run_cli(*args)
        assert r.exit_code == 3, (args, r.stderr)
        assert r.stderr.startswith("error:"), (args, r.stderr)
        assert r.stderr.count("\n") == 1, (args, r.stderr)
        if where in ("dir", "fifo"):
            assert "not a regular file" in r.stderr, (args, r.stderr)
        elif where == "store" or args[0] == "import":
            assert "symlink loop" in r.stderr, (args, r.stderr)


def _bom_root(tmp_path: Path) -> tuple[Path, Path, bytes]:
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    for i in range(3):
        s = Session(f"b-{i}")
        s.user(f"bomword number {i}")
        s.write(d / f"b-{i}.jsonl")
    good = json.dumps({f"agent:main:k{i}": {"sessionId": f"b-{i}", "label": f"L{i}"}
                       for i in range(3)}).encode()  # fmt: skip
    return tmp_path / "src", d / "sessions.json", good


def _listed() -> list[str]:
    r = run_cli("sessions", "--json")
    return sorted(s["sessionKey"] for s in json_out(r)["sessions"])


def test_a_bom_in_sessions_json_is_accepted(tmp_path: Path, state: Path) -> None:
    src, store, good = _bom_root(tmp_path)
    store.write_bytes(b"\xef\xbb\xbf" + good)
    r = run_cli("import", str(src), "--json")
    assert r.exit_code == 0, r.stdout
    assert not [i for i in json_out(r)["issues"] if i["severity"] == "error"]
    assert _listed() == ["agent:main:k0", "agent:main:k1", "agent:main:k2"]


def test_orphans_take_their_real_key_once_sessions_json_is_fixed(
    tmp_path: Path, state: Path
) -> None:
    src, store, good = _bom_root(tmp_path)
    store.write_bytes(b"{")  # broken: every transcript is an orphan
    assert run_cli("import", str(src), "--reindex").exit_code == 4
    assert _listed() == [f"agent:main:orphan:b-{i}" for i in range(3)]
    store.write_bytes(good)
    assert run_cli("import", str(src)).exit_code == 0
    assert _listed() == ["agent:main:k0", "agent:main:k1", "agent:main:k2"]
    assert query(state, "SELECT count(*) FROM sessions WHERE session_key GLOB '*orphan*'") == [(0,)]
    r = run_cli("search", "bomword", "--wait", "--json")
    keys = sorted(h["sessionKey"] for h in json_out(r)["results"])
    assert keys == ["agent:main:k0", "agent:main:k1", "agent:main:k2"]
    assert run_cli("history", "agent:main:k1").exit_code == 0
    assert run_cli("history", "agent:main:orphan:b-1").exit_code == 2


def _two_sessions(tmp_path: Path) -> tuple[Path, Path]:
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    for sid in ("keep-1", "gone-1"):
        s = Session(sid)
        s.user(f"copyword from {sid}")
        s.assistant("an answer")
        s.write(d / f"{sid}.jsonl")
    write_sessions_json(d, {"agent:main:keep": {"sessionId": "keep-1"},
                    "agent:main:gone": {"sessionId": "gone-1"}})  # fmt: skip
    assert run_cli("import", str(tmp_path / "src")).exit_code == 0
    return tmp_path / "src", d


def _stored_keys(state: Path) -> list[tuple[str, str]]:
    return query(state, "SELECT session_key, source_name FROM transcripts ORDER BY 1")


def test_a_deleted_transcript_stays_deleted_under_another_name(tmp_path: Path, state: Path) -> None:
    src, d = _two_sessions(tmp_path)
    assert run_cli("delete", "agent:main:gone", "--yes").exit_code == 0
    before = _stored_keys(state)
    elsewhere = tmp_path / "backup"
    elsewhere.mkdir()
    for copy in (elsewhere / "renamed.jsonl", d / "gone-1 (copy).jsonl"):
        copy.write_bytes((d / "gone-1.jsonl").read_bytes())
    r = run_cli("import", str(elsewhere / "renamed.jsonl"), "--json")
    assert r.exit_code == 0, r.stdout
    assert [i["code"] for i in json_out(r)["issues"]] == ["session_deleted"]
    r = run_cli("import", str(src), "--json")
    assert r.exit_code == 0, r.stdout
    assert _stored_keys(state) == before == [("agent:main:keep", "keep-1.jsonl")]
    assert run_cli("search", "copyword", "--wait", "--json").exit_code == 0
    hits = json_out(run_cli("search", "copyword", "--json"))["results"]
    assert [h["sessionKey"] for h in hits] == ["agent:main:keep"]
    # a copy that went on is a session of its own again; --undelete brings the key back
    with (elsewhere / "renamed.jsonl").open("a") as f:
        f.write(json.dumps({"type": "custom", "id": "zz", "customType": "x"}) + "\n")
    assert run_cli("import", str(elsewhere / "renamed.jsonl")).exit_code == 0
    assert ("agent:main:orphan:renamed", "renamed.jsonl") in _stored_keys(state)
    assert run_cli("import", str(src), "--undelete", "agent:main:gone").exit_code == 0
    assert ("agent:main:gone", "gone-1.jsonl") in _stored_keys(state)


def test_a_transcript_imported_through_a_symlink_is_stored_once(
    tmp_path: Path, state: Path
) -> None:
    src, d = _two_sessions(tmp_path)
    before = _stored_keys(state)
    link = tmp_path / "elsewhere" / "link.jsonl"
    link.parent.mkdir()
    link.symlink_to(d / "keep-1.jsonl")
    assert run_cli("import", str(link)).exit_code == 0
    assert run_cli("import", str(src)).exit_code == 0
    assert _stored_keys(state) == before
    # a link inside the sessions dir to one of its own files is that file too
    (d / "alias.jsonl").symlink_to("keep-1.jsonl")
    r = run_cli("import", str(src), "--json")
    assert r.exit_code == 0
    assert "transcript_alias" in [i["code"] for i in json_out(r)["issues"]]
    assert _stored_keys(state) == before
    # and the other way round: the link first, then its sessions dir
    state2 = tmp_path / "state2"
    assert run_cli("import", str(link), "--state-dir", str(state2)).exit_code == 0
    assert run_cli("import", str(src), "--state-dir", str(state2)).exit_code == 0
    assert _stored_keys(state2) == before


@pytest.mark.slow
def test_100k_missing_transcripts_are_one_summary_line_and_all_remembered(
    tmp_path: Path, state: Path
) -> None:
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    entries: dict[str, object] = {
        f"agent:main:k{i}": {"sessionId": f"00000000-0000-4000-8000-{i:012d}"}
        for i in range(100_000)
    }
    entries["agent:main:bad"] = {"nosessionid": True}  # one of another kind: its own line
    s = Session("real-1")
    s.user("the one transcript that is there")
    s.write(d / "real-1.jsonl")
    entries["agent:main:real"] = {"sessionId": "real-1"}
    write_sessions_json(d, entries)
    r = run_cli("import", str(tmp_path / "src"))
    assert r.exit_code == 4
    lines = r.stderr.splitlines()
    assert len(lines) <= 6, lines
    summary = [x for x in lines if "transcript_missing" in x]
    assert len(summary) == 1
    assert "100000" in summary[0]
    assert "status --problems" in summary[0]
    assert "k0" not in r.stderr
    assert "000000000000.jsonl" in summary[0]  # the first one named
    assert sum("entry_invalid" in x for x in lines) == 1
    # the work is done: every entry stored, every problem remembered and listed
    assert query(state, "SELECT count(*) FROM sessions") == [(100_001,)]  # the bad one: none
    assert query(state, "SELECT count(*) FROM import_problems") == [(100_001,)]
    assert query(state, "SELECT session_key FROM transcripts") == [("agent:main:real",)]
    r = run_cli("status", "--problems")
    assert r.stdout.count("transcript_missing") == 100_000
    # a rerun knows them all: nothing new to say, in --json every one is still listed
    r = run_cli("import", str(tmp_path / "src"), "--json")
    assert r.exit_code == 0
    assert r.stderr == ""
    assert len([i for i in json_out(r)["issues"] if i["code"] == "transcript_missing"]) == 100_000


def test_quiet_import_folds_new_problems_too(tmp_path: Path, state: Path) -> None:
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    write_sessions_json(d, {f"agent:main:k{i}": {"sessionId": f"gone-{i}"} for i in range(50)})
    r = run_cli("import", str(tmp_path / "src"), "--quiet")
    assert r.exit_code == 4
    assert len(r.stderr.splitlines()) == 1, r.stderr
    assert "50 times" in r.stderr, r.stderr
    assert query(state, "SELECT count(*) FROM import_problems") == [(50,)]
    # a few of a kind are one line too; --verbose lists each
    write_sessions_json(d, {f"agent:main:k{i}": {"sessionId": f"gone-{i}"} for i in range(3)})
    for n, (extra, lines) in enumerate((([], 1), (["--verbose"], 3))):
        state2 = tmp_path / f"state{n + 2}"
        r = run_cli("import", str(tmp_path / "src"), "--quiet", "--state-dir", str(state2), *extra)
        assert r.exit_code == 4, r.stderr
        assert len(r.stderr.splitlines()) == lines, r.stderr
