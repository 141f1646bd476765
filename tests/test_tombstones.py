"""`delete` is remembered (issue #18 §5): the next `import` does not bring the session back while
its files are unchanged (it skips and reports it, once); a file that changed since brings it
back, and so does `import --undelete KEY`. Through the installed command."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import REPO, Session, installed, query, run_cli

SAMPLE = REPO / "sample" / "state"
KEY = "agent:main:telegram:direct:4242"
FILE = "0b5c6f1e-2222-4a4a-9c9c-000000000002.jsonl"


@pytest.fixture
def deleted(tmp_path: Path) -> Path:
    root = tmp_path / "state"
    shutil.copytree(SAMPLE, root)
    assert installed("import", "--reindex", "--quiet", state=root).returncode == 0
    r = installed("delete", KEY, "--yes", state=root)
    assert r.returncode == 0
    assert "`import --undelete KEY` brings it back" in r.stderr
    return root


def keys(root: Path) -> set[str]:
    r = installed("sessions", "--json", state=root)
    return {s["sessionKey"] for s in json.loads(r.stdout)["sessions"]}


@pytest.mark.slow
def test_import_leaves_a_deleted_session_deleted_and_says_so_once(deleted: Path) -> None:
    r = installed("import", "--json", state=deleted)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    (issue,) = [i for i in doc["issues"] if i["code"] == "session_deleted"]
    assert issue["sessionKey"] == KEY
    assert issue["path"].endswith(FILE)
    assert issue["severity"] == "notice"
    assert "--undelete" in issue["message"]
    assert doc["sessionsImported"] == 0
    assert doc["skippedFiles"] == 1
    assert KEY not in keys(deleted)
    assert query(deleted, "SELECT count(*) FROM sessions WHERE session_key = ?", KEY) == [(0,)]
    r = installed("import", state=deleted)  # known: counted, not repeated
    assert r.returncode == 0
    assert "session_deleted" not in r.stderr
    assert installed("search", "telegram", "--session", KEY, state=deleted).returncode == 2


@pytest.mark.slow
def test_undelete_brings_it_back(deleted: Path) -> None:
    r = installed("import", "--undelete", "telegram:direct:4242", "--reindex", state=deleted)
    assert r.returncode == 0, r.stderr
    assert "session_undeleted" in r.stderr
    assert KEY in r.stderr
    assert KEY in keys(deleted)
    label = query(deleted, "SELECT label FROM sessions WHERE session_key = ?", KEY)
    assert label == [("Telegram DM",)]  # its store entry too
    assert query(deleted, "SELECT count(*) FROM tombstones") == [(0,)]
    r = installed("import", "--undelete", "agent:main:nope", state=deleted)
    assert r.returncode == 2
    assert r.stderr.startswith("error: no deleted session 'agent:main:nope'")


@pytest.mark.slow
def test_undelete_takes_a_session_id_and_a_dry_run_changes_nothing(deleted: Path) -> None:
    sid = FILE.removesuffix(".jsonl")
    r = installed("import", "--undelete", sid, "--dry-run", "--json", state=deleted)
    assert r.returncode == 0
    assert KEY not in keys(deleted)
    assert query(deleted, "SELECT count(*) FROM tombstones") != [(0,)]
    assert installed("import", "--undelete", sid, state=deleted).returncode == 0
    assert KEY in keys(deleted)


@pytest.mark.slow
def test_a_changed_file_brings_it_back(deleted: Path) -> None:
    path = deleted / "agents" / "main" / "sessions" / FILE
    last = json.loads(path.read_text().splitlines()[-1])
    line = {"type": "message", "id": "new00001", "parentId": last["id"],
            "timestamp": "2026-01-06T10:00:00.000Z",
            "message": {"role": "user", "content": "back again with zebras"}}  # fmt: skip
    with path.open("a") as f:
        f.write(json.dumps(line) + "\n")
    r = installed("import", "--reindex", "--json", state=deleted)
    assert r.returncode == 0
    assert json.loads(r.stdout)["sessionsImported"] == 1
    assert KEY in keys(deleted)
    hit = json.loads(installed("search", "zebras", "--json", state=deleted).stdout)["results"]
    assert [h["sessionKey"] for h in hit] == [KEY]
    assert query(deleted, "SELECT count(*) FROM tombstones") == [(0,)]


@pytest.mark.slow
def test_deleting_an_orphan_transcript_keeps_it_out_too(tmp_path: Path) -> None:
    root = tmp_path / "state"
    s = Session("lonely")
    s.user("nobody names me")
    s.write(root / "agents" / "main" / "sessions" / "lonely.jsonl")
    assert installed("import", state=root).returncode == 0
    assert installed("delete", "lonely", "--yes", state=root).returncode == 0
    assert installed("import", "--quiet", state=root).returncode == 0
    assert keys(root) == set()


@pytest.mark.slow
def test_a_reset_rename_of_a_deleted_transcript_keeps_it_deleted(deleted: Path) -> None:
    """Upstream's `/reset` renames the (unchanged) transcript to a reset archive: it is the
    deleted transcript under another name, not a new one; it stays out of the store."""
    d = deleted / "agents" / "main" / "sessions"
    sid = FILE.removesuffix(".jsonl")
    (d / FILE).rename(d / f"{FILE}.reset.2026-02-01T10-00-00.000Z")
    store = json.loads((d / "sessions.json").read_text())
    del store[KEY]  # (a reset session's entry names its next transcript: not made here)
    (d / "sessions.json").write_text(json.dumps(store))
    r = installed("import", "--reindex", "--json", state=deleted)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["sessionsImported"] == 0
    assert [i["sessionKey"] for i in doc["issues"] if i["code"] == "session_deleted"] == [KEY]
    assert query(deleted, "SELECT count(*) FROM transcripts WHERE session_id = ?", sid) == [(0,)]
    assert KEY not in keys(deleted)
    assert f"agent:main:orphan:{sid}" not in keys(deleted)


@pytest.mark.slow
def test_deleting_a_session_id_deletes_that_generation_only(tmp_path: Path) -> None:
    """A key with a reset archive and a current file: `delete <archive id>` drops the archive
    alone (the conversation goes on under its key, its store entry stays), import leaves it
    out, and the current file going on does not bring the deleted generation back."""
    d = tmp_path / "state" / "agents" / "main" / "sessions"
    root = tmp_path / "state"
    old, cur = Session("g-old"), Session("g-cur")
    old.user("zqoldword from before the reset")
    old.write(d / "g-old.jsonl")
    entry = {"agent:main:main": {"sessionId": "g-old", "label": "L"}}
    (d / "sessions.json").write_text(json.dumps(entry))
    assert installed("import", "--quiet", state=root).returncode == 0
    (d / "g-old.jsonl").rename(d / "g-old.jsonl.reset.2026-01-01T00-00-00.000Z")  # /reset
    cur.user("zqcurword after the reset")
    cur.write(d / "g-cur.jsonl")
    entry["agent:main:main"]["sessionId"] = "g-cur"
    (d / "sessions.json").write_text(json.dumps(entry))
    assert installed("import", "--reindex", "--quiet", state=root).returncode == 0
    gens = query(root, "SELECT session_id FROM transcripts WHERE session_key = 'agent:main:main'")
    assert sorted(gens) == [("g-cur",), ("g-old",)]
    from openclaw_sessions.store.delete import DeleteOptions, preview_delete

    assert preview_delete(DeleteOptions("g-old", state_dir=root)).startswith(
        "generation g-old of agent:main:main"
    )
    assert preview_delete(DeleteOptions("main", state_dir=root)) == (
        "agent:main:main and all its transcripts"
    )
    r = installed("delete", "g-old", "--yes", "--json", state=root)
    assert r.returncode == 0, r.stdout
    assert json.loads(r.stdout)["transcripts"] == 1, r.stdout
    found = installed("search", "zqcurword", "--count", state=root).stdout.strip()
    assert found == "1"
    assert installed("search", "zqoldword", state=root).returncode == 1
    assert "agent:main:main" in keys(root)
    assert installed("import", "--reindex", "--quiet", state=root).returncode == 0
    assert installed("search", "zqoldword", state=root).returncode == 1  # still deleted
    cur.user("the session went on")
    cur.write(d / "g-cur.jsonl")
    assert installed("import", "--reindex", "--quiet", state=root).returncode == 0
    assert installed("search", "zqoldword", state=root).returncode == 1  # and stays so
    label = query(root, "SELECT label FROM sessions WHERE session_key = 'agent:main:main'")
    assert label == [("L",)]
    assert installed("delete", "agent:main:main", "--yes", state=root).returncode == 0
    assert installed("search", "zqcurword", state=root).returncode == 1


def test_history_of_a_deleted_session_says_so_and_the_way_back(tmp_path: Path) -> None:
    """The operator is told what `delete` did and how to undo it; an agent (--as) still
    gets upstream's "not found"."""
    state = tmp_path / "state"
    assert run_cli(
        "import", str(REPO / "sample" / "state"), "--state-dir", str(state)
    ).exit_code in (0, 4)
    key = "agent:main:subagent:6f7e"
    assert run_cli("delete", key, "--yes", "--state-dir", str(state)).exit_code == 0
    r = run_cli("history", key, "--state-dir", str(state))
    assert r.exit_code == 2
    assert f"session {key} was deleted with `delete`" in r.stderr
    assert f"import --undelete {key}" in r.stderr
    agent = run_cli("history", key, "--as", "agent:main:main", "--state-dir", str(state))
    assert agent.exit_code == 2
    assert "deleted" not in agent.stderr
