"""Crashes, interruptions, locks, full disks, read-only media, broken databases, hostile files."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import (
    REPO,
    Session,
    as_v6,
    db_file,
    events_dump,
    gated_cli,
    index_dump,
    integrity,
    json_out,
    killed_by,
    query,
    run_cli,
    write_sessions_json,
)

from openclaw_sessions.store.migrations import SCHEMA_VERSION


def sdir(root: Path) -> Path:
    return root / "agents" / "main" / "sessions"


def small(root: Path) -> None:
    s = Session("rel-1")
    s.user("reliability words here")
    s.assistant("an answer")
    s.write(sdir(root) / "rel-1.jsonl")
    write_sessions_json(sdir(root), {"agent:main:main": {"sessionId": "rel-1"}})


def big(root: Path, files: int = 30, lines: int = 400) -> None:
    for i in range(files):
        s = Session(f"big-{i:02d}")
        for j in range(lines):
            s.user(f"line {j} of file {i} " + "filler words " * 15)
        s.write(sdir(root) / f"big-{i:02d}.jsonl")


def cli_proc(state: Path, *args: str, **env_extra: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "OPENCLAW_STATE_DIR": str(state), **env_extra}
    return subprocess.Popen(
        [sys.executable, "-m", "openclaw_sessions", *args],
        env=env,
        cwd=REPO,
        stderr=subprocess.PIPE,
    )


# Stops on the nth batch of events a transcript's import writes: inside that transcript's
# transaction (its events written, not committed), the n-1 before it committed.
IMPORT_GATE = "openclaw_sessions.ingest.store_lines", "_flush"
# Stops once the nth transcript of a group is published: inside the group's transaction.
PUBLISH_GATE = "openclaw_sessions.index.reconcile", "_publish"
# Stops once the first batch of index rows is written: inside that write's transaction.
ROWS_GATE = "openclaw_sessions.index.index_rows", "insert_rows", 1


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_kill_import_at_random_points_then_rerun(tmp_path: Path, seed: int) -> None:
    import random

    big(tmp_path / "src", 20, 300)
    killed, clean = tmp_path / "killed", tmp_path / "clean"
    nth = random.Random(seed).randint(1, 15)
    p = gated_cli(killed, (*IMPORT_GATE, nth), "import", str(tmp_path / "src"), "--quiet")
    killed_by(p, signal.SIGKILL)
    assert p.returncode == -signal.SIGKILL
    integrity(killed)
    assert query(killed, "SELECT count(*) FROM transcripts")[0][0] == nth - 1  # whole or absent
    assert cli_proc(killed, "import", str(tmp_path / "src"), "--quiet").wait() == 0
    assert cli_proc(clean, "import", str(tmp_path / "src"), "--quiet").wait() == 0
    assert events_dump(killed) == events_dump(clean)


def processes_with(marker: str) -> list[int]:
    """Live processes whose environment holds ``marker`` (a planning worker left behind)."""
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            env = (d / "environ").read_bytes()
            state = (d / "stat").read_text().split(") ", 1)[1][0]
        except OSError:
            continue
        if marker.encode() in env and state != "Z":
            found.append(int(d.name))
    return found


def no_process_left(marker: str) -> bool:
    end = time.monotonic() + 10
    while processes_with(marker) and time.monotonic() < end:
        time.sleep(0.05)
    return not processes_with(marker)


WORKER = {"OPENCLAW_SESSIONS_PLAN_WORKER": "1"}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("seed", "mode"), [(0, "fg"), (1, "fg"), (2, "bg"), (3, "bg"), (4, "worker"), (5, "worker")]
)
def test_kill_reindex_at_random_points_then_rerun(tmp_path: Path, seed: int, mode: str) -> None:
    """Foreground `reindex`, the background reconciler a search starts, and a reindex that
    plans in worker processes are killed alike; those processes do not outlive their parent."""
    import random
    import uuid

    big(tmp_path / "src", 20, 300)
    state = tmp_path / "state"
    run_cli("import", str(tmp_path / "src"), "--quiet", "--no-reindex")
    extra = ["--background"] if mode == "bg" else []
    marker = f"OCS_TEST_{uuid.uuid4().hex}"
    env = {**(WORKER if mode == "worker" else {}), marker: "1"}
    nth = random.Random(seed).randint(1, 20)
    p = gated_cli(state, (*PUBLISH_GATE, nth), "reindex", "--quiet", *extra, **env)
    killed_by(p, signal.SIGKILL)
    assert p.returncode == -signal.SIGKILL
    held = "SELECT count(*) FROM index_state WHERE claim_token IS NOT NULL"
    assert query(state, held)[0][0] > 0  # killed holding the group it was writing
    if mode != "bg":  # the background reconciler is detached on purpose and may finish
        assert no_process_left(marker)
    integrity(state)
    assert run_cli("reindex", "--quiet").exit_code == 0
    reference = tmp_path / "ref"
    assert cli_proc(reference, "import", str(tmp_path / "src"), "--quiet", "--reindex").wait() == 0
    assert index_dump(state) == index_dump(reference)
    integrity(state)


@pytest.mark.slow
def test_planning_in_a_second_process_gives_the_same_index(tmp_path: Path) -> None:
    """Rewinds, regenerations, tool results, CJK, several agents' worth of small and large
    transcripts: the same rows, the same stored branches, whichever process plans."""
    from helpers import branchy

    big(tmp_path / "src", 6, 700)  # large: written alone, in batches
    for i in range(12):  # small: written in groups
        s = branchy(8 + i, sid=f"br-{i:02d}")
        s.user(f"数据库连接 {i} 量子猫")
        s.write(sdir(tmp_path / "src") / f"br-{i:02d}.jsonl")
    dumps = []
    for worker in ("0", "1"):
        state = tmp_path / f"state-{worker}"
        assert cli_proc(state, "import", str(tmp_path / "src"), "--quiet").wait() == 0
        env = {"OPENCLAW_SESSIONS_PLAN_WORKER": worker}
        assert cli_proc(state, "reindex", "--quiet", **env).wait() == 0
        dumps.append((index_dump(state), query(state, "SELECT * FROM branches ORDER BY 1")))
        integrity(state)
    assert dumps[0] == dumps[1]
    assert len(dumps[0][0]) > 6 * 700


_PLANNED_BY = Path(os.devnull)  # set by the test below


def _recorded_plan(conn: sqlite3.Connection, tid: int, redactor: object) -> object:
    """plan_rows, noting which process planned (the pool's workers are forked: they run it)."""
    with _PLANNED_BY.open("a") as f:
        f.write(f"{os.getpid()}\n")
    return _real_plan(conn, tid, redactor)


_real_plan: Any = None


@pytest.mark.slow
def test_the_pool_plans_and_this_process_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the pool, every transcript is planned in a worker process, none here, and the
    index is the one a single process builds."""
    from openclaw_sessions.index import plan

    global _PLANNED_BY, _real_plan
    big(tmp_path / "src", 10, 1100)
    reference = tmp_path / "ref"
    assert cli_proc(reference, "import", str(tmp_path / "src"), "--quiet", "--reindex").wait() == 0
    assert run_cli("import", str(tmp_path / "src"), "--quiet", "--no-reindex").exit_code == 0
    _PLANNED_BY, _real_plan = tmp_path / "planned-by", plan.plan_rows
    monkeypatch.setattr(plan, "plan_rows", _recorded_plan)
    monkeypatch.setenv("OPENCLAW_SESSIONS_PLAN_WORKER", "1")
    assert run_cli("reindex", "--quiet").exit_code == 0
    pids = [int(x) for x in _PLANNED_BY.read_text().split()]
    assert len(pids) == 10
    assert os.getpid() not in pids
    state = tmp_path / "state"
    assert index_dump(state) == index_dump(reference)
    assert query(state, "SELECT count(*) FROM index_state WHERE claim_token IS NOT NULL")[0][0] == 0
    integrity(state)


@pytest.mark.slow
@pytest.mark.parametrize("worker", [False, True])
def test_sigint_during_reindex_exits_130_and_rerun_finishes(tmp_path: Path, worker: bool) -> None:
    import uuid

    big(tmp_path / "src", 20, 300)
    state = tmp_path / "state"
    run_cli("import", str(tmp_path / "src"), "--quiet", "--no-reindex")
    marker = f"OCS_TEST_{uuid.uuid4().hex}"
    env = {**(WORKER if worker else {}), marker: "1"}
    p = gated_cli(state, ROWS_GATE, "reindex", "--quiet", **env)
    err = killed_by(p, signal.SIGINT)
    assert p.returncode == 130, err
    assert err.startswith(b"error: interrupted"), err
    assert b"Traceback" not in err
    assert no_process_left(marker)
    integrity(state)
    assert query(state, "SELECT count(*) FROM index_state WHERE claim_token IS NOT NULL")[0][0] == 0
    assert run_cli("reindex", "--quiet").exit_code == 0
    assert query(state, "SELECT count(*) FROM index_rows")[0][0] == 20 * 300


def test_sigint_exits_130_and_keeps_whole_transcripts(tmp_path: Path) -> None:
    big(tmp_path / "src", 30, 400)
    state = tmp_path / "state"
    p = gated_cli(state, (*IMPORT_GATE, 3), "import", str(tmp_path / "src"), "--quiet")
    err = killed_by(p, signal.SIGINT)
    assert p.returncode == 130, err
    assert b"Traceback" not in err
    assert err.startswith(b"error: interrupted")
    integrity(state)
    assert query(state, "SELECT count(*) FROM transcripts")[0][0] == 2  # the third rolled back
    for _tid, n, nxt in query(
        state,
        "SELECT t.transcript_id, count(e.seq), t.next_seq FROM"
        " transcripts t LEFT JOIN events e USING (transcript_id) GROUP BY 1",
    ):
        assert n == nxt


def test_writer_blocked_past_timeout_fails_with_exit_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small(tmp_path / "src")
    state = tmp_path / "state"
    run_cli("import", str(tmp_path / "src"))
    (sdir(tmp_path / "src") / "rel-2.jsonl").write_text(Session("rel-2").text())
    holder = sqlite3.connect(db_file(state), isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        monkeypatch.setenv("OPENCLAW_SESSIONS_BUSY_TIMEOUT_MS", "200")
        r = run_cli("import", str(tmp_path / "src"))
        assert r.exit_code == 3
        assert "database is locked" in r.stderr
        # readers are not blocked by the writer
        assert run_cli("search", "reliability", "--json").exit_code in (0, 1)
    finally:
        holder.rollback()
        holder.close()


def test_full_disk_rolls_back_with_exit_3(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    small(tmp_path / "src")
    state = tmp_path / "state"
    run_cli("import", str(tmp_path / "src"))
    before = events_dump(state)
    big(tmp_path / "src", 2, 2000)
    pages = query(state, "PRAGMA page_count")[0][0]
    monkeypatch.setenv("OPENCLAW_SESSIONS_MAX_PAGES", str(pages + 5))
    r = run_cli("import", str(tmp_path / "src"))
    assert r.exit_code == 3
    assert r.stderr.startswith("error: disk or database full")
    monkeypatch.delenv("OPENCLAW_SESSIONS_MAX_PAGES")
    integrity(state)
    after = events_dump(state)
    assert after[: len(before)] == before
    names = {row[0] for row in after}
    assert all(
        query(
            state,
            "SELECT count(*) FROM events e JOIN transcripts t USING"
            " (transcript_id) WHERE t.source_name = ?",
            n,
        )[0][0]
        == query(state, "SELECT next_seq FROM transcripts WHERE source_name = ?", n)[0][0]
        for n in names
    )


def test_read_only_media_search_works(tmp_path: Path) -> None:
    small(tmp_path / "src")
    state = tmp_path / "state"
    run_cli("import", str(tmp_path / "src"), "--reindex")
    mnt = tmp_path / "ro"
    mnt.mkdir()
    ok = subprocess.run(["mount", "--bind", str(state), str(mnt)], capture_output=True)
    if ok.returncode != 0:
        pytest.skip("cannot bind-mount here (needs root)")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(mnt)], check=True)
        r = run_cli("search", "reliability", "--json", "--state-dir", str(mnt))
        assert r.exit_code == 0, r.stderr
        assert json_out(r)["results"]
        w = run_cli("import", str(tmp_path / "src"), "--state-dir", str(mnt))
        assert w.exit_code in (0, 3)
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["garbage", "truncated", "newer", "foreign"])
def test_broken_databases_exit_3(tmp_path: Path, damage: str) -> None:
    small(tmp_path / "src")
    state = tmp_path / "state"
    run_cli("import", str(tmp_path / "src"), "--reindex")
    path = db_file(state)
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    if damage == "garbage":
        path.write_bytes(b"this is not a database at all" * 100)
    elif damage == "truncated":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 3])
    elif damage == "newer":
        c = sqlite3.connect(path)
        c.execute("PRAGMA user_version = 99")
        c.close()
    else:
        path.unlink()
        c = sqlite3.connect(path)
        c.execute("CREATE TABLE t(x)")
        c.close()
    for args in (["search", "words"], ["status"], ["reindex"], ["import", str(tmp_path / "src")]):
        r = run_cli(*args)
        assert r.exit_code == 3, (args, r.output)
        assert r.stderr.startswith("error: ")
        assert "Traceback" not in r.stderr


def test_missing_database_exit_3() -> None:
    for args in (["search", "x"], ["status"], ["reindex"]):
        r = run_cli(*args)
        assert r.exit_code == 3
        assert "run `openclaw-sessions import` first" in r.stderr


def test_older_schema_is_migrated_with_a_backup(tmp_path: Path) -> None:
    """A real v1 store (per-row insert triggers, a trigram index, no stored branches) becomes
    current in place, atomically, with a backup, and ends up with exactly the schema of a fresh
    store; the next reindex stores the active branch of every transcript it had."""
    small(tmp_path / "src")
    state = tmp_path / "state"
    run_cli("import", str(tmp_path / "src"), "--reindex")
    as_v6(db_file(state))
    v1 = (Path(__file__).parent / "fixtures" / "schema_v1.sql").read_text()
    c = sqlite3.connect(db_file(state))
    start = v1.index("CREATE VIRTUAL TABLE index_trigram")
    c.execute(v1[start : v1.index(");", start) + 2])
    c.execute("DROP TRIGGER index_rows_ad_cjk")
    for name in ("index_rows_ai", "index_rows_ai_cjk", "index_rows_ad_cjk"):
        start = v1.index(f"CREATE TRIGGER {name} ")
        c.execute(v1[start : v1.index("END;", start) + 4])
    c.execute("DROP TABLE branches")
    c.execute("DROP TABLE index_failures")  # schema v6
    c.execute("PRAGMA user_version = 1")
    c.commit()
    c.close()
    r = run_cli("status", "--json")  # v5: every index is rebuilt under the new tree rules
    assert r.exit_code == 4, r.stdout + r.stderr
    assert json_out(r)["pendingSessions"] == 1, r.stdout + r.stderr
    assert query(state, "PRAGMA user_version")[0][0] == SCHEMA_VERSION == 13
    assert query(state, "SELECT count(*) FROM branches") == [(0,)]
    assert run_cli("reindex", "--quiet").exit_code == 0
    assert run_cli("status", "--json").exit_code == 0
    assert query(state, "SELECT count(*) FROM branches") == query(
        state, "SELECT count(*) FROM transcripts"
    )
    backup = db_file(state).with_name(db_file(state).name + ".v1.bak")
    c = sqlite3.connect(backup)
    assert c.execute("PRAGMA user_version").fetchone()[0] == 1
    c.close()
    fresh = tmp_path / "fresh"
    run_cli("import", str(tmp_path / "src"), "--state-dir", str(fresh))
    schema = "SELECT type, name, sql FROM sqlite_master ORDER BY type, name"
    assert query(state, schema) == query(fresh, schema)
    s = Session("rel-1")
    s.user("reliability words here")
    s.assistant("an answer")
    s.user("after the migration")
    s.write(sdir(tmp_path / "src") / "rel-1.jsonl")
    run_cli("import", str(tmp_path / "src"))
    assert json_out(run_cli("search", "migration", "--json"))["results"]
    integrity(state)


def hostile_dir(root: Path) -> dict[str, Path]:
    d = sdir(root)
    d.mkdir(parents=True)
    files = {}
    nested = "[" * 100_000 + "]" * 100_000
    base = Session("h-base")
    base.user("base words hostile")
    lines = base.text().encode().splitlines(keepends=True)
    files["nested"] = d / "h-nested.jsonl"
    files["nested"].write_bytes(lines[0] + nested.encode() + b"\n" + b"".join(lines[1:]))
    files["nul"] = d / "h-nul.jsonl"
    files["nul"].write_bytes(lines[0] + b'{"type":"message","id":"a\x00b"}\n' + b"".join(lines[1:]))
    files["bom"] = d / "h-bom.jsonl"
    files["bom"].write_bytes(b"\xef\xbb\xbf" + b"".join(lines))
    files["crlf"] = d / "h-crlf.jsonl"
    files["crlf"].write_bytes(b"".join(ln[:-1] + b"\r\n" for ln in lines))
    dup = Session("h-dup")
    dup.user("dup one", id="samesame")
    dup.assistant("dup two", id="samesame", parent=None)
    files["dup"] = dup.write(d / "h-dup.jsonl")
    cyc = Session("h-cyc")
    cyc.user("cyclewords a", id="aaaa0001", parent="aaaa0002")
    cyc.user("cyclewords b", id="aaaa0002", parent="aaaa0001")
    files["cycle"] = cyc.write(d / "h-cyc.jsonl")
    later = Session("h-later")
    later.user("laterparent child", id="cccc0001", parent="cccc0002")
    later.user("laterparent root", id="cccc0002", parent=None)
    files["later"] = later.write(d / "h-later.jsonl")
    uni = Session("séssion-\u00e9\u0301-日本")
    uni.user("odd unicode id words")
    files["unicode"] = uni.write(d / "séssion-\u00e9\u0301-日本.jsonl")
    outside = root / "outside.jsonl"
    Session("h-out").write(outside)
    files["symlink"] = d / "h-link.jsonl"
    os.symlink(outside, files["symlink"])
    return files


def test_hostile_files_are_handled_and_reported(tmp_path: Path, state: Path) -> None:
    files = hostile_dir(tmp_path / "src")
    r = run_cli("import", str(tmp_path / "src"), "--json")
    assert r.exit_code == 4, r.output
    rep = json_out(r)
    issues = {(Path(i["path"]).name, i["code"]) for i in rep["issues"]}
    assert ("h-nested.jsonl", "line_malformed") in issues
    assert ("h-nul.jsonl", "line_malformed") in issues
    assert ("h-link.jsonl", "path_escape") in issues
    stored = {name for name, *_ in events_dump(state)}
    assert "h-link.jsonl" not in stored
    assert {
        "h-bom.jsonl",
        "h-crlf.jsonl",
        "h-dup.jsonl",
        "h-cyc.jsonl",
        "h-later.jsonl",
        files["unicode"].name,
    } <= stored
    for name in ("h-bom.jsonl", "h-crlf.jsonl"):
        raws = [raw for n, _s, _l, raw in events_dump(state) if n == name]
        data = files["bom" if "bom" in name else "crlf"].read_bytes().decode()
        assert "".join(x + "\n" for x in raws) == data
    run_cli("reindex", "--quiet")
    integrity(state)
    assert run_cli("search", "base words hostile", "--json").exit_code == 0
    assert run_cli("search", "cyclewords", "--json").exit_code == 1  # cycle: empty path
    later = json_out(run_cli("search", "laterparent", "--json"))["results"]
    assert {h["messageId"] for h in later} == {"cccc0002"}  # the leaf is the last append
    dup = json_out(run_cli("search", "dup", "--json"))["results"]
    assert len(dup) == 1
    assert "two" in dup[0]["snippet"]  # the later definition wins
    assert run_cli("search", "odd unicode", "--json").exit_code == 0


@pytest.mark.slow
def test_huge_line_and_large_session(tmp_path: Path, state: Path) -> None:
    d = sdir(tmp_path / "src")
    s = Session("h-huge")
    s.user("before the huge line")
    s.tool("x" * (100 * 1024 * 1024))
    s.assistant("after the huge line")
    s.write(d / "h-huge.jsonl")
    long = Session("h-long")
    for i in range(50_000):
        s_id = long.user(f"long session message {i}")
        long.assistant(f"reply {i}")
    assert s_id
    long.write(d / "h-long.jsonl")
    r = run_cli("import", str(tmp_path / "src"), "--reindex", "--json")
    assert r.exit_code == 0, r.output
    assert query(state, "SELECT count(*) FROM events")[0][0] == 4 + 100_001
    assert run_cli("search", "after huge", "--json").exit_code == 0
    assert run_cli("search", "message 49999", "--json").exit_code == 0


@pytest.mark.slow
def test_concurrent_imports_of_the_same_source_never_duplicate(tmp_path: Path, state: Path) -> None:
    big(tmp_path / "src", 10, 200)
    procs = [cli_proc(state, "import", str(tmp_path / "src"), "--quiet") for _ in range(3)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    clean = tmp_path / "clean"
    assert cli_proc(clean, "import", str(tmp_path / "src"), "--quiet").wait() == 0
    assert events_dump(state) == events_dump(clean)


def test_no_traceback_on_broken_inputs(tmp_path: Path) -> None:
    (tmp_path / "openclaw.json").write_text("{ tools: { sessions: { visibility: 'banana' } } }")
    for args in (
        ["search", "x", "--state-dir", str(tmp_path)],
        ["status", "--state-dir", str(tmp_path)],
        ["search", "x", "--state-dir", str(tmp_path), "--as", "main"],
        ["search", "", "--json"],
        ["history", "nope"],
        ["delete", "nope", "--yes"],
        ["reindex", "--agent", "../evil"],
        ["search", "x", "--since", "garbage"],
    ):
        r = run_cli(*args)
        assert r.exit_code in (2, 3, 4), (args, r.output)
        assert "Traceback" not in r.output, (
            args,
            r.output,
        )
        assert r.stderr.strip().startswith("error:"), (
            args,
            r.output,
        )
        assert len(r.stderr.strip().splitlines()) == 1, (args, r.stderr)
    _ = json
