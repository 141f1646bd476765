"""Upstream's legacy `/reset` renames `<id>.jsonl` to `<id>.jsonl.reset.<ISO>` and starts a new
current file for the same key: the archive takes over the stored transcript (one copy, one
hit), and a current file that vanishes without an archive is reported, not kept as current."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers import Session, json_out, query, run_cli, write_sessions_json

KEY = "agent:main:telegram:direct:42"
ARCHIVE = "s1.jsonl.reset.2026-01-02T03-04-05.678Z"


def _sdir(tmp_path: Path) -> Path:
    return tmp_path / "src" / "agents" / "main" / "sessions"


def _imp(tmp_path: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    r = run_cli("import", str(tmp_path / "src"), "--json", *extra)
    return r.exit_code, json_out(r)


def _hits(word: str) -> list[tuple[str, str]]:
    r = run_cli("search", word, "--json")
    return [(h["sessionKey"], h["sessionId"]) for h in json_out(r)["results"]]


def _start(tmp_path: Path) -> Session:
    d = _sdir(tmp_path)
    s1 = Session("s1")
    s1.user("kubernetes migration plan")
    s1.assistant("the zqfirstgen answer")
    s1.write(d / "s1.jsonl")
    write_sessions_json(d, {KEY: {"sessionId": "s1"}})
    assert run_cli("import", str(tmp_path / "src"), "--reindex", "--quiet").exit_code == 0
    return s1


def _reset(tmp_path: Path, archive: str = ARCHIVE) -> Session:
    d = _sdir(tmp_path)
    (d / "s1.jsonl").rename(d / archive)
    s2 = Session("s2")
    s2.user("zqsecondgen fresh start")
    s2.write(d / "s2.jsonl")
    write_sessions_json(d, {KEY: {"sessionId": "s2"}})
    return s2


def test_the_archive_takes_over_the_renamed_transcript(tmp_path: Path, state: Path) -> None:
    _start(tmp_path)
    events = query(state, "SELECT count(*) FROM events")[0][0]
    _reset(tmp_path)
    code, rep = _imp(tmp_path, "--reindex")
    assert code == 0, rep
    notices = [(i["code"], i.get("sessionKey")) for i in rep["issues"]]
    assert notices == [("transcript_renamed", KEY)]
    assert "s1.jsonl was renamed" in rep["issues"][0]["message"]
    assert KEY in rep["issues"][0]["message"]
    assert ":orphan:" not in str(rep["issues"])
    assert _hits("zqfirstgen") == [(KEY, "s1")]  # once, not twice
    assert _hits("zqsecondgen") == [(KEY, "s2")]
    assert query(state, "SELECT source_name, session_key, kind FROM transcripts ORDER BY 1") == [
        (ARCHIVE, KEY, "reset"), ("s2.jsonl", KEY, "current"),
    ]  # fmt: skip
    assert query(state, "SELECT count(*) FROM events")[0][0] == events + 2  # s2's lines only
    r = run_cli("history", KEY, "--json")
    assert json_out(r)["sessionId"] == "s2"
    code, again = _imp(tmp_path)
    assert (code, again["issues"], again["sessionsUnchanged"]) == (0, [], 2)
    assert _hits("zqfirstgen") == [(KEY, "s1")]


def test_lines_added_before_the_rename_are_imported_once(tmp_path: Path, state: Path) -> None:
    s1 = _start(tmp_path)
    s1.user("zqlateline written just before the reset")
    s1.write(_sdir(tmp_path) / "s1.jsonl")
    _reset(tmp_path)
    code, rep = _imp(tmp_path, "--reindex")
    assert code == 0, rep
    assert (rep["sessionsImported"], rep["sessionsUpdated"], rep["eventsStored"]) == (1, 1, 3)
    assert _hits("zqlateline") == [(KEY, "s1")]
    assert _hits("zqfirstgen") == [(KEY, "s1")]


def test_a_copy_is_not_a_rename_and_a_dry_run_writes_nothing(
    tmp_path: Path, state: Path
) -> None:
    _start(tmp_path)
    d = _sdir(tmp_path)
    (d / "s1.jsonl").rename(d / ARCHIVE)
    code, rep = _imp(tmp_path, "--dry-run")  # the store entry still names s1.jsonl: missing
    assert [i["code"] for i in rep["issues"]] == ["transcript_missing", "transcript_renamed"]
    assert query(state, "SELECT source_name FROM transcripts") == [("s1.jsonl",)]
    (d / "s1.jsonl").write_bytes((d / ARCHIVE).read_bytes())  # the old file is still there
    code, rep = _imp(tmp_path)
    assert rep["issues"] == []  # filed under the key its session id was stored under
    assert query(state, "SELECT source_name, session_key FROM transcripts ORDER BY 1") == [
        ("s1.jsonl", KEY), (ARCHIVE, KEY),
    ]  # fmt: skip


def test_an_archive_of_another_content_is_not_a_rename(tmp_path: Path, state: Path) -> None:
    _start(tmp_path)
    d = _sdir(tmp_path)
    (d / "s1.jsonl").unlink()
    other = Session("s1")
    other.user("zqotherwords entirely")
    other.write(d / ARCHIVE)
    write_sessions_json(d, {})
    code, rep = _imp(tmp_path)
    assert [i["code"] for i in rep["issues"]] == ["transcript_vanished"]
    assert query(state, "SELECT source_name, kind FROM transcripts ORDER BY 1") == [
        ("s1.jsonl", "vanished"), (ARCHIVE, "reset"),
    ]  # fmt: skip


def test_a_current_file_that_vanished_is_reported_and_kept(tmp_path: Path, state: Path) -> None:
    _start(tmp_path)
    d = _sdir(tmp_path)
    keep = (d / "s1.jsonl").read_bytes()
    (d / "s1.jsonl").unlink()
    write_sessions_json(d, {})  # no entry names it any more, and no archive of it
    code, rep = _imp(tmp_path)
    assert code == 0
    assert [(i["code"], i["sessionKey"], i["severity"]) for i in rep["issues"]] == [
        ("transcript_vanished", KEY, "notice"),
    ]  # fmt: skip
    assert query(state, "SELECT kind FROM transcripts") == [("vanished",)]
    r = run_cli("status", "--json")
    st = json_out(r)
    assert r.exit_code == 4
    assert st["vanishedTranscripts"] == 1
    assert "vanished" in st["reasons"][0]
    assert _hits("zqfirstgen") == [(KEY, "s1")]  # kept, still searchable (documented)
    assert [i["code"] for i in _imp(tmp_path)[1]["issues"]] == ["transcript_vanished"]
    (d / "s1.jsonl").write_bytes(keep)  # it comes back: current again, under its key
    code, rep = _imp(tmp_path)
    assert (code, rep["eventsStored"], rep["issues"]) == (0, 0, [])
    assert query(state, "SELECT kind FROM transcripts") == [("current",)]
    assert run_cli("status").exit_code == 0


def test_the_archive_of_a_vanished_file_takes_it_over_later(tmp_path: Path, state: Path) -> None:
    _start(tmp_path)
    d = _sdir(tmp_path)
    (d / "s1.jsonl").rename(tmp_path / "elsewhere.jsonl")
    write_sessions_json(d, {})
    assert [i["code"] for i in _imp(tmp_path)[1]["issues"]] == ["transcript_vanished"]
    (tmp_path / "elsewhere.jsonl").rename(d / ARCHIVE)
    code, rep = _imp(tmp_path, "--reindex")
    assert [i["code"] for i in rep["issues"]] == ["transcript_renamed"]
    assert query(state, "SELECT source_name, kind FROM transcripts") == [(ARCHIVE, "reset")]
    assert _hits("zqfirstgen") == [(KEY, "s1")]
    assert run_cli("status").exit_code == 0
