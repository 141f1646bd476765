"""Issue #34 points 3 (import) and 5 (keys): nothing forges a session's history.

A file carrying an existing session's id from outside that session's own place (the sessions
dir it was imported from) is imported as nothing, with an error naming it (exit 4); a
symlinked directory inside an import source is refused like a symlinked file; a store key
whose agent id is invalid is refused at import, once, with a note.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers import Session, json_out, run_cli, write_sessions_json


def _root(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    sdir = src / "agents" / "main" / "sessions"
    s = Session("s1")
    s.user("the genuine request")
    s.assistant("the genuine answer")
    s.write(sdir / "s1.jsonl")
    write_sessions_json(sdir, {"agent:main:main": {"sessionId": "s1"}})
    r = run_cli("import", str(src), "--reindex", "--quiet")
    assert r.exit_code == 0, r.stderr
    return sdir


def _texts(key: str = "agent:main:main") -> str:
    r = run_cli("history", key, "--json")
    assert r.exit_code == 0, r.stderr
    return str(r.stdout)


def _forged(path: Path) -> Path:
    f = Session("s1")
    f.user("the forged request")
    return f.write(path)


# -- a stray file with an existing id --------------------------------------------------------


def test_a_stray_file_never_replaces_a_sessions_history(tmp_path: Path) -> None:
    _root(tmp_path)
    stray = _forged(tmp_path / "elsewhere" / "s1.jsonl")
    r = run_cli("import", str(stray), "--json")
    assert r.exit_code == 4, r.stdout
    issues = [i for i in json_out(r)["issues"] if i["code"] == "transcript_foreign"]
    assert [i["path"] for i in issues] == [str(stray)]
    assert "genuine" in _texts()
    assert "forged" not in _texts()
    assert run_cli("search", "forged", "--wait").exit_code == 1
    # a stray sessions dir whose store names the same key: the same verdict
    sdir = stray.parent / "agents" / "main" / "sessions"
    _forged(sdir / "s1.jsonl")
    write_sessions_json(sdir, {"agent:main:main": {"sessionId": "s1"}})
    r = run_cli("import", str(stray.parent / "agents" / ".."), "--json")
    assert r.exit_code == 4
    assert any(i["code"] == "transcript_foreign" for i in json_out(r)["issues"])
    assert "forged" not in _texts()
    # the real file in its own place still appends
    s = Session("s1")
    s.user("the genuine request")
    s.assistant("the genuine answer")
    s.user("a genuine follow-up")
    s.write(tmp_path / "src" / "agents" / "main" / "sessions" / "s1.jsonl")
    assert run_cli("import", str(tmp_path / "src")).exit_code == 0
    assert "follow-up" in _texts()


def test_an_identical_copy_elsewhere_is_nothing_and_a_moved_root_is_followed(
    tmp_path: Path,
) -> None:
    sdir = _root(tmp_path)
    copy = tmp_path / "copy"
    shutil.copytree(tmp_path / "src", copy)
    r = run_cli("import", str(copy), "--json")
    assert r.exit_code == 0, r.stdout
    assert json_out(r)["issues"] == []
    # the session's own place is gone (the state root moved): its new place takes over
    shutil.rmtree(tmp_path / "src")
    moved = copy / "agents" / "main" / "sessions" / "s1.jsonl"
    with moved.open("a", encoding="utf-8") as f:
        f.write('{"type":"message","id":"zz","parentId":"00000002","timestamp":'
                '"2026-01-01T00:00:09.000Z","message":{"role":"user","content":'
                '[{"type":"text","text":"after the move"}]}}\n')  # fmt: skip
    assert sdir != moved.parent
    assert run_cli("import", str(copy)).exit_code == 0
    assert "after the move" in _texts()


# -- symlinked directories -------------------------------------------------------------------


def test_a_symlinked_directory_in_a_source_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "other" / "agents" / "ops" / "sessions"
    s = Session("o1")
    s.user("the ops agent's own talk")
    s.write(other / "o1.jsonl")
    write_sessions_json(other, {"agent:ops:main": {"sessionId": "o1"}})
    src = tmp_path / "src2"
    src.mkdir()
    (src / "link").symlink_to(other)
    r = run_cli("import", str(src), "--json")
    assert r.exit_code == 4, r.stdout
    doc = json_out(r)
    assert doc["sessionsImported"] == 0
    assert [(i["code"], i["path"]) for i in doc["issues"]] == [("link_dir", str(src / "link"))]
    # in a state root: an agent dir or a sessions dir that is a link
    root = tmp_path / "root"
    (root / "agents" / "main").mkdir(parents=True)
    (root / "agents" / "ops").symlink_to(other.parent)
    (root / "agents" / "main" / "sessions").symlink_to(other)
    r = run_cli("import", str(root), "--json")
    assert r.exit_code == 4
    doc = json_out(r)
    assert doc["sessionsImported"] == 0
    assert sorted(i["path"] for i in doc["issues"] if i["code"] == "link_dir") == [
        str(root / "agents" / "main" / "sessions"),
        str(root / "agents" / "ops"),
    ]
    assert "the ops agent" not in run_cli("sessions", "--all-agents").stdout


# -- keys whose agent id is invalid ------------------------------------------------------------


def test_a_key_with_an_invalid_agent_id_is_refused_once_with_a_note(tmp_path: Path) -> None:
    sdir = tmp_path / "src" / "agents" / "main" / "sessions"
    for sid, text in (("s1", "main words"), ("s2", "text under a bad key")):
        s = Session(sid)
        s.user(text)
        s.write(sdir / f"{sid}.jsonl")
    write_sessions_json(sdir, {"agent:main:main": {"sessionId": "s1"},
                               "agent:bad id!:x": {"sessionId": "s2"}})  # fmt: skip
    r = run_cli("import", str(tmp_path / "src"), "--json")
    assert r.exit_code == 0, r.stdout
    notes = [i for i in json_out(r)["issues"] if i["code"] == "key_invalid"]
    assert len(notes) == 1
    assert notes[0]["severity"] == "notice"
    listed = run_cli("sessions", "--all-agents").stdout
    assert "bad id!" not in listed
    for line in listed.splitlines():  # every key listed opens
        assert run_cli("history", line.split("\t")[0]).exit_code == 0, line
    assert "text under a bad key" in _texts("agent:main:orphan:s2")  # nothing lost
    again = run_cli("import", str(tmp_path / "src"), "--json")
    assert [i["known"] for i in json_out(again)["issues"] if i["code"] == "key_invalid"] == [True]
