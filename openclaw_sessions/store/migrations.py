"""The store's schema: schema.sql for a new store, the numbered migrations that take an older
one to it, and the header (user_version, application_id) that says which. The code that applies
them is db.py's (one transaction per step, with its version bump).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from openclaw_sessions.policy.tree import JS_SPACE

from . import counts, pending, rawcodec

# The tokenizers of the two indexes, as schema.sql declares them: snippets and --explain
# re-tokenize text in scratch tables with the same ones (a test holds them equal).
PRIMARY_TOKENIZER = "unicode61 remove_diacritics 2"
BIGRAM_TOKENIZER = "unicode61 remove_diacritics 0 categories 'L* N* Co M*'"


SCHEMA_VERSION = 10


APP_ID = 0x4F43_5353  # "OCSS": marks the file as ours


PAGE_SIZE = 16384


_JS_SPACE = f"char({', '.join(str(ord(c)) for c in JS_SPACE)})"  # tree.JS_SPACE in SQL


# Migrations from version N-1 to N: each runs in one transaction with its version bump. A step
# is SQL, or a function of the connection when it needs Python (rawcodec's training).
Migration = str | Callable[[sqlite3.Connection], None]
MIGRATIONS: dict[int, Migration] = {
    # v2: FTS inserts move from per-row triggers to batched INSERT ... SELECT (index/index_rows.py).
    2: "DROP TRIGGER IF EXISTS index_rows_ai;\nDROP TRIGGER IF EXISTS index_rows_ai_cjk;\n",
    # v3: the stored active branch (store/branches.py); reconcile fills it for existing transcripts.
    3: """CREATE TABLE branches (
    transcript_id INTEGER PRIMARY KEY REFERENCES transcripts(transcript_id) ON DELETE CASCADE,
    revision      INTEGER NOT NULL,
    next_seq      INTEGER NOT NULL,
    leaf          TEXT,
    messages      BLOB NOT NULL
);
""",
    # v4: no trigram index (CJK terms of any length go to the bigram index, policy/fts_query.py).
    4: """DROP TRIGGER index_rows_ad_cjk;
DROP TABLE IF EXISTS index_trigram;
CREATE TRIGGER index_rows_ad_cjk AFTER DELETE ON index_rows WHEN old.cjk IS NOT NULL BEGIN
    INSERT INTO index_bigram(index_bigram, rowid, cjk) VALUES ('delete', old.row_id, old.cjk);
END;
""",
    # v5: the tree rules of upstream's transcript-tree.ts (policy/tree.py). The columns the walk
    # reads are made what import now stores (a blank id is no id; a parentId that is neither
    # null nor a non-blank string puts the line on no tree), and every transcript's index and
    # stored branch are rebuilt by the next reconcile (`reindex`, or the one a search starts).
    5: f"""UPDATE events SET entry_id = NULL WHERE trim(entry_id, {_JS_SPACE}) = '';
UPDATE events SET parent_id = NULL, flags = flags | 4 WHERE trim(parent_id, {_JS_SPACE}) = '';
UPDATE events SET flags = flags | 4 WHERE parent_id IS NULL AND flags & 5 = 0
    AND type IS NOT 'session' AND json_valid(raw) AND json_type(raw, '$.parentId') != 'null';
UPDATE index_state SET needs_rebuild = 1;
DELETE FROM branches;
""",
    # v6: transcripts whose indexing failed, and against what (index/failures.py).
    # IF NOT EXISTS: idempotent whatever number it ends up with (SQLite stores the statement
    # without that clause, so the schema text equals a fresh store's).
    6: """CREATE TABLE IF NOT EXISTS index_failures (
    transcript_id INTEGER PRIMARY KEY REFERENCES transcripts(transcript_id) ON DELETE CASCADE,
    revision      INTEGER NOT NULL,      -- the transcript as it was when it failed
    next_seq      INTEGER NOT NULL,
    fingerprint   TEXT NOT NULL,         -- stale.failure_key: redaction rules + tool version
    error         TEXT NOT NULL,         -- redacted, one line
    failed_at     INTEGER NOT NULL
);
""",
    # v7: what import remembers between runs: the problems it reported (reported once, then
    # counted; ingest/problems.py) and the sessions `delete` removed (tombstones, kept out of
    # the next import while their files are unchanged; store/tombstones.py).
    7: """CREATE TABLE IF NOT EXISTS import_problems (
    fingerprint TEXT PRIMARY KEY,        -- sha256 of code, path, line, session key, message
    code        TEXT NOT NULL,
    severity    TEXT NOT NULL,           -- error | notice (reports.Issue.severity)
    message     TEXT NOT NULL,           -- redacted
    path        TEXT,
    line        INTEGER,
    session_key TEXT,
    first_seen  INTEGER NOT NULL         -- epoch ms: the run that reported it
);
CREATE TABLE IF NOT EXISTS tombstones (
    session_key    TEXT NOT NULL,
    source_name    TEXT NOT NULL,        -- '' for the key itself (its store entry)
    session_id     TEXT,
    source_path    TEXT,
    bytes_consumed INTEGER NOT NULL DEFAULT 0,  -- the source as stored when it was deleted
    lines_consumed INTEGER NOT NULL DEFAULT 0,
    prefix_sha256  TEXT NOT NULL DEFAULT '',
    deleted_at     INTEGER NOT NULL,
    PRIMARY KEY (session_key, source_name)
);
""",
    # v8: raw lines compressed (store/rawcodec.py): see _compress_raw below.
    8: lambda conn: _compress_raw(conn),
    # v9: the CJK bigram text is derived from the text (ocs_cjk_bigrams), never stored: see
    # _derive_bigrams below.
    9: lambda conn: _derive_bigrams(conn),
}

# Steps that rewrite most of the file: VACUUM after them gives the freed pages back.
VACUUM_AFTER = frozenset({8})

_EVENTS_V8 = """CREATE TABLE events (
    transcript_id INTEGER NOT NULL REFERENCES transcripts(transcript_id) ON DELETE CASCADE,
    seq           INTEGER NOT NULL,
    line_no       INTEGER NOT NULL,      -- 1-based line number in the file
    entry_id      TEXT,                  -- entry id (v1: assigned in order)
    parent_id     TEXT,
    flags         INTEGER NOT NULL DEFAULT 0,  -- tree.FLAG_*: no parentId, side, on no tree
    target_id     TEXT,                  -- leaf control target
    type          TEXT,
    role          TEXT,
    ts            INTEGER,               -- epoch ms
    raw           BLOB NOT NULL,         -- the line, compressed (store/rawcodec.py)
    PRIMARY KEY (transcript_id, seq)
)"""
_ARCHIVED_V8 = """CREATE TABLE archived_events (
    transcript_id INTEGER NOT NULL REFERENCES transcripts(transcript_id) ON DELETE CASCADE,
    revision      INTEGER NOT NULL,
    seq           INTEGER NOT NULL,
    line_no       INTEGER NOT NULL,
    raw           BLOB NOT NULL,         -- as events.raw
    PRIMARY KEY (transcript_id, revision, seq)
)"""
_RAW_DICTS_V8 = """CREATE TABLE raw_dicts (
    generation       INTEGER PRIMARY KEY,
    dict_id          INTEGER NOT NULL UNIQUE,  -- zstd's dictionary id, derived from its bytes
    trained_at_lines INTEGER NOT NULL,         -- the lines the store held then
    sample_lines     INTEGER NOT NULL,
    sample_bytes     INTEGER NOT NULL,
    dict             BLOB NOT NULL
)"""


_V9_TABLE = """DROP TRIGGER index_rows_ad;
DROP TRIGGER index_rows_ad_cjk;
DROP VIEW index_rows_cjk;
ALTER TABLE index_rows RENAME TO index_rows_v8;
CREATE TABLE index_rows (
    row_id        INTEGER PRIMARY KEY,
    transcript_id INTEGER NOT NULL REFERENCES transcripts(transcript_id) ON DELETE CASCADE,
    seq           INTEGER NOT NULL,
    message_id    TEXT NOT NULL,
    role          TEXT NOT NULL,
    ts            INTEGER NOT NULL,
    text          TEXT NOT NULL,
    UNIQUE (transcript_id, seq)
);
INSERT INTO index_rows (row_id, transcript_id, seq, message_id, role, ts, text)
    SELECT row_id, transcript_id, seq, message_id, role, ts, text FROM index_rows_v8;
"""
_V9_DERIVED = """DROP TABLE index_rows_v8;
CREATE VIEW index_rows_cjk AS SELECT row_id, cjk FROM
    (SELECT row_id, ocs_cjk_bigrams(text) AS cjk FROM index_rows) WHERE cjk IS NOT NULL;
CREATE TRIGGER index_rows_ad AFTER DELETE ON index_rows BEGIN
    INSERT INTO index_fts(index_fts, rowid, text) VALUES ('delete', old.row_id, old.text);
END;
CREATE TRIGGER index_rows_ad_cjk AFTER DELETE ON index_rows BEGIN
    INSERT INTO index_bigram(index_bigram, rowid, cjk) SELECT 'delete', old.row_id, cjk
        FROM (SELECT ocs_cjk_bigrams(old.text) AS cjk) WHERE cjk IS NOT NULL;
END;
"""


def _derive_bigrams(conn: sqlite3.Connection) -> None:
    """v9: index_rows rebuilt without its bigram column (row_ids kept: both FTS5 indexes stay
    as they are), the view and the delete trigger derive it. A row whose stored bigram text is
    not what the function derives (an older rule indexed it) is indexed anew with the derived
    one first, so every later delete removes exactly what is indexed."""
    for stmt in statements(_V9_TABLE):
        conn.execute(stmt)
    differ = conn.execute(
        "SELECT row_id, cjk, derived FROM (SELECT row_id, cjk, ocs_cjk_bigrams(text) AS derived"
        " FROM index_rows_v8) WHERE cjk IS NOT derived"
    ).fetchall()
    for row_id, stored, derived in differ:
        if stored is not None:
            conn.execute(
                "INSERT INTO index_bigram(index_bigram, rowid, cjk) VALUES ('delete', ?, ?)",
                (row_id, stored),
            )
        if derived is not None:
            conn.execute("INSERT INTO index_bigram(rowid, cjk) VALUES (?, ?)", (row_id, derived))
    for stmt in statements(_V9_DERIVED):
        conn.execute(stmt)


def _compress_raw(conn: sqlite3.Connection) -> None:
    """v8: a dictionary trained on a sample of the store's lines, then every line of events and
    archived_events copied compressed into the tables as schema.sql declares them (rowids
    kept). One transaction; db.py makes the backup before and the VACUUM after."""
    conn.execute(_RAW_DICTS_V8)
    for table, create in (("events", _EVENTS_V8), ("archived_events", _ARCHIVED_V8)):
        conn.execute(f"ALTER TABLE {table} RENAME TO {table}_v7")
        conn.execute(create)
    if rawcodec.lines(conn, "events_v7") >= rawcodec.FIRST_LINES:
        rawcodec.train(conn, "events_v7")
    for table in ("events", "archived_events"):
        rawcodec.recompress(conn, f"{table}_v7", table)
        conn.execute(f"DROP TABLE {table}_v7")


def derived_schema() -> str:
    """The tables and triggers made from store/counts.py and store/pending.py (a fresh store
    and migration 10 both create them from here)."""
    parts = [counts.TABLE, *counts.triggers(), pending.TABLE, pending.INDEX, *pending.triggers()]
    return "".join(f"{p};\n" for p in parts)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


# v10: reads that cost the same at any store size, and a no-op import that opens no file. The
# sessions' agent and the indexes visibility resolves with; the stat of each file last read
# whole (empty: the next import fingerprints each file once, as before); the counters `status`
# reads and the pending set search asks, filled here from the rows (the set against the
# fingerprint of the last reconcile and this code, so an upgraded store is on the fast path at
# once). oc_agent_of: db._migrate.
MIGRATIONS[10] = f"""ALTER TABLE sessions ADD COLUMN agent_id TEXT;
UPDATE sessions SET agent_id = oc_agent_of(session_key);
CREATE INDEX sessions_by_session_id ON sessions(session_id COLLATE NOCASE);
CREATE INDEX sessions_by_spawner ON sessions(spawned_by) WHERE spawned_by IS NOT NULL;
CREATE INDEX sessions_by_parent ON sessions(parent_session_key)
    WHERE parent_session_key IS NOT NULL;
CREATE INDEX sessions_by_owner ON sessions(owner_session_key) WHERE owner_session_key IS NOT NULL;
CREATE INDEX sessions_by_agent ON sessions(agent_id);
CREATE INDEX transcripts_by_session_id_nocase ON transcripts(session_id COLLATE NOCASE);
CREATE TABLE source_stats (
    transcript_id INTEGER PRIMARY KEY REFERENCES transcripts(transcript_id) ON DELETE CASCADE,
    stat          TEXT NOT NULL
);
{derived_schema()}{counts.FILL};
INSERT INTO meta (key, value) SELECT 'pending_fp', value FROM meta WHERE key = 'redaction_fp'
    ON CONFLICT(key) DO UPDATE SET value = excluded.value;
INSERT INTO meta (key, value) SELECT 'pending_failure_key',
    value || {_quote(pending.failure_key(""))} FROM meta WHERE key = 'redaction_fp'
    ON CONFLICT(key) DO UPDATE SET value = excluded.value;
{pending.FILL};
"""


def schema_sql() -> str:
    from importlib import resources

    return resources.files(__package__).joinpath("schema.sql").read_text("utf-8")


def statements(sql: str) -> list[str]:
    """Split a script into complete statements (triggers contain ';')."""
    out, buf = [], ""
    for line in sql.splitlines(keepends=True):
        if not buf and line.lstrip().startswith("--"):
            continue
        buf += line
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    return [s for s in out if s]
