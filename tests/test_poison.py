"""One transcript that fails is its own problem (issue #15 A3): reported with its path and
reason, the run goes on, it is not retried until it or the rules change, and search does not
answer `indexing: true` because of it."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from helpers import Session, db_file, json_out, query, run_cli, write_sessions_json
from jsonschema import Draft202012Validator

from openclaw_sessions.index import index_rows

SCRIPT = Path(sys.executable).parent / "openclaw-sessions"


def _store(src: Path, n: int, filler: str = "") -> None:
    entries = {}
    for i in range(n):
        s = Session(f"p-{i:02d}")
        s.user(f"needle{i} words{filler}")
        s.assistant("explode here" if i == 7 else f"answer{i}")
        s.write(src / f"p-{i:02d}.jsonl")
        entries[f"agent:main:k{i}"] = {"sessionId": f"p-{i:02d}"}
    write_sessions_json(src, entries)


def _poison(state: Path, name: str = "p-07.jsonl") -> None:
    """A stored row that is no longer JSON (a store edited by hand, an old bug): planning the
    transcript raises. The secret in it must not leak into any report."""
    conn = sqlite3.connect(db_file(state))
    conn.execute(
        "UPDATE events SET raw = '{broken sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345'"
        " WHERE seq = 1 AND transcript_id = (SELECT transcript_id FROM transcripts"
        " WHERE source_name = ?)",
        (name,),
    )
    conn.commit()
    conn.close()


def _valid(name: str, obj: Any) -> None:
    """The shipped JSON Schema knows the new fields (failedSessions, failures, unindexed)."""
    text = resources.files("openclaw_sessions.cli").joinpath(f"schemas/{name}.schema.json")
    errors = list(Draft202012Validator(json.loads(text.read_text())).iter_errors(obj))
    assert not errors, errors[0]


def _failure_rows(state: Path) -> list[tuple[Any, ...]]:
    return query(state, "SELECT transcript_id, revision, next_seq, error, failed_at"
                 " FROM index_failures")  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("worker", ["0", "1"])
def test_a_poison_transcript_is_reported_and_not_retried(
    tmp_path: Path, state: Path, monkeypatch: pytest.MonkeyPatch, worker: str
) -> None:
    monkeypatch.setenv("OPENCLAW_SESSIONS_PLAN_WORKER", worker)
    _store(tmp_path / "src", 30)
    assert run_cli("import", str(tmp_path / "src"), "--no-reindex").exit_code == 0
    _poison(state)
    r = run_cli("reindex", "--json")
    assert r.exit_code == 4, r.stderr
    rep = json_out(r)["agents"][0]
    assert (rep["sessionsIndexed"], rep["sessionsFailed"], rep["knownFailures"]) == (29, 1, 0)
    issue = rep["issues"][0]
    assert issue["code"] == "index_failed"
    assert issue["sessionKey"] == "agent:main:k7"
    assert issue["path"].endswith("p-07.jsonl")
    assert "JSONDecodeError" in issue["message"]
    assert "sk-ant-api03" not in r.stdout
    for i in (0, 6, 8, 29):
        assert run_cli("search", f"needle{i}", "--json").exit_code == 0
    # status names it, with its path and reason; it is not pending
    r = run_cli("status", "--json")
    st = json_out(r)
    assert r.exit_code == 4
    assert st["failedSessions"] == 1
    assert st["pendingSessions"] == 0
    assert st["health"] == "attention"
    assert any("could not be indexed" in why for why in st["reasons"])
    f = st["failures"][0]
    assert f["sessionKey"] == "agent:main:k7"
    assert f["path"].endswith("p-07.jsonl")
    assert f["error"].startswith("JSONDecodeError")
    assert isinstance(f["failedAt"], int)
    _valid("status", st)
    # searches are not `indexing` because of it; they say what is missing
    out = json_out(run_cli("search", "needle1", "--json"))
    _valid("search", out)
    assert "indexing" not in out
    assert out["unindexed"] == 1
    assert "could not be indexed" in out["warning"]
    assert "unindexed" not in json_out(run_cli("search", "needle1", "--json", "--session", "k1"))
    # not retried while nothing changed
    before = _failure_rows(state)
    r = run_cli("reindex", "--json")
    assert r.exit_code == 0
    rep = json_out(r)["agents"][0]
    assert (rep["sessionsIndexed"], rep["sessionsFailed"], rep["knownFailures"]) == (0, 0, 1)
    assert _failure_rows(state) == before


def test_a_poison_transcript_is_retried_when_it_or_the_rules_change(
    tmp_path: Path, state: Path
) -> None:
    src = tmp_path / "src"
    _store(src, 8)
    assert run_cli("import", str(src), "--no-reindex").exit_code == 0
    _poison(state)
    assert run_cli("reindex").exit_code == 4
    first = _failure_rows(state)
    # new redaction rules: everything is re-indexed, the poison tried (and failed) again
    (state / "openclaw.json").write_text('{logging: {redactPatterns: ["needle3"]}}')
    rep = json_out(run_cli("reindex", "--json"))["agents"][0]
    assert (rep["sessionsIndexed"], rep["sessionsFailed"]) == (7, 1)
    # the transcript grows: tried again against its new size
    s = Session("p-07")
    s.user("needle7 words")
    s.assistant("explode here")
    s.user("one more line")
    s.write(src / "p-07.jsonl")
    assert run_cli("import", str(src), "--no-reindex").exit_code == 0
    assert json_out(run_cli("status", "--json"))["pendingSessions"] == 1
    rep = json_out(run_cli("reindex", "--json"))["agents"][0]
    assert rep["sessionsFailed"] == 1
    row = _failure_rows(state)[0]
    assert row[2] == first[0][2] + 1  # remembered against the new next_seq
    # repaired (here: by hand) and rebuilt with --full: the failure is gone
    conn = sqlite3.connect(db_file(state))
    raw = s.text().splitlines()[1]
    conn.execute("UPDATE events SET raw = ? WHERE seq = 1 AND transcript_id = ?", (raw, row[0]))
    conn.commit()
    conn.close()
    assert run_cli("reindex", "--full").exit_code == 0
    st = json_out(run_cli("status", "--json"))
    assert st["failedSessions"] == 0
    assert st["health"] == "ok"
    assert run_cli("search", "needle7", "--json").exit_code == 0


@pytest.mark.parametrize("worker", ["0", "1"])
def test_a_failed_write_lands_on_the_one_transcript(
    tmp_path: Path, state: Path, monkeypatch: pytest.MonkeyPatch, worker: str
) -> None:
    """Writing a group of small transcripts fails: each is retried alone, and only the one
    whose rows cannot be written is recorded as failed."""
    monkeypatch.setenv("OPENCLAW_SESSIONS_PLAN_WORKER", worker)
    _store(tmp_path / "src", 12)
    assert run_cli("import", str(tmp_path / "src"), "--no-reindex").exit_code == 0
    real = index_rows.insert_rows

    def insert_rows(conn: sqlite3.Connection, rows: Any) -> None:
        if any("explode" in r[5] for r in rows):
            raise OverflowError("Python int too large to convert to SQLite INTEGER")
        real(conn, rows)

    monkeypatch.setattr(index_rows, "insert_rows", insert_rows)
    r = run_cli("reindex", "--json")
    assert r.exit_code == 4
    rep = json_out(r)["agents"][0]
    assert (rep["sessionsIndexed"], rep["sessionsFailed"]) == (11, 1)
    assert rep["issues"][0]["sessionKey"] == "agent:main:k7"
    assert "OverflowError" in rep["issues"][0]["message"]
    assert query(state, "SELECT count(*) FROM index_state WHERE claim_token IS NOT NULL") == [(0,)]


def test_a_transcript_that_cannot_be_stored_is_reported_and_the_import_goes_on(
    tmp_path: Path, state: Path
) -> None:
    """A file name that is not UTF-8 cannot be a key: that file fails, the others import."""
    src = tmp_path / "src"
    _store(src, 3)
    bad = os.path.join(os.fsencode(src), b"\xff-bad.jsonl")
    with open(bad, "w") as f:
        f.write(Session("x").text())
    r = run_cli("import", str(src), "--json")
    assert r.exit_code == 4
    rep = json_out(r)
    problems = [i for i in rep["issues"] if i["severity"] == "error"]
    assert [i["code"] for i in problems] == ["transcript_failed"]
    assert problems[0]["path"].endswith("\ufffd-bad.jsonl")
    assert rep["sessionsImported"] == 3


def test_a_full_disk_still_ends_reindex_with_exit_3(
    tmp_path: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _store(tmp_path / "src", 40, " lorem ipsum" * 2000)
    assert run_cli("import", str(tmp_path / "src"), "--no-reindex").exit_code == 0
    pages = query(state, "PRAGMA page_count")[0][0]
    monkeypatch.setenv("OPENCLAW_SESSIONS_MAX_PAGES", str(pages))
    r = run_cli("reindex")
    assert r.exit_code == 3, r.stderr
    assert r.stderr.startswith("error: disk or database full"), r.stderr
    monkeypatch.delenv("OPENCLAW_SESSIONS_MAX_PAGES")
    assert query(state, "SELECT count(*) FROM index_failures") == [(0,)]


@pytest.mark.slow
def test_the_background_reconciler_records_the_poison_and_searches_stop_saying_indexing(
    tmp_path: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _store(tmp_path / "src", 8)
    assert run_cli("import", str(tmp_path / "src"), "--no-reindex").exit_code == 0
    _poison(state)
    monkeypatch.delenv("OPENCLAW_SESSIONS_NO_BACKGROUND")
    env = {**os.environ, "OPENCLAW_STATE_DIR": str(state)}
    first = subprocess.run([str(SCRIPT), "search", "needle1", "--json"], capture_output=True,
                           text=True, env=env, timeout=60)  # fmt: skip
    assert '"indexing": true' in first.stdout  # and a background reconciler was started
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # wait for the condition, not for a time
        st = json_out(run_cli("status", "--json"))
        if st["failedSessions"] == 1 and not st["indexing"]:
            break
        time.sleep(0.05)
    assert st["failedSessions"] == 1, st
    assert st["pendingSessions"] == 0, st
    after = subprocess.run([str(SCRIPT), "search", "needle1", "--json"], capture_output=True,
                           text=True, env=env, timeout=60)  # fmt: skip
    assert after.returncode == 0
    assert '"indexing"' not in after.stdout
    assert '"unindexed": 1' in after.stdout
