-- The migrations of an agent's store, frozen: each section is the SQL its step ran when its
-- version shipped (store/migrations.py reads a section by its `--- <name>` line). Never edit a
-- section, nor build one from live code: a store already past it would never run the change.
-- A schema change is a new section and a new SCHEMA_VERSION (with scripts/make_store_fixture.py
-- run once, so that tests/test_store_migrations.py holds the new version to the fresh schema).

--- 2
-- FTS inserts move from per-row triggers to batched INSERT ... SELECT (index/index_rows.py).
DROP TRIGGER IF EXISTS index_rows_ai;
DROP TRIGGER IF EXISTS index_rows_ai_cjk;

--- 3
-- the stored active branch (store/branches.py); reconcile fills it for existing transcripts.
CREATE TABLE branches (
    transcript_id INTEGER PRIMARY KEY REFERENCES transcripts(transcript_id) ON DELETE CASCADE,
    revision      INTEGER NOT NULL,
    next_seq      INTEGER NOT NULL,
    leaf          TEXT,
    messages      BLOB NOT NULL
);

--- 4
-- no trigram index (CJK terms of any length go to the bigram index, policy/fts_query.py).
DROP TRIGGER index_rows_ad_cjk;
DROP TABLE IF EXISTS index_trigram;
CREATE TRIGGER index_rows_ad_cjk AFTER DELETE ON index_rows WHEN old.cjk IS NOT NULL BEGIN
    INSERT INTO index_bigram(index_bigram, rowid, cjk) VALUES ('delete', old.row_id, old.cjk);
END;

--- 5
-- the tree rules of upstream's transcript-tree.ts (policy/tree.py). The columns the walk reads
-- are made what import now stores (a blank id is no id: trim() by tree.JS_SPACE as of v5; a
-- parentId that is neither null nor a non-blank string puts the line on no tree), and every
-- transcript's index and stored branch are rebuilt by the next reconcile.
UPDATE events SET entry_id = NULL WHERE trim(entry_id, char(9, 10, 11, 12, 13, 32, 160, 5760, 8232, 8233, 8239, 8287, 12288, 65279, 8192, 8193, 8194, 8195, 8196, 8197, 8198, 8199, 8200, 8201, 8202)) = '';
UPDATE events SET parent_id = NULL, flags = flags | 4 WHERE trim(parent_id, char(9, 10, 11, 12, 13, 32, 160, 5760, 8232, 8233, 8239, 8287, 12288, 65279, 8192, 8193, 8194, 8195, 8196, 8197, 8198, 8199, 8200, 8201, 8202)) = '';
UPDATE events SET flags = flags | 4 WHERE parent_id IS NULL AND flags & 5 = 0
    AND type IS NOT 'session' AND json_valid(raw) AND json_type(raw, '$.parentId') != 'null';
UPDATE index_state SET needs_rebuild = 1;
DELETE FROM branches;

--- 6
-- transcripts whose indexing failed, and against what (index/failures.py). IF NOT EXISTS:
-- idempotent whatever number it ends up with (SQLite stores the statement without that clause,
-- so the schema text equals a fresh store's).
CREATE TABLE IF NOT EXISTS index_failures (
    transcript_id INTEGER PRIMARY KEY REFERENCES transcripts(transcript_id) ON DELETE CASCADE,
    revision      INTEGER NOT NULL,      -- the transcript as it was when it failed
    next_seq      INTEGER NOT NULL,
    fingerprint   TEXT NOT NULL,         -- stale.failure_key: redaction rules + tool version
    error         TEXT NOT NULL,         -- redacted, one line
    failed_at     INTEGER NOT NULL
);

--- 7
-- what import remembers between runs: the problems it reported (ingest/problems.py) and
-- the sessions `delete` removed (store/tombstones.py).
CREATE TABLE IF NOT EXISTS import_problems (
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

--- 8
-- raw lines compressed (store/rawcodec.py): the tables as v8 declares them; migrations.py
-- copies the old rows into them compressed.
CREATE TABLE raw_dicts (
    generation       INTEGER PRIMARY KEY,
    dict_id          INTEGER NOT NULL UNIQUE,  -- zstd's dictionary id, derived from its bytes
    trained_at_lines INTEGER NOT NULL,         -- the lines the store held then
    sample_lines     INTEGER NOT NULL,
    sample_bytes     INTEGER NOT NULL,
    dict             BLOB NOT NULL
);
CREATE TABLE events (
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
);
CREATE TABLE archived_events (
    transcript_id INTEGER NOT NULL REFERENCES transcripts(transcript_id) ON DELETE CASCADE,
    revision      INTEGER NOT NULL,
    seq           INTEGER NOT NULL,
    line_no       INTEGER NOT NULL,
    raw           BLOB NOT NULL,         -- as events.raw
    PRIMARY KEY (transcript_id, revision, seq)
);

--- 9-table
-- the CJK bigram text derived from the text (ocs_cjk_bigrams), never stored: index_rows
-- rebuilt without its column (row_ids kept)...
DROP TRIGGER index_rows_ad;
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

--- 9-derived
-- ...then, once rows indexed by an older rule are indexed anew, the view and trigger.
DROP TABLE index_rows_v8;
CREATE VIEW index_rows_cjk AS SELECT row_id, cjk FROM
    (SELECT row_id, ocs_cjk_bigrams(text) AS cjk FROM index_rows) WHERE cjk IS NOT NULL;
CREATE TRIGGER index_rows_ad AFTER DELETE ON index_rows BEGIN
    INSERT INTO index_fts(index_fts, rowid, text) VALUES ('delete', old.row_id, old.text);
END;
CREATE TRIGGER index_rows_ad_cjk AFTER DELETE ON index_rows BEGIN
    INSERT INTO index_bigram(index_bigram, rowid, cjk) SELECT 'delete', old.row_id, cjk
        FROM (SELECT ocs_cjk_bigrams(old.text) AS cjk) WHERE cjk IS NOT NULL;
END;

--- 10
-- reads that cost the same at any store size, and a no-op import that opens no file: the
-- sessions' agent (oc_agent_of: keys.agent_of, registered by db._migrate) and the indexes
-- visibility resolves with; the stat of each file last read whole; the counters `status` reads
-- (store/counts.py) and the pending set search asks (store/pending.py), as those modules made
-- them at v10, filled from the rows. The set is kept against failure key <fp>/0.1.0 (the
-- release of v10): under a later release the first import or reindex refills it, as after any
-- upgrade.
ALTER TABLE sessions ADD COLUMN agent_id TEXT;
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
CREATE TABLE counts (
    name TEXT PRIMARY KEY,
    n    INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TRIGGER counts_sessions_ai AFTER INSERT ON sessions BEGIN
    INSERT INTO counts (name, n) VALUES ('sessions', 1) ON CONFLICT(name) DO UPDATE SET n = n + excluded.n;
END;
CREATE TRIGGER counts_sessions_ad AFTER DELETE ON sessions BEGIN
    INSERT INTO counts (name, n) VALUES ('sessions', -1) ON CONFLICT(name) DO UPDATE SET n = n + excluded.n;
END;
CREATE TRIGGER counts_transcripts_ai AFTER INSERT ON transcripts BEGIN
    INSERT INTO counts (name, n) VALUES ('transcripts', 1) ON CONFLICT(name) DO UPDATE SET n = n + excluded.n;
    INSERT INTO counts (name, n) VALUES ('events', NEW.next_seq) ON CONFLICT(name) DO UPDATE SET n = n + excluded.n;
    INSERT INTO counts (name, n) VALUES ('vanished', (NEW.kind = 'vanished')) ON CONFLICT(name) DO UPDATE SET n = n + excluded.n;
END;
CREATE TRIGGER counts_transcripts_ad AFTER DELETE ON transcripts BEGIN
    INSERT INTO counts (name, n) VALUES ('transcripts', -1) ON CONFLICT(name) DO UPDATE SET n = n + excluded.n;
    INSERT INTO counts (name, n) VALUES ('events', -OLD.next_seq) ON CONFLICT(name) DO UPDATE SET n = n + excluded.n;
    INSERT INTO counts (name, n) VALUES ('vanished', -(OLD.kind = 'vanished')) ON CONFLICT(name) DO UPDATE SET n = n + excluded.n;
END;
CREATE TRIGGER counts_transcripts_au AFTER UPDATE OF next_seq, kind ON transcripts BEGIN
    INSERT INTO counts (name, n) VALUES ('events', NEW.next_seq - OLD.next_seq) ON CONFLICT(name) DO UPDATE SET n = n + excluded.n;
    INSERT INTO counts (name, n) VALUES ('vanished', (NEW.kind = 'vanished') - (OLD.kind = 'vanished')) ON CONFLICT(name) DO UPDATE SET n = n + excluded.n;
END;
CREATE TRIGGER counts_quarantine_ai AFTER INSERT ON quarantine BEGIN
    INSERT INTO counts (name, n) VALUES ('quarantine', 1) ON CONFLICT(name) DO UPDATE SET n = n + excluded.n;
END;
CREATE TRIGGER counts_quarantine_ad AFTER DELETE ON quarantine BEGIN
    INSERT INTO counts (name, n) VALUES ('quarantine', -1) ON CONFLICT(name) DO UPDATE SET n = n + excluded.n;
END;
CREATE TRIGGER counts_state_ai AFTER INSERT ON index_state BEGIN
    INSERT INTO counts (name, n) VALUES ('fp:' || NEW.redaction_fp, 1) ON CONFLICT(name) DO UPDATE SET n = n + excluded.n;
END;
CREATE TRIGGER counts_state_au AFTER UPDATE OF redaction_fp ON index_state BEGIN
    INSERT INTO counts (name, n) VALUES ('fp:' || OLD.redaction_fp, -1) ON CONFLICT(name) DO UPDATE SET n = n + excluded.n;
    INSERT INTO counts (name, n) VALUES ('fp:' || NEW.redaction_fp, 1) ON CONFLICT(name) DO UPDATE SET n = n + excluded.n;
END;
CREATE TRIGGER counts_state_ad AFTER DELETE ON index_state BEGIN
    INSERT INTO counts (name, n) VALUES ('fp:' || OLD.redaction_fp, -1) ON CONFLICT(name) DO UPDATE SET n = n + excluded.n;
END;
CREATE TABLE index_pending (
    transcript_id INTEGER PRIMARY KEY,
    dirty         INTEGER NOT NULL,
    since         INTEGER NOT NULL
);
CREATE INDEX index_pending_by_since ON index_pending(since);
CREATE TRIGGER pending_transcripts_ai AFTER INSERT ON transcripts BEGIN
    DELETE FROM index_pending WHERE transcript_id = NEW.transcript_id;
    INSERT INTO index_pending (transcript_id, dirty, since) SELECT t.transcript_id, coalesce(s.needs_rebuild != 0, 0), coalesce(s.updated_at, t.imported_at) FROM transcripts t LEFT JOIN index_state s ON s.transcript_id = t.transcript_id WHERE (s.transcript_id IS NULL OR NOT (s.needs_rebuild = 0 AND s.claim_token IS NULL AND s.redaction_fp IS (SELECT value FROM meta WHERE key = 'pending_fp')) OR s.indexed_seq < t.next_seq - 1) AND NOT EXISTS (SELECT 1 FROM index_failures f WHERE f.transcript_id = t.transcript_id AND f.revision = t.revision AND f.next_seq = t.next_seq AND f.fingerprint = (SELECT value FROM meta WHERE key = 'pending_failure_key')) AND t.transcript_id = NEW.transcript_id;
END;
CREATE TRIGGER pending_transcripts_au AFTER UPDATE OF revision, next_seq ON transcripts BEGIN
    DELETE FROM index_pending WHERE transcript_id = NEW.transcript_id;
    INSERT INTO index_pending (transcript_id, dirty, since) SELECT t.transcript_id, coalesce(s.needs_rebuild != 0, 0), coalesce(s.updated_at, t.imported_at) FROM transcripts t LEFT JOIN index_state s ON s.transcript_id = t.transcript_id WHERE (s.transcript_id IS NULL OR NOT (s.needs_rebuild = 0 AND s.claim_token IS NULL AND s.redaction_fp IS (SELECT value FROM meta WHERE key = 'pending_fp')) OR s.indexed_seq < t.next_seq - 1) AND NOT EXISTS (SELECT 1 FROM index_failures f WHERE f.transcript_id = t.transcript_id AND f.revision = t.revision AND f.next_seq = t.next_seq AND f.fingerprint = (SELECT value FROM meta WHERE key = 'pending_failure_key')) AND t.transcript_id = NEW.transcript_id;
END;
CREATE TRIGGER pending_state_ai AFTER INSERT ON index_state BEGIN
    DELETE FROM index_pending WHERE transcript_id = NEW.transcript_id;
    INSERT INTO index_pending (transcript_id, dirty, since) SELECT t.transcript_id, coalesce(s.needs_rebuild != 0, 0), coalesce(s.updated_at, t.imported_at) FROM transcripts t LEFT JOIN index_state s ON s.transcript_id = t.transcript_id WHERE (s.transcript_id IS NULL OR NOT (s.needs_rebuild = 0 AND s.claim_token IS NULL AND s.redaction_fp IS (SELECT value FROM meta WHERE key = 'pending_fp')) OR s.indexed_seq < t.next_seq - 1) AND NOT EXISTS (SELECT 1 FROM index_failures f WHERE f.transcript_id = t.transcript_id AND f.revision = t.revision AND f.next_seq = t.next_seq AND f.fingerprint = (SELECT value FROM meta WHERE key = 'pending_failure_key')) AND t.transcript_id = NEW.transcript_id;
END;
CREATE TRIGGER pending_state_au AFTER UPDATE ON index_state BEGIN
    DELETE FROM index_pending WHERE transcript_id = NEW.transcript_id;
    INSERT INTO index_pending (transcript_id, dirty, since) SELECT t.transcript_id, coalesce(s.needs_rebuild != 0, 0), coalesce(s.updated_at, t.imported_at) FROM transcripts t LEFT JOIN index_state s ON s.transcript_id = t.transcript_id WHERE (s.transcript_id IS NULL OR NOT (s.needs_rebuild = 0 AND s.claim_token IS NULL AND s.redaction_fp IS (SELECT value FROM meta WHERE key = 'pending_fp')) OR s.indexed_seq < t.next_seq - 1) AND NOT EXISTS (SELECT 1 FROM index_failures f WHERE f.transcript_id = t.transcript_id AND f.revision = t.revision AND f.next_seq = t.next_seq AND f.fingerprint = (SELECT value FROM meta WHERE key = 'pending_failure_key')) AND t.transcript_id = NEW.transcript_id;
END;
CREATE TRIGGER pending_state_ad AFTER DELETE ON index_state BEGIN
    DELETE FROM index_pending WHERE transcript_id = OLD.transcript_id;
    INSERT INTO index_pending (transcript_id, dirty, since) SELECT t.transcript_id, coalesce(s.needs_rebuild != 0, 0), coalesce(s.updated_at, t.imported_at) FROM transcripts t LEFT JOIN index_state s ON s.transcript_id = t.transcript_id WHERE (s.transcript_id IS NULL OR NOT (s.needs_rebuild = 0 AND s.claim_token IS NULL AND s.redaction_fp IS (SELECT value FROM meta WHERE key = 'pending_fp')) OR s.indexed_seq < t.next_seq - 1) AND NOT EXISTS (SELECT 1 FROM index_failures f WHERE f.transcript_id = t.transcript_id AND f.revision = t.revision AND f.next_seq = t.next_seq AND f.fingerprint = (SELECT value FROM meta WHERE key = 'pending_failure_key')) AND t.transcript_id = OLD.transcript_id;
END;
CREATE TRIGGER pending_failures_ai AFTER INSERT ON index_failures BEGIN
    DELETE FROM index_pending WHERE transcript_id = NEW.transcript_id;
    INSERT INTO index_pending (transcript_id, dirty, since) SELECT t.transcript_id, coalesce(s.needs_rebuild != 0, 0), coalesce(s.updated_at, t.imported_at) FROM transcripts t LEFT JOIN index_state s ON s.transcript_id = t.transcript_id WHERE (s.transcript_id IS NULL OR NOT (s.needs_rebuild = 0 AND s.claim_token IS NULL AND s.redaction_fp IS (SELECT value FROM meta WHERE key = 'pending_fp')) OR s.indexed_seq < t.next_seq - 1) AND NOT EXISTS (SELECT 1 FROM index_failures f WHERE f.transcript_id = t.transcript_id AND f.revision = t.revision AND f.next_seq = t.next_seq AND f.fingerprint = (SELECT value FROM meta WHERE key = 'pending_failure_key')) AND t.transcript_id = NEW.transcript_id;
END;
CREATE TRIGGER pending_failures_au AFTER UPDATE ON index_failures BEGIN
    DELETE FROM index_pending WHERE transcript_id = NEW.transcript_id;
    INSERT INTO index_pending (transcript_id, dirty, since) SELECT t.transcript_id, coalesce(s.needs_rebuild != 0, 0), coalesce(s.updated_at, t.imported_at) FROM transcripts t LEFT JOIN index_state s ON s.transcript_id = t.transcript_id WHERE (s.transcript_id IS NULL OR NOT (s.needs_rebuild = 0 AND s.claim_token IS NULL AND s.redaction_fp IS (SELECT value FROM meta WHERE key = 'pending_fp')) OR s.indexed_seq < t.next_seq - 1) AND NOT EXISTS (SELECT 1 FROM index_failures f WHERE f.transcript_id = t.transcript_id AND f.revision = t.revision AND f.next_seq = t.next_seq AND f.fingerprint = (SELECT value FROM meta WHERE key = 'pending_failure_key')) AND t.transcript_id = NEW.transcript_id;
END;
CREATE TRIGGER pending_failures_ad AFTER DELETE ON index_failures BEGIN
    DELETE FROM index_pending WHERE transcript_id = OLD.transcript_id;
    INSERT INTO index_pending (transcript_id, dirty, since) SELECT t.transcript_id, coalesce(s.needs_rebuild != 0, 0), coalesce(s.updated_at, t.imported_at) FROM transcripts t LEFT JOIN index_state s ON s.transcript_id = t.transcript_id WHERE (s.transcript_id IS NULL OR NOT (s.needs_rebuild = 0 AND s.claim_token IS NULL AND s.redaction_fp IS (SELECT value FROM meta WHERE key = 'pending_fp')) OR s.indexed_seq < t.next_seq - 1) AND NOT EXISTS (SELECT 1 FROM index_failures f WHERE f.transcript_id = t.transcript_id AND f.revision = t.revision AND f.next_seq = t.next_seq AND f.fingerprint = (SELECT value FROM meta WHERE key = 'pending_failure_key')) AND t.transcript_id = OLD.transcript_id;
END;
CREATE TRIGGER pending_transcripts_ad AFTER DELETE ON transcripts BEGIN
    DELETE FROM index_pending WHERE transcript_id = OLD.transcript_id;
END;
CREATE TRIGGER pending_counts_ai AFTER INSERT ON index_pending BEGIN
    INSERT INTO counts (name, n) VALUES ('pending', 1) ON CONFLICT(name) DO UPDATE SET n = n + excluded.n;
    INSERT INTO counts (name, n) VALUES ('dirty', NEW.dirty) ON CONFLICT(name) DO UPDATE SET n = n + excluded.n;
END;
CREATE TRIGGER pending_counts_ad AFTER DELETE ON index_pending BEGIN
    INSERT INTO counts (name, n) VALUES ('pending', -1) ON CONFLICT(name) DO UPDATE SET n = n + excluded.n;
    INSERT INTO counts (name, n) VALUES ('dirty', -OLD.dirty) ON CONFLICT(name) DO UPDATE SET n = n + excluded.n;
END;
INSERT INTO counts (name, n)
SELECT 'sessions', count(*) FROM sessions
UNION ALL SELECT 'transcripts', count(*) FROM transcripts
UNION ALL SELECT 'events', coalesce(sum(next_seq), 0) FROM transcripts
UNION ALL SELECT 'vanished', count(*) FROM transcripts WHERE kind = 'vanished'
UNION ALL SELECT 'quarantine', count(*) FROM quarantine
UNION ALL SELECT 'fp:' || redaction_fp, count(*) FROM index_state GROUP BY redaction_fp;
INSERT INTO meta (key, value) SELECT 'pending_fp', value FROM meta WHERE key = 'redaction_fp'
    ON CONFLICT(key) DO UPDATE SET value = excluded.value;
INSERT INTO meta (key, value) SELECT 'pending_failure_key',
    value || '/0.1.0' FROM meta WHERE key = 'redaction_fp'
    ON CONFLICT(key) DO UPDATE SET value = excluded.value;
INSERT INTO index_pending (transcript_id, dirty, since) SELECT t.transcript_id, coalesce(s.needs_rebuild != 0, 0), coalesce(s.updated_at, t.imported_at) FROM transcripts t LEFT JOIN index_state s ON s.transcript_id = t.transcript_id WHERE (s.transcript_id IS NULL OR NOT (s.needs_rebuild = 0 AND s.claim_token IS NULL AND s.redaction_fp IS (SELECT value FROM meta WHERE key = 'pending_fp')) OR s.indexed_seq < t.next_seq - 1) AND NOT EXISTS (SELECT 1 FROM index_failures f WHERE f.transcript_id = t.transcript_id AND f.revision = t.revision AND f.next_seq = t.next_seq AND f.fingerprint = (SELECT value FROM meta WHERE key = 'pending_failure_key'));
--- 11
-- Generations upstream no longer holds live: cold-stored or deleted in OpenClaw
-- (store/upstream_archived.py). Empty until the next import of an agent database.
CREATE TABLE IF NOT EXISTS upstream_archived (
    transcript_id INTEGER PRIMARY KEY REFERENCES transcripts(transcript_id) ON DELETE CASCADE,
    state         TEXT NOT NULL CHECK (state IN ('cold', 'deleted')),
    archive_name  TEXT NOT NULL,     -- upstream's archive_name
    archived_at   INTEGER            -- epoch ms, as upstream recorded it
);
CREATE INDEX IF NOT EXISTS upstream_archived_by_state ON upstream_archived(state);
--- 12
-- The bigram index holds the other words of a row with CJK text too (fts_query.index_bigram_text:
-- a Latin word written against CJK characters is a token of its own there): re-derived from
-- index_rows through the view, whose function ocs_cjk_bigrams now derives that text.
INSERT INTO index_bigram(index_bigram) VALUES ('rebuild');
--- 13
-- The [semantic] extra's vectors (index/embed.py): one per index row, the model that made it
-- and its L2-normalised float16 vector. Empty without the extra; deleted with their row.
CREATE TABLE IF NOT EXISTS index_vectors (
    row_id INTEGER PRIMARY KEY,
    model  TEXT NOT NULL,
    vec    BLOB NOT NULL
);
CREATE TRIGGER IF NOT EXISTS index_rows_ad_vec AFTER DELETE ON index_rows BEGIN
    DELETE FROM index_vectors WHERE row_id = old.row_id;
END;
