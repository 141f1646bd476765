"""A no-op import reads no file it does not have to (issue #19): a transcript or a session
store whose stat (size, mtime, inode, ctime) is the one recorded when it was last read whole
is not opened; a changed stat falls back to the content fingerprint; a stat too recent to be
sure of is never trusted. File opens are counted with an audit hook."""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import Session, db_file, query, write_sessions_json

from openclaw_sessions.ingest import transcripts
from openclaw_sessions.ingest.importer import ImportOptions, import_sources
from openclaw_sessions.reports import ImportReport
from openclaw_sessions.store.delete import DeleteOptions, delete_session

_OPENED: list[str] = []
_RECORDING: list[bool] = []


def _hook(event: str, args: tuple[object, ...]) -> None:
    if _RECORDING and event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
        _OPENED.append(os.fsdecode(args[0]))  # type: ignore[arg-type]


sys.addaudithook(_hook)  # process-wide and permanent: it records only while asked to


@pytest.fixture
def opened() -> Iterator[list[str]]:
    _OPENED.clear()
    _RECORDING.append(True)
    try:
        yield _OPENED
    finally:
        _RECORDING.clear()


def _state(root: Path) -> Path:
    d = root / "agents" / "main" / "sessions"
    for i in range(3):
        s = Session(f"n-{i}")
        s.user(f"noop words {i}")
        s.assistant("answer")
        s.write(d / f"n-{i}.jsonl")
    Session("n-orphan").write(d / "n-orphan.jsonl")  # no store entry: imported as an orphan
    write_sessions_json(
        d,
        {
            "agent:main:main": {"sessionId": "n-0"},
            "agent:main:subagent:x": {"sessionId": "n-1", "spawnedBy": "agent:main:main"},
            "agent:main:telegram:direct:1": {"sessionId": "n-2"},
        },
    )
    return d


def _import(root: Path) -> ImportReport:
    return import_sources(ImportOptions(state_dir=root)).report


def _under(paths: list[str], d: Path) -> list[str]:
    return sorted(Path(p).name for p in paths if Path(p).parent == d)


def test_a_noop_import_opens_no_file(
    tmp_path: Path, opened: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(transcripts, "SETTLED_NS", 0)  # trust stats at once (no waiting)
    d = _state(tmp_path / "state")
    first = _import(tmp_path / "state")
    assert first.imported == 4
    assert set(_under(opened, d)) >= {"n-0.jsonl", "sessions.json"}
    opened.clear()
    again = _import(tmp_path / "state")
    assert _under(opened, d) == []
    assert (again.unchanged, again.imported, again.sessions) == (4, 0, 3)
    # The report is the same without reading: the orphan is still reported as one.
    codes = sorted(i.code for i in again.issues)
    assert codes == sorted(i.code for i in first.issues) == ["transcript_unreferenced"]


def test_a_changed_stat_falls_back_to_the_content(
    tmp_path: Path, opened: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(transcripts, "SETTLED_NS", 0)
    d = _state(tmp_path / "state")
    _import(tmp_path / "state")
    st = (d / "n-1.jsonl").stat()
    os.utime(d / "n-1.jsonl", ns=(st.st_atime_ns, st.st_mtime_ns - 5_000_000_000))  # touched
    opened.clear()
    rep = _import(tmp_path / "state")
    assert _under(opened, d) == ["n-1.jsonl"]
    assert rep.unchanged == 4  # read, found the same
    opened.clear()
    assert _import(tmp_path / "state").unchanged == 4
    assert _under(opened, d) == []  # recorded
    with open(d / "n-2.jsonl", "a", encoding="utf-8") as f:  # an append: read and stored
        s = Session("n-2")
        s.assistant("appended noop words")
        f.write(s.text().splitlines(keepends=True)[1])
    opened.clear()
    rep = _import(tmp_path / "state")
    assert _under(opened, d) == ["n-2.jsonl"]
    assert (rep.updated, rep.events) == (1, 1)


def test_a_changed_session_store_is_read_and_stored_again(
    tmp_path: Path, opened: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(transcripts, "SETTLED_NS", 0)
    root = tmp_path / "state"
    d = _state(root)
    _import(root)
    write_sessions_json(d, {"agent:main:main": {"sessionId": "n-0", "label": "renamed"}})
    opened.clear()
    _import(root)
    assert "sessions.json" in _under(opened, d)
    assert query(root, "SELECT label FROM sessions WHERE session_key = 'agent:main:main'") == [
        ("renamed",)
    ]


def test_a_deleted_session_comes_back_whole_on_the_next_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`delete` forgets the session stores' stats: a deleted session stays deleted while its
    files are unchanged (its tombstone), and `--undelete` brings it back with its store entry
    (relations included), not a bare row for the re-imported transcript."""
    monkeypatch.setattr(transcripts, "SETTLED_NS", 0)
    root = tmp_path / "state"
    _state(root)
    _import(root)
    delete_session(DeleteOptions("agent:main:subagent:x", state_dir=root))
    _import(root)
    sql = "SELECT spawned_by, derived FROM sessions WHERE session_id = 'n-1'"
    assert query(root, sql) == []
    import_sources(ImportOptions(state_dir=root, undelete=["agent:main:subagent:x"]))
    assert query(root, sql) == [("agent:main:main", 0)]


def test_a_deleted_session_that_went_on_comes_back_with_its_store_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A deleted session whose file changed since (the session went on) comes back, and the
    next import stores its store entry again (relations included): the session store's stat,
    recorded while the key was deleted, does not keep it out."""
    monkeypatch.setattr(transcripts, "SETTLED_NS", 0)
    root = tmp_path / "state"
    d = _state(root)
    _import(root)
    delete_session(DeleteOptions("agent:main:subagent:x", state_dir=root))
    _import(root)  # skipped while unchanged; sessions.json read, its stat recorded
    with open(d / "n-1.jsonl", "a", encoding="utf-8") as f:
        s = Session("n-1")
        s.user("the session went on")
        f.write(s.text().splitlines(keepends=True)[1])
    assert _import(root).imported == 1
    _import(root)
    sql = "SELECT spawned_by, derived FROM sessions WHERE session_id = 'n-1'"
    assert query(root, sql) == [("agent:main:main", 0)]


def test_a_stat_too_recent_is_not_trusted(tmp_path: Path, opened: list[str]) -> None:
    """A file written within the last second could be written again without its stat
    changing (coarse timestamps): it is read on every run until it settles."""
    d = _state(tmp_path / "state")
    assert transcripts.signature((d / "n-0.jsonl").stat()) is None
    _import(tmp_path / "state")
    opened.clear()
    assert _import(tmp_path / "state").unchanged == 4
    assert "n-0.jsonl" in _under(opened, d)


def test_a_dry_run_records_no_stat(
    tmp_path: Path, opened: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store from before the stats (an upgrade): a dry run reads the files and writes
    nothing; the next real run records their stats; the one after opens none."""
    monkeypatch.setattr(transcripts, "SETTLED_NS", 0)
    root = tmp_path / "state"
    d = _state(root)
    _import(root)
    conn = sqlite3.connect(db_file(root, "main"))
    with conn:
        conn.execute("DELETE FROM source_stats")
    conn.close()
    rep = import_sources(ImportOptions(state_dir=root, dry_run=True)).report
    assert rep.unchanged == 4
    assert query(root, "SELECT count(*) FROM source_stats") == [(0,)]
    assert _import(root).unchanged == 4
    assert query(root, "SELECT count(*) FROM source_stats") == [(4,)]
    opened.clear()
    assert _import(root).unchanged == 4
    assert _under(opened, d) == []
