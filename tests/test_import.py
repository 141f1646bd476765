"""`import`: lossless, idempotent, incremental, rewrite-aware, malformed input kept."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import (
    REPO,
    Session,
    db_file,
    events_dump,
    gated_cli,
    integrity,
    json_out,
    killed_by,
    query,
    run_cli,
    write_sessions_json,
)

from openclaw_sessions.store.migrations import PAGE_SIZE


def _sessions(root: Path, agent: str = "main") -> Path:
    return root / "agents" / agent / "sessions"


def make_state(root: Path) -> dict[str, Session]:
    d = _sessions(root)
    a, b = Session("aaaa-1"), Session("bbbb-2")
    a.user("hello alpha world")
    a.assistant("reply about kubernetes")
    b.user("second session text")
    a.write(d / "aaaa-1.jsonl")
    b.write(d / "bbbb-2.jsonl")
    write_sessions_json(
        d,
        {
            "agent:main:main": {"sessionId": "aaaa-1", "updatedAt": 1},
            "agent:main:subagent:x": {"sessionId": "bbbb-2", "spawnedBy": "agent:main:main"},
        },
    )
    return {"a": a, "b": b}


def test_import_stores_every_line_and_is_idempotent(tmp_path: Path, state: Path) -> None:
    src = tmp_path / "src"
    sessions = make_state(src)
    r = run_cli("import", str(src), "--json")
    assert r.exit_code == 0, r.output
    rep = json_out(r)
    assert rep["sessionsImported"] == 2
    assert rep["eventsStored"] == 3 + 2
    dump = events_dump(state)
    for name, s in (("aaaa-1.jsonl", sessions["a"]), ("bbbb-2.jsonl", sessions["b"])):
        raws = [row[3] for row in dump if row[0] == name]
        assert "".join(x + "\n" for x in raws) == s.text()
    again = json_out(run_cli("import", str(src), "--json"))
    assert again["eventsStored"] == 0
    assert again["sessionsUnchanged"] == 2
    assert events_dump(state) == dump
    keys = query(state, "SELECT session_key, spawned_by FROM sessions ORDER BY 1")
    assert keys == [("agent:main:main", None), ("agent:main:subagent:x", "agent:main:main")]
    assert query(state, "PRAGMA page_size") == [(PAGE_SIZE,)]
    assert PAGE_SIZE == 16384


def test_dry_run_writes_nothing(tmp_path: Path, state: Path) -> None:
    src = tmp_path / "src"
    make_state(src)
    rep = json_out(run_cli("import", str(src), "--dry-run", "--json"))
    assert rep["dryRun"]
    assert rep["eventsStored"] == 5
    assert not db_file(state).exists()


def test_incremental_append_and_partial_last_line(tmp_path: Path, state: Path) -> None:
    src = tmp_path / "src"
    s = make_state(src)["a"]
    path = _sessions(src) / "aaaa-1.jsonl"
    run_cli("import", str(src))
    s.user("appended later")
    text = s.text()
    partial = json.dumps({"type": "message", "id": "zz", "parentId": s.leaf})[:20]
    path.write_text(text + partial, encoding="utf-8")
    rep = json_out(run_cli("import", str(src), "--json"))
    assert rep["eventsStored"] == 1
    assert rep["sessionsUpdated"] == 1
    assert any(i["code"] == "line_incomplete" for i in rep["issues"])
    assert rep["problems"] == 0
    raws = [r[3] for r in events_dump(state) if r[0] == "aaaa-1.jsonl"]
    assert "".join(x + "\n" for x in raws) == text


def test_rewritten_file_is_a_new_revision(tmp_path: Path, state: Path) -> None:
    src = tmp_path / "src"
    make_state(src)
    run_cli("import", str(src), "--reindex")
    other = Session("aaaa-1")
    other.user("completely different history")
    other.write(_sessions(src) / "aaaa-1.jsonl")
    rep = json_out(run_cli("import", str(src), "--json", "--no-reindex"))
    assert rep["sessionsRewritten"] == 1
    raws = [r[3] for r in events_dump(state) if r[0] == "aaaa-1.jsonl"]
    assert "".join(x + "\n" for x in raws) == other.text()  # nothing duplicated
    assert query(state, "SELECT revision FROM transcripts WHERE source_name = 'aaaa-1.jsonl'") == [
        (2,)
    ]
    assert query(state, "SELECT count(*) FROM archived_events")[0][0] == 3
    dirty = query(
        state,
        "SELECT s.needs_rebuild FROM index_state s JOIN transcripts t USING"
        " (transcript_id) WHERE t.source_name = 'aaaa-1.jsonl'",
    )
    assert dirty == [(1,)]


def test_malformed_and_invalid_utf8_lines_are_quarantined(tmp_path: Path, state: Path) -> None:
    src = tmp_path / "src"
    s = make_state(src)["a"]
    path = _sessions(src) / "aaaa-1.jsonl"
    lines = s.text().encode().splitlines(keepends=True)
    bad = (
        lines[:2]
        + [b'{"type": "message", broken\n', b'{"x": "\xff\xfe"}\n', b"[1,2]\n"]
        + lines[2:]
    )
    path.write_bytes(b"".join(bad))
    r = run_cli("import", str(src), "--json")
    assert r.exit_code == 4
    rep = json_out(r)
    codes = sorted((i["code"], i["line"]) for i in rep["issues"] if i["severity"] == "error")
    assert codes == [("line_invalid_utf8", 4), ("line_malformed", 3), ("line_malformed", 5)]
    assert rep["malformedLines"] == 3
    assert len([r for r in events_dump(state) if r[0] == "aaaa-1.jsonl"]) == len(lines)
    kept = query(state, "SELECT line_no, raw FROM quarantine ORDER BY line_no")
    assert kept[1] == (4, b'{"x": "\xff\xfe"}')
    # a rerun does not duplicate the quarantine or the events
    assert run_cli("import", str(src)).exit_code == 0
    assert query(state, "SELECT count(*) FROM quarantine")[0][0] == 3


def test_missing_invalid_and_escaping_entries_are_reported(tmp_path: Path, state: Path) -> None:
    d = _sessions(tmp_path / "src")
    Session("ok-1").write(d / "ok-1.jsonl")
    (tmp_path / "outside.jsonl").write_text(Session("evil").text())
    write_sessions_json(
        d,
        {
            "agent:main:main": {"sessionId": "ok-1"},
            "agent:main:gone": {"sessionId": "gone-1"},
            "agent:main:bad": {"nope": 1},
            "agent:main:escape": {"sessionId": "esc-1", "sessionFile": "../../../outside.jsonl"},
        },
    )
    r = run_cli("import", str(tmp_path / "src"), "--json")
    assert r.exit_code == 4
    codes = {i["code"] for i in json_out(r)["issues"]}
    assert {"transcript_missing", "entry_invalid", "path_escape"} <= codes
    names = [r[0] for r in query(state, "SELECT source_name FROM transcripts")]
    assert names == ["ok-1.jsonl"]


def test_absolute_session_file_from_another_machine(tmp_path: Path, state: Path) -> None:
    """A copied state dir keeps absolute paths into its old home: the same name here is used;
    a name that is not here is a missing transcript, not an escape."""
    d = _sessions(tmp_path / "src")
    win = "C:\\Users\\x\\.openclaw\\agents\\main\\sessions\\gone-2.jsonl"
    Session("moved-1").write(d / "moved-1.jsonl")
    write_sessions_json(d, {
        "agent:main:main": {"sessionId": "moved-1",
                            "sessionFile": "/root/.openclaw/agents/main/sessions/moved-1.jsonl"},
        "agent:main:win": {"sessionId": "gone-2",
                           "sessionFile": win},
        "agent:main:evil": {"sessionId": "evil-3", "sessionFile": "/etc/passwd"},
    })  # fmt: skip
    rep = json_out(run_cli("import", str(tmp_path / "src"), "--json"))
    codes = {(i["code"], i.get("sessionKey")) for i in rep["issues"]}
    assert codes == {("transcript_missing", "agent:main:win"), ("path_escape", "agent:main:evil")}
    assert query(state, "SELECT session_key FROM transcripts") == [("agent:main:main",)]


def test_unreferenced_reset_and_archives(tmp_path: Path, state: Path) -> None:
    d = _sessions(tmp_path / "src")
    Session("cur-1").write(d / "cur-1.jsonl")
    Session("old-0").write(d / "old-0.jsonl.reset.2026-01-01T00-00-00.000Z")
    Session("del-9").write(d / "del-9.jsonl.deleted.2026-01-02T00-00-00.000Z")
    Session("cur-1").write(d / "cur-1.jsonl.bak-123-456")
    (d / "cur-1.jsonl.lock").write_text('{\n "pid": 1\n}')
    Session("orph-7").write(d / "orph-7.jsonl")
    write_sessions_json(d, {"agent:main:main": {"sessionId": "cur-1"}})
    rep = json_out(run_cli("import", str(tmp_path / "src"), "--json"))
    codes = sorted(i["code"] for i in rep["issues"])
    assert codes == [
        "archive_unreferenced",
        "backup_skipped",
        "deleted_skipped",
        "transcript_unreferenced",
    ]
    rows = dict(query(state, "SELECT source_name, kind FROM transcripts"))
    assert rows == {
        "cur-1.jsonl": "current",
        "old-0.jsonl.reset.2026-01-01T00-00-00.000Z": "reset",
        "orph-7.jsonl": "current",
    }
    rep2 = json_out(run_cli("import", str(tmp_path / "src"), "--include-archives", "--json"))
    assert rep2["sessionsImported"] == 2


@pytest.mark.slow
def test_corpus_every_line_stored_and_reproduced(corpus: Path, state: Path) -> None:
    r = run_cli("import", str(corpus), "--include-archives", "--json")
    assert r.exit_code in (0, 4), r.output
    rep = json_out(r)
    assert rep["malformedLines"] == 0
    files = [
        p
        for p in corpus.rglob("*")
        if p.is_file() and ".jsonl" in p.name and not p.name.endswith(".lock")
    ]
    agents = {p.parent.parent.name for p in files if p.parent.parent.parent.name == "agents"}
    stored: dict[str, list[str]] = {}
    for agent in agents | {"main"}:
        for name, _seq, _ln, raw in events_dump(state, agent):
            stored.setdefault(name, []).append(raw)
    for p in files:
        data = p.read_bytes()
        nonblank = [ln for ln in data.decode().split("\n") if ln.strip()]
        assert stored[p.name] == nonblank, p
    again = json_out(run_cli("import", str(corpus), "--include-archives", "--json"))
    assert again["eventsStored"] == 0


@pytest.mark.slow
def test_interrupted_import_then_rerun_equals_clean(tmp_path: Path) -> None:
    src = tmp_path / "src"
    d = _sessions(src)
    for i in range(30):
        s = Session(f"big-{i:02d}")
        for j in range(400):
            s.user(f"message {j} " + "lorem ipsum dolor " * 20)
        s.write(d / f"big-{i:02d}.jsonl")
    killed_state = tmp_path / "killed"
    env = {**os.environ, "OPENCLAW_STATE_DIR": str(killed_state)}
    cmd = [sys.executable, "-m", "openclaw_sessions", "import", str(src), "--quiet"]
    # Killed inside the 4th transcript's transaction (its events written, not committed).
    gate = ("openclaw_sessions.ingest.store_lines", "_flush", 4)
    proc = gated_cli(killed_state, gate, "import", str(src), "--quiet")
    killed_by(proc, signal.SIGKILL)
    assert proc.returncode == -signal.SIGKILL
    integrity(killed_state)
    counts = query(
        killed_state,
        "SELECT t.transcript_id, count(e.seq), t.next_seq FROM"
        " transcripts t LEFT JOIN events e USING (transcript_id) GROUP BY 1",
    )
    assert len(counts) == 3
    assert all(n == nxt for _, n, nxt in counts)  # whole or absent
    subprocess.run(cmd, env=env, cwd=REPO, check=True)
    env2 = {**env, "OPENCLAW_STATE_DIR": str(tmp_path / "clean")}
    subprocess.run(cmd, env=env2, cwd=REPO, check=True)
    assert events_dump(killed_state) == events_dump(tmp_path / "clean")


def test_a_lone_file_leaves_a_known_transcript_as_its_sessions_dir_said(
    tmp_path: Path, state: Path
) -> None:
    """`import FILE` of a transcript already imported from its sessions dir adds its new
    lines; its key, kind and path stay those of the dir (it was turned into an orphan)."""
    src = tmp_path / "src"
    s = make_state(src)
    assert run_cli("import", str(src)).exit_code == 0
    sql = "SELECT session_key, kind, source_path FROM transcripts WHERE session_id = 'aaaa-1'"
    before = query(state, sql)
    assert before[0][:2] == ("agent:main:main", "current")
    s["a"].user("one more line")
    s["a"].write(_sessions(src) / "aaaa-1.jsonl")
    r = run_cli("import", os.path.relpath(_sessions(src) / "aaaa-1.jsonl"), "--json")
    assert r.exit_code == 0, r.stdout
    assert json_out(r)["eventsStored"] == 1, r.stdout
    assert query(state, sql) == before


def test_a_first_import_prints_one_line_per_kind_of_note(tmp_path: Path) -> None:
    """Five missing transcripts, two files no entry names, one deleted archive: three lines
    (the lone one as itself); --verbose lists every issue; --json is unchanged by either."""
    src = _sessions(tmp_path / "src")
    entries = {f"agent:main:gone{i}": {"sessionId": f"gone-{i}"} for i in range(5)}
    for sid in ("real-1", "stray-1", "stray-2"):
        s = Session(sid)
        s.user(f"hello from {sid}")
        s.write(src / f"{sid}.jsonl")
    Session("old-1").write(src / "old-1.jsonl.deleted.2026-01-01T00-00-00.000Z")
    write_sessions_json(src, {**entries, "agent:main:real": {"sessionId": "real-1"}})
    loud = run_cli("import", str(tmp_path / "src"), "--dry-run")
    issues = [ln for ln in loud.stderr.splitlines() if ln.startswith("  ")]
    assert sorted(ln.split(": ")[1] for ln in issues) == [
        "deleted_skipped", "transcript_missing", "transcript_unreferenced"
    ]  # fmt: skip
    missing = next(ln for ln in issues if "transcript_missing" in ln)
    assert missing.startswith("  problem: transcript_missing: 5 times (first: ")
    assert "gone-0.jsonl]; then: [" in missing
    assert "gone-1.jsonl], …)" in missing
    stray = next(ln for ln in issues if "transcript_unreferenced" in ln)
    assert "2 times" in stray
    assert "stray-2.jsonl]);" in stray  # two: no ellipsis
    lone = next(ln for ln in issues if "deleted_skipped" in ln)
    assert "times" not in lone
    assert "old-1.jsonl.deleted" in lone
    every = run_cli("import", str(tmp_path / "src"), "--dry-run", "--verbose")
    assert sum("transcript_missing" in ln for ln in every.stderr.splitlines()) == 5
    assert sum("transcript_unreferenced" in ln for ln in every.stderr.splitlines()) == 2
    plain = json_out(run_cli("import", str(tmp_path / "src"), "--dry-run", "--json"))
    verbose = json_out(run_cli("import", str(tmp_path / "src"), "--dry-run", "--json", "-v"))
    assert plain == verbose
    assert len(plain["issues"]) == 8
