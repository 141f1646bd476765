"""Stores written by released versions against the current code: the newest release's store
(tests/fixtures/store_v<N>.sqlite.gz, scripts/make_store_fixture.py) opens without a migration
and has exactly the schema a fresh store gets, so a schema or trigger change made in code
without a migration fails here; a v1 store (built from its frozen SQL, schema_v1.sql) and every
older release's store migrate to exactly that schema with their rows searchable.
"""

from __future__ import annotations

import gzip
import sqlite3
from pathlib import Path

import pytest
from helpers import connect, db_file, integrity, json_out, run_cli

from openclaw_sessions.store import counts, db, rawcodec
from openclaw_sessions.store.migrations import SCHEMA_VERSION

FIXTURES = Path(__file__).parent / "fixtures"
RELEASED = FIXTURES / f"store_v{SCHEMA_VERSION}.sqlite.gz"
OLDER = sorted(p for p in FIXTURES.glob("store_v*.sqlite.gz") if p != RELEASED)

Shape = dict[tuple[str, str], object]


def shape(conn: sqlite3.Connection) -> Shape:
    """What must be equal between two stores of one version: every table, index, view and
    trigger as SQLite keeps its text, the FTS5 indexes' configuration, the header."""
    rows = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master")
    out: Shape = {(kind, name): (table, sql) for kind, name, table, sql in rows}
    for fts in ("index_fts", "index_bigram"):
        out[("fts config", fts)] = sorted(conn.execute(f"SELECT k, v FROM {fts}_config"))
    for pragma in ("user_version", "application_id"):
        out[("pragma", pragma)] = conn.execute(f"PRAGMA {pragma}").fetchone()[0]
    return out


def drift(got: Shape, want: Shape) -> set[tuple[str, str]]:
    return {k for k in got.keys() | want.keys() if got.get(k) != want.get(k)}


def fresh_shape(tmp_path: Path) -> Shape:
    conn = db.connect(tmp_path / "fresh" / "store.sqlite", create=True)
    try:
        return shape(conn)
    finally:
        conn.close()


def unpacked(fixture: Path, state: Path) -> Path:
    path = db_file(state)
    path.parent.mkdir(parents=True)
    path.write_bytes(gzip.decompress(fixture.read_bytes()))
    return path


def opened_shape(path: Path) -> Shape:
    """The store opened by the current code (migrated if it is older), then its shape."""
    conn = db.connect(path)
    try:
        return shape(conn)
    finally:
        conn.close()


def test_the_released_store_needs_no_migration_and_has_the_fresh_schema(
    tmp_path: Path, state: Path
) -> None:
    assert RELEASED.exists(), "a new SCHEMA_VERSION: run scripts/make_store_fixture.py"
    path = unpacked(RELEASED, state)
    got = opened_shape(path)
    assert not list(path.parent.glob("*.bak"))  # a migration backs the file up first
    assert got[("pragma", "user_version")] == SCHEMA_VERSION
    changed = drift(got, fresh_shape(tmp_path))
    assert not changed, f"schema changed without a migration: {sorted(changed)}"
    for word in ("deploy", "迁移"):  # --wait: redaction rules changed since, if they did
        r = run_cli("search", word, "--json", "--wait")
        assert r.exit_code == 0, (word, r.stdout, r.stderr)
        assert json_out(r)["results"], (word, r.stdout, r.stderr)


def test_a_trigger_changed_in_code_without_a_migration_is_caught(
    tmp_path: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check above, against the drift issue #25 found: a counter's trigger changed where
    fresh stores take it from, while stores already at the version keep the old one."""
    released = opened_shape(unpacked(RELEASED, state))
    real = counts.triggers
    changed = [t.replace("('quarantine', 1)", "('quarantine', 2)") for t in real()]
    assert changed != real()
    monkeypatch.setattr(counts, "triggers", lambda: changed)
    assert drift(released, fresh_shape(tmp_path)) == {("trigger", "counts_quarantine_ai")}


V1_COPY = {  # v1's columns, read from a current store
    "sessions": "SELECT session_key, session_id, spawned_by, parent_session_key,"
    " owner_session_key, label, updated_at, entry_json, derived FROM sessions",
    "transcripts": "SELECT * FROM transcripts",
    "events": "SELECT transcript_id, seq, line_no, entry_id, parent_id, flags, target_id, type,"
    " role, ts, raw_text(raw) FROM events",
    "archived_events": "SELECT transcript_id, revision, seq, line_no, raw_text(raw)"
    " FROM archived_events",
    "quarantine": "SELECT * FROM quarantine",
    "index_state": "SELECT * FROM index_state",
    "index_rows": "SELECT *, ocs_cjk_bigrams(text) FROM index_rows",
    "meta": "SELECT * FROM meta WHERE key NOT IN ('pending_fp', 'pending_failure_key',"
    f" '{rawcodec.NEXT_KEY}')",
}
KEPT = ["sessions", "transcripts", "events", "archived_events", "quarantine", "index_rows"]


def as_v1(path: Path, rows_from: Path) -> None:
    """A v1 store at ``path`` (its schema from the frozen schema_v1.sql, its per-row triggers
    indexing) holding the rows of the store ``rows_from``."""
    rows = {t: query_all(rows_from, sql) for t, sql in V1_COPY.items()}
    conn = connect(path)
    conn.executescript((FIXTURES / "schema_v1.sql").read_text())
    for table, got in rows.items():
        if not got:
            continue
        marks = ", ".join("?" * len(got[0]))
        conn.executemany(f"INSERT INTO {table} VALUES ({marks})", got)
    conn.execute(f"PRAGMA application_id = {db.APP_ID}")
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()


@pytest.mark.parametrize("start", ["v1", *(p.name for p in OLDER)])
def test_an_older_store_migrates_to_the_fresh_schema_and_stays_searchable(
    tmp_path: Path, state: Path, start: str
) -> None:
    if start == "v1":
        released = tmp_path / "released.sqlite"
        released.write_bytes(gzip.decompress(RELEASED.read_bytes()))
        db_file(state).parent.mkdir(parents=True)
        as_v1(db_file(state), rows_from=released)
    else:
        released = unpacked(FIXTURES / start, state)
    kept = {**{t: V1_COPY[t] for t in KEPT}, "agents": "SELECT session_key, agent_id FROM sessions"}
    before = {t: query_all(released, sql) for t, sql in kept.items()}
    assert not drift(opened_shape(db_file(state)), fresh_shape(tmp_path))
    assert {t: query_all(db_file(state), sql) for t, sql in kept.items()} == before
    conn = connect(db_file(state))
    for word, fts in (("deploy", "index_fts"), ('"迁移"', "index_bigram")):  # still indexed
        sql = f"SELECT count(*) FROM {fts} WHERE {fts} MATCH ?"
        assert conn.execute(sql, (word,)).fetchone()[0], fts
    counted, kept = dict(conn.execute(counts.COUNTED)), counts.read(conn)
    assert {name: kept.get(name, 0) for name in counted} == counted
    if start == "v1":  # v5: every transcript waits for a rebuild, in the pending set
        assert kept["pending"] == kept["dirty"] == kept["transcripts"] > 0
    conn.close()
    integrity(state)
    assert run_cli("reindex", "--quiet").exit_code == 0  # v5 marked every index for a rebuild
    for word in ("deploy", "迁移"):
        r = run_cli("search", word, "--json")
        assert r.exit_code == 0, (word, r.stdout, r.stderr)
        assert json_out(r)["results"], (word, r.stdout, r.stderr)


def query_all(path: Path, sql: str) -> list[tuple[object, ...]]:
    conn = connect(path)
    try:
        return sorted(map(tuple, conn.execute(sql)), key=repr)
    finally:
        conn.close()
