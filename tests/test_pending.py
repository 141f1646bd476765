"""The pending set and the counters (store/pending.py, store/counts.py) are what their full
definitions say after every kind of write: import (new, appended, rewritten, malformed,
vanished), live appends that extend the branch or not, reindex under two sets of rules,
claims left by a dead reconciler, poison failures, delete. The fast answers readers get (is
anything stale, how many, since when) equal the one SQL definition evaluated over the store.
"""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path
from typing import Any

import pytest
from helpers import Session, db_file, write_sessions_json
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from openclaw_sessions import live
from openclaw_sessions.index import claims, reconcile
from openclaw_sessions.index.failures import Failures, IndexFailure
from openclaw_sessions.ingest.importer import ImportOptions, import_sources
from openclaw_sessions.redact import build_redactor
from openclaw_sessions.store import counts, db, pending
from openclaw_sessions.store.delete import DeleteOptions, delete_session

RULES = {"a": build_redactor(), "b": build_redactor(["zz[0-9]+"])}
KEYS = [f"agent:main:k{i}" for i in range(3)]  # file 3 has no store entry: an orphan


def msg(eid: str, parent: str | None, role: str, text: str) -> dict[str, Any]:
    return {"type": "message", "id": eid, "parentId": parent, "timestamp": "2026-02-01T10:00:00Z",
            "message": {"role": role, "content": [{"type": "text", "text": text}]}}  # fmt: skip


class World:
    """A state root and the writes the property applies to it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.sdir = root / "agents" / "main" / "sessions"
        self.sessions: dict[int, Session] = {}
        self.live: dict[int, str | None] = {}  # live session -> its last message id
        self.n = 0
        write_sessions_json(self.sdir, {k: {"sessionId": f"t{i}"} for i, k in enumerate(KEYS)})

    def conn(self) -> sqlite3.Connection:
        return db.connect(db_file(self.root))

    def imported(self) -> None:
        import_sources(ImportOptions(state_dir=self.root))

    def append(self, i: int, n: int) -> None:
        s = self.sessions.setdefault(i, Session(f"t{i}"))
        for j in range(n):
            (s.user if j % 2 == 0 else s.assistant)(f"words {i} {j} zz{j}")
        s.write(self.sdir / f"t{i}.jsonl")
        self.imported()

    def rewrite(self, i: int) -> None:
        if i in self.sessions:
            s = Session(f"t{i}")
            s.user(f"rewritten {i}")
            self.sessions[i] = s
            s.write(self.sdir / f"t{i}.jsonl")
        self.imported()

    def malformed(self, i: int) -> None:
        if i in self.sessions:
            with open(self.sdir / f"t{i}.jsonl", "a", encoding="utf-8") as f:
                f.write("{not json\n")
        self.imported()

    def remove(self, i: int) -> None:
        (self.sdir / f"t{i}.jsonl").unlink(missing_ok=True)
        self.sessions.pop(i, None)
        self.imported()

    def append_live(self, i: int, extend: bool) -> None:
        sid, last = f"live{i}", self.live.get(i)
        lines: list[dict[str, Any]] = []
        if i not in self.live:
            lines.append({"type": "session", "version": 3, "id": sid})
        self.n += 1
        eid = f"l{i}-{self.n}"
        lines.append(msg(eid, last if extend else None, "user", f"live {i}"))
        live.append(self.root, "main", session_key=f"agent:main:live{i}", session_id=sid,
                    lines=lines, redactor=RULES["a"])  # fmt: skip
        self.live[i] = eid

    def reindex(self, rules: str) -> None:
        conn = self.conn()
        try:
            reconcile.reconcile(conn, "main", RULES[rules])
        finally:
            conn.close()

    def _tid(self, conn: sqlite3.Connection, i: int) -> tuple[int, int, int] | None:
        row = conn.execute(
            "SELECT transcript_id, revision, next_seq FROM transcripts WHERE source_name = ?",
            (f"t{i}.jsonl",),
        ).fetchone()
        return None if row is None else (row[0], row[1], row[2])

    def claim(self, i: int) -> None:
        conn = self.conn()
        try:
            if (found := self._tid(conn, i)) is not None:
                claims.claim_many(conn, [found[0]], "1@another-host:dead")
        finally:
            conn.close()

    def fail(self, i: int, rules: str) -> None:
        conn = self.conn()
        try:
            if (found := self._tid(conn, i)) is not None:
                Failures(conn, RULES[rules], "t").add(IndexFailure(*found, "boom"))
        finally:
            conn.close()

    def delete(self, i: int) -> None:
        key = KEYS[i] if i < len(KEYS) else f"agent:main:orphan:t{i}"
        try:
            delete_session(DeleteOptions(key, state_dir=self.root))
        except Exception:  # not stored (yet): nothing to delete
            pass


OPS = st.one_of(
    st.tuples(st.just("append"), st.integers(0, 3), st.integers(1, 3)),
    st.tuples(st.just("rewrite"), st.integers(0, 3)),
    st.tuples(st.just("malformed"), st.integers(0, 3)),
    st.tuples(st.just("remove"), st.integers(0, 3)),
    st.tuples(st.just("append_live"), st.integers(0, 1), st.booleans()),
    st.tuples(st.just("reindex"), st.sampled_from(["a", "b"])),
    st.tuples(st.just("claim"), st.integers(0, 3)),
    st.tuples(st.just("fail"), st.integers(0, 3), st.sampled_from(["a", "b"])),
    st.tuples(st.just("delete"), st.integers(0, 3)),
)


def full(conn: sqlite3.Connection, fp: str | None, key: str | None) -> dict[int, tuple[int, int]]:
    """THE definition, evaluated over the whole store: stale transcript -> (dirty, since)."""
    rows = conn.execute(
        "SELECT t.transcript_id, coalesce(s.needs_rebuild != 0, 0),"
        f" coalesce(s.updated_at, t.imported_at) FROM {pending.FROM}"
        f" WHERE {pending.stale_where()}",
        (fp, key),
    )
    return {r[0]: (r[1], r[2]) for r in rows}


def check(conn: sqlite3.Connection) -> None:
    kept = {r[0]: (r[1], r[2]) for r in conn.execute("SELECT * FROM index_pending")}
    assert kept == full(conn, *pending.reference(conn))
    for redactor in RULES.values():
        fp = redactor.fingerprint
        stale = full(conn, *pending.params(fp))
        assert pending.any_stale(conn, fp) == bool(stale)
        assert pending.stale_ids(conn, fp) == sorted(stale)
        oldest = min((v[1] for v in stale.values()), default=None)
        dirty = sum(v[0] for v in stale.values())
        assert pending.figures(conn, fp) == (len(stale), dirty, oldest)
    n = counts.read(conn)
    counted = dict(conn.execute(counts.COUNTED).fetchall())
    assert {k: n.get(k, 0) for k in counted} == counted
    assert {k for k, v in n.items() if k.startswith("fp:") and v} <= set(counted)
    assert (n.get("pending", 0), n.get("dirty", 0)) == (len(kept), sum(v[0] for v in kept.values()))
    assert counts.fts_rows(conn, "index_fts") == conn.execute(
        "SELECT count(*) FROM index_rows"
    ).fetchone()[0]
    assert counts.fts_rows(conn, "index_bigram") == conn.execute(
        "SELECT count(*) FROM index_rows_cjk"
    ).fetchone()[0]


def play(root: Path, ops: list[tuple[Any, ...]]) -> None:
    w = World(root)
    for op, *args in [("append", 0, 2), *ops]:
        getattr(w, op)(*args)
        conn = w.conn()
        try:
            check(conn)
        finally:
            conn.close()


@pytest.mark.slow
def test_every_kind_of_write_in_turn(tmp_path: Path) -> None:
    play(
        tmp_path,
        [
            ("append", 1, 2), ("append", 3, 1),  # new transcripts: stale
            ("fail", 0, "a"),  # a stale one fails: no longer pending
            ("reindex", "a"),  # published: fresh; the failed one is not retried...
            ("append", 0, 1),  # ...until it changes
            ("append", 1, 2), ("malformed", 1), ("rewrite", 1),  # behind, quarantine, rewritten
            ("append_live", 0, True), ("reindex", "a"),
            ("append_live", 0, True), ("append_live", 0, False),  # indexed at once; then dirty
            ("claim", 1),  # a dead reconciler's claim: not fresh
            ("reindex", "b"),  # new rules: the set follows them
            ("fail", 1, "b"), ("remove", 3), ("delete", 1), ("delete", 3),
            ("append", 2, 1), ("reindex", "a"),
        ],
    )  # fmt: skip


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(OPS, min_size=1, max_size=14))
def test_fast_answers_equal_the_definition_after_every_write(ops: list[tuple[Any, ...]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        play(Path(tmp), ops)


def test_a_v6_store_migrates_with_its_figures_filled(tmp_path: Path) -> None:
    """Schema v10 fills the counters, the sessions' agents and the pending set from the rows
    (kept against the rules of the last reconcile: an upgraded store is on the fast path at
    once), and the store answers the same searches and status as before."""
    from helpers import as_v6

    from openclaw_sessions.read.search import SearchOptions, search
    from openclaw_sessions.read.status import StatusOptions, status

    w = World(tmp_path)
    for op, *args in [("append", 0, 2), ("append", 1, 2), ("reindex", "a"), ("append", 2, 1),
                      ("malformed", 1), ("append_live", 0, True)]:  # fmt: skip
        getattr(w, op)(*args)

    def answers() -> tuple[Any, ...]:
        hits = search(SearchOptions("words", state_dir=tmp_path, limit=25)).hits
        (st,) = status(StatusOptions(state_dir=tmp_path))
        return [h.to_json() for h in hits], {k: v for k, v in st.items() if k != "databaseBytes"}

    before = answers()
    as_v6(db_file(tmp_path))
    conn = w.conn()  # migrates
    try:
        assert pending.kept_for(conn, RULES["a"].fingerprint)
        check(conn)
        agents = [r[0] for r in conn.execute("SELECT DISTINCT agent_id FROM sessions")]
        assert agents == ["main"]
    finally:
        conn.close()
    assert answers() == before
