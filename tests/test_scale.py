"""Read paths cost the same at 300 and at 30,000 sessions (issue #19): history, search with and
without --as, --explain and status, measured by the work SQLite does (VM steps, through a
progress handler) and the statements they issue, never by time.

Both stores hold the same real sessions (imported and indexed: a main session with a rare
word, a direct chat, a subagent, a thread, a cron run, an incognito session; another agent
with a child of main) and differ only in filler sessions of two indexed messages each, added
in SQL (the importer would take minutes for 30,000 files). Each FTS index is merged into one
segment, so both sizes search the same structure.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import Session, db_file, write_sessions_json

from openclaw_sessions.ingest.importer import ImportOptions, import_sources
from openclaw_sessions.read.history import HistoryOptions, history
from openclaw_sessions.read.search import SearchOptions, search
from openclaw_sessions.read.status import StatusOptions, status
from openclaw_sessions.redact import build_redactor
from openclaw_sessions.store import db

RARE = "zqscalerare"
MAIN = "agent:main:main"
SIZES = {"small": 150, "large": 15_000}  # filler sessions per agent: 300 and 30,000 in all


def _template(src: Path) -> str:
    """The real sessions of both sizes; returns the id of main's message with the rare word."""
    main = Session("m-main")
    anchor = ""
    for i in range(12):
        if i == 6:
            anchor = main.user(f"the deploy of {RARE} went fine")
        else:
            main.user(f"question {i} about the cluster")
        main.assistant(f"answer {i} about the cluster")
    sessions = {
        MAIN: ("m-main", main, {}),
        "agent:main:telegram:direct:u1": ("m-dm", None, {}),
        "agent:main:subagent:s1": ("m-sub", None, {"spawnedBy": MAIN}),
        "agent:main:discord:group:g:thread:t": ("m-thr", None, {"parentSessionKey": MAIN}),
        "agent:main:cron:j:run:r": ("m-cron", None, {}),
        "agent:main:dashboard:incognito-x": ("m-inc", None, {}),
    }
    store = {}
    d = src / "agents" / "main" / "sessions"
    for key, (sid, sess, entry) in sessions.items():
        if sess is None:
            sess = Session(sid)
            sess.user(f"hello {RARE} from {key.rsplit(':', 1)[-1]}")
            sess.assistant("noted, cluster fine")
        sess.write(d / f"{sid}.jsonl")
        store[key] = {"sessionId": sid, **entry}
    write_sessions_json(d, store)
    w = src / "agents" / "work" / "sessions"
    work = {
        "agent:work:main": ("w-main", {}),
        "agent:work:subagent:c1": ("w-c1", {"spawnedBy": MAIN}),
    }
    for sid, _ in work.values():
        s = Session(sid)
        s.user(f"work says {RARE}")
        s.write(w / f"{sid}.jsonl")
    write_sessions_json(w, {key: {"sessionId": sid, **entry} for key, (sid, entry) in work.items()})
    return anchor


def _fill(path: Path, agent: str, n: int, fp: str) -> None:
    """``n`` indexed sessions of two messages each, written as import and reindex would."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    base = conn.execute("SELECT coalesce(max(transcript_id), 0) FROM transcripts").fetchone()[0]
    row0 = conn.execute("SELECT coalesce(max(row_id), 0) FROM index_rows").fetchone()[0]
    sess, trans, events, state, rows = [], [], [], [], []
    for i in range(n):
        tid, sid = base + 1 + i, f"{agent}-fill-{i}"
        key = f"agent:{agent}:telegram:direct:fill{i}"
        sess.append((key, sid, agent))
        trans.append((tid, f"{sid}.jsonl", key, sid, f"/nowhere/{sid}.jsonl"))
        events.append((tid, 0, 1, None, None, 1, "session", None, '{"type":"session"}'))
        for seq, role in ((1, "user"), (2, "assistant")):
            text = f"filler {i} words about the cluster and the deploy"
            raw = json.dumps({"type": "message", "id": f"f{seq}", "message": {"role": role}})
            events.append((tid, seq, seq + 1, f"f{seq}", None if seq == 1 else "f1", 0,
                           "message", role, raw))  # fmt: skip
            rows.append((row0 + len(rows) + 1, tid, seq, f"f{seq}", role, 1000 + i, text))
        state.append((tid, fp))
    conn.executemany(
        "INSERT INTO sessions (session_key, session_id, agent_id) VALUES (?, ?, ?)", sess
    )
    conn.executemany(
        "INSERT INTO transcripts (transcript_id, source_name, session_key, session_id, kind,"
        " source_path, revision, next_seq, lines_consumed, imported_at)"
        " VALUES (?, ?, ?, ?, 'current', ?, 1, 3, 3, 0)",
        trans,
    )
    conn.executemany(
        "INSERT INTO events (transcript_id, seq, line_no, entry_id, parent_id, flags, type,"
        " role, raw) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        events,
    )
    conn.executemany(
        "INSERT INTO index_state (transcript_id, indexed_seq, leaf_event_id, needs_rebuild,"
        " redaction_fp, updated_at) VALUES (?, 2, 'f2', 0, ?, 0)",
        state,
    )
    conn.executemany(
        "INSERT INTO index_rows (row_id, transcript_id, seq, message_id, role, ts, text)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    conn.execute(
        "INSERT INTO index_fts(rowid, text) SELECT row_id, text FROM index_rows WHERE row_id > ?",
        (row0,),
    )
    conn.execute("INSERT INTO index_fts(index_fts) VALUES ('optimize')")
    conn.execute("COMMIT")
    conn.close()


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    """(state root, anchor message id) per size."""
    out = {}
    fp = build_redactor().fingerprint
    for size, n in SIZES.items():
        base = tmp_path_factory.mktemp(f"scale-{size}")
        anchor = _template(base / "state")
        import_sources(ImportOptions(state_dir=base / "state", reindex=True))
        for agent in ("main", "work"):
            _fill(db_file(base / "state", agent), agent, n, fp)
        out[size] = (base / "state", anchor)
    return out


class Work:
    """VM steps and top-level statements of every store connection the code opens."""

    STEP = 10

    def __init__(self) -> None:
        self.steps = 0
        self.statements: list[str] = []

    def attach(self, conn: sqlite3.Connection) -> None:
        def progress() -> int:
            self.steps += self.STEP
            return 0

        conn.set_progress_handler(progress, self.STEP)
        conn.set_trace_callback(
            lambda sql: None if sql.startswith("--") else self.statements.append(sql)
        )


@pytest.fixture
def measure(monkeypatch: pytest.MonkeyPatch) -> Callable[[Callable[[], Any]], Work]:
    real = db._raw_connect
    current: list[Work] = []

    def connect(path: Path, mode: str | None = None) -> sqlite3.Connection:
        conn = real(path, mode)
        if current:
            current[-1].attach(conn)
        return conn

    monkeypatch.setattr(db, "_raw_connect", connect)

    def run(fn: Callable[[], Any]) -> Work:
        fn()  # warm: caches, regexes, a first migration check
        current.append(Work())
        try:
            fn()
        finally:
            work = current.pop()
        return work

    return run


def _cases(root: Path, anchor: str) -> Iterator[tuple[str, Callable[[], Any]]]:
    def h(**kw: Any) -> Callable[[], Any]:
        return lambda: history(HistoryOptions(state_dir=root, **{"key": MAIN, **kw}))

    def s(**kw: Any) -> Callable[[], Any]:
        return lambda: search(SearchOptions(state_dir=root, **{"query": RARE, **kw}))

    yield "history -n 20", h(limit=20)
    yield "history --around", h(around=anchor)
    yield "history by session id", h(key="m-main", limit=5)
    yield "history --as", h(limit=20, as_key=MAIN)
    yield "history --as child (tree)", h(key="agent:main:subagent:s1", as_key=MAIN)
    yield "search", s()
    yield "search --order recent", s(order="recent")
    yield "search --all-agents", s(all_agents=True)
    yield "search --session", s(session="agent:main:subagent:s1")
    yield "search --as (tree, main)", s(as_key=MAIN)
    yield "search --as --visibility self", s(as_key=MAIN, visibility="self")
    yield "search --as --visibility all", s(as_key=MAIN, visibility="all")
    yield "search --as DM --sandboxed", s(as_key="agent:main:telegram:direct:u1", sandboxed=True)
    yield "search --as subagent", s(as_key="agent:main:subagent:s1")
    yield "search --explain", s(explain=True)
    yield "search --explain --as", s(explain=True, as_key=MAIN)
    yield "status --all-agents", lambda: status(StatusOptions(state_dir=root, all_agents=True))


@pytest.mark.slow
def test_the_stores_differ_only_in_size(stores: dict[str, tuple[Path, str]]) -> None:
    for size, (root, _) in stores.items():
        (st,) = [s for s in status(StatusOptions(state_dir=root)) if s["agentId"] == "main"]
        assert st["sessions"] == 6 + SIZES[size]
        assert st["pendingSessions"] == 0
        assert st["indexedMessages"] == 2 * SIZES[size] + 24 + 10
    got = {
        size: [h.session_key for h in search(SearchOptions(RARE, state_dir=root)).hits]
        for size, (root, _) in stores.items()
    }
    assert got["small"] == got["large"]
    assert len(got["small"]) == 5  # incognito: never


@pytest.mark.slow
def test_read_paths_do_the_same_work_at_any_size(
    stores: dict[str, tuple[Path, str]], measure: Callable[[Callable[[], Any]], Work]
) -> None:
    work: dict[str, dict[str, Work]] = {}
    for size, (root, anchor) in stores.items():
        for name, fn in _cases(root, anchor):
            work.setdefault(name, {})[size] = measure(fn)
    for name, by_size in work.items():
        small, large = by_size["small"], by_size["large"]
        # The same statements (FTS5's own lookups aside), and the same work within a small
        # constant: B-tree depth grows with the store, nothing else may.
        assert len(large.statements) == len(small.statements), name
        assert large.steps <= small.steps * 1.25 + 300, (name, small.steps, large.steps)
        # 100 times the sessions: anything that reads each of them would show here.
        assert large.steps < 20_000, (name, large.steps)
