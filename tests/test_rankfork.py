"""Ranking in two processes (rankfork.py): the same answer as ranking in one, whatever goes
wrong on the way (a commit between the two snapshots, a child that fails), and no child left
behind."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, Session, run_cli
from helpers import db_file

from openclaw_sessions.read import rankfork
from openclaw_sessions.store import db

FORK = "OPENCLAW_SESSIONS_SEARCH_FORK"


def _corpus(root: Path) -> None:
    """Many rows with the word 'alpha', repeated and padded so bm25 scores spread and tie."""
    for i in range(8):
        s = Session(f"rf-{i}", ts0=1_767_225_600_000 + i * 10_000_000)
        for j in range(90):
            words = "alpha " * (1 + (i * j) % 4) + "pad " * ((i + 3 * j) % 11)
            s.user(f"{words} beta{j % 3} 数据库" if j % 5 == 0 else words + f" beta{j % 3}")
            s.assistant(f"alpha reply {j} " + "more " * (j % 7))
        s.write(root / "agents" / "main" / "sessions" / f"rf-{i}.jsonl")


@pytest.fixture
def store(tmp_path: Path, state: Path) -> Path:
    _corpus(tmp_path / "src")
    r = run_cli("import", str(tmp_path / "src"), "--reindex", "--quiet")
    assert r.exit_code == 0, r.stderr
    return state


class Spy:
    """Counts children started and answers received; keeps their pids."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.started: list[int] = []
        self.answered = 0
        self.confirmed: list[bool] = []
        start, result, confirm = rankfork.start, rankfork.Upper.result, rankfork.Upper.confirm

        def spy_start(*a: Any) -> rankfork.Upper | None:
            up = start(*a)
            if up is not None:
                self.started.append(up.pid)
            return up

        def spy_result(up: rankfork.Upper) -> Any:
            out = result(up)
            self.answered += out is not None
            return out

        def spy_confirm(up: rankfork.Upper, conn: sqlite3.Connection) -> bool:
            self.confirmed.append(confirm(up, conn))
            return self.confirmed[-1]

        monkeypatch.setattr(rankfork, "start", spy_start)
        monkeypatch.setattr(rankfork.Upper, "result", spy_result)
        monkeypatch.setattr(rankfork.Upper, "confirm", spy_confirm)

    def reaped(self) -> bool:
        return all(not Path(f"/proc/{pid}").exists() for pid in self.started)


def _search(monkeypatch: pytest.MonkeyPatch, fork: str, *args: str) -> tuple[int, str]:
    monkeypatch.setenv(FORK, fork)
    r = run_cli("search", *args, "--json")
    return r.exit_code, r.stdout


CASES = [
    ("alpha",),
    ("alpha", "--limit", "25"),
    ("alpha", "--limit", "1"),
    ("alpha beta1",),
    ("alpha", "--role", "user"),
    ("alpha", "--session", "rf-3"),  # filters most candidates out: k grows past the first try
    ("alpha", "--since", "2026-01-01T05:00:00Z", "--limit", "5"),
    ("数据库",),
    ("数据库", "--limit", "60", "--role", "user"),
    ("alpha 数据库", "--limit", "3"),
    ("alp", "--prefix"),
    ("nomatchword",),
]


@pytest.mark.parametrize("args", CASES, ids=[" ".join(c) for c in CASES])
def test_two_processes_rank_like_one(
    store: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]
) -> None:
    one = _search(monkeypatch, "0", *args)
    spy = Spy(monkeypatch)
    two = _search(monkeypatch, "1", *args)
    assert two == one
    assert spy.started and spy.answered == len(spy.started) and spy.confirmed == [True]
    assert spy.reaped()
    if args[0] != "nomatchword":
        assert one[0] == 0 and json.loads(one[1])["results"]


def test_a_commit_between_the_snapshots_drops_the_child(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Anything committed after the child's snapshot and before this process's: the child's
    half may be from another state of the index, so it is thrown away and ranked here."""
    one = _search(monkeypatch, "0", "alpha", "--limit", "20")
    spy = Spy(monkeypatch)
    start = rankfork.start

    def start_then_commit(*a: Any) -> rankfork.Upper | None:
        up = start(*a)
        other = sqlite3.connect(db_file(store))
        with other:
            other.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('test_poke', 'x')")
        other.close()
        return up

    monkeypatch.setattr(rankfork, "start", start_then_commit)
    assert _search(monkeypatch, "1", "alpha", "--limit", "20") == one
    assert spy.started and spy.confirmed == [False] and spy.answered == 0
    assert spy.reaped()


@pytest.mark.parametrize("when", ["before ready", "after ready", "garbage"])
def test_a_failing_child_is_replaced_by_this_process(
    store: Path, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    one = _search(monkeypatch, "0", "alpha", "--limit", "20")
    spy = Spy(monkeypatch)

    def bad_child(path: str, sql: str, params: list[object], wfd: int) -> None:
        if when != "before ready":
            conn = sqlite3.connect(path)
            conn.execute("BEGIN")
            conn.execute("SELECT 1 FROM sqlite_schema").fetchall()
            os.write(wfd, b"r" + (b"\x00not marshal" if when == "garbage" else b""))
        os._exit(0 if when == "garbage" else 3)

    monkeypatch.setattr(rankfork, "_child", bad_child)
    assert _search(monkeypatch, "1", "alpha", "--limit", "20") == one
    assert spy.answered == 0
    assert len(spy.started) == (0 if when == "before ready" else 1)
    assert spy.reaped()


def test_when_the_fork_is_not_worth_it(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    conn = db.connect(db_file(store), readonly=True)
    try:
        monkeypatch.delenv(FORK, raising=False)
        assert not rankfork._wanted(conn, "index_fts", '"alpha"')  # ~1,400 matches, not 10,000
        n = conn.execute("SELECT count(*) FROM index_fts WHERE index_fts MATCH 'alpha'").fetchone()
        monkeypatch.setattr(rankfork, "MIN_MATCHES", n[0])  # exactly enough
        assert rankfork._wanted(conn, "index_fts", '"alpha"')
        monkeypatch.setattr(rankfork, "MIN_MATCHES", n[0] + 1)  # one short
        assert not rankfork._wanted(conn, "index_fts", '"alpha"')
        monkeypatch.setattr(rankfork, "MIN_MATCHES", 100)
        monkeypatch.setenv(FORK, "0")
        assert not rankfork._wanted(conn, "index_fts", '"alpha"')
        monkeypatch.setenv(FORK, "1")
        stop = threading.Event()
        t = threading.Thread(target=stop.wait)
        t.start()
        try:  # another thread alive: a fork could copy a lock it holds
            assert not rankfork._wanted(conn, "index_fts", '"alpha"')
        finally:
            stop.set()
            t.join()
        conn.execute("BEGIN")
        assert conn.in_transaction  # the snapshot check needs a reading from before the child
        assert rankfork.start(conn, "index_fts", '"alpha"', "SELECT 1", [], 10) is None
        conn.rollback()
    finally:
        conn.close()


def test_installed_command_ranks_alike_in_two_processes(store: Path) -> None:
    """The console script (its fast path, no Typer) with and without the child."""
    outs = []
    for fork in ("0", "1"):
        env = {**os.environ, "OPENCLAW_STATE_DIR": str(store), FORK: fork}
        p = subprocess.run(
            [sys.executable, "-m", "openclaw_sessions", "search", "alpha", "--json", "-n", "30"],
            env=env,
            cwd=REPO,
            capture_output=True,
            check=False,
        )
        assert p.returncode == 0, p.stderr
        outs.append(p.stdout)
    assert outs[0] == outs[1] and len(json.loads(outs[0])["results"]) == 30
