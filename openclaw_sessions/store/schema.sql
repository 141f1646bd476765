-- The one schema of an agent's store. Version lives in PRAGMA user_version
-- (migrations.SCHEMA_VERSION); the migrations (migrations.sql, frozen as each version shipped)
-- take an older file to exactly this.

-- Key/value facts about the store: last import/reconcile times, redaction fingerprint.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- The session store (upstream sessions.json), one row per session key.
CREATE TABLE sessions (
    session_key        TEXT PRIMARY KEY,
    session_id         TEXT,             -- the current generation's session id
    spawned_by         TEXT,
    parent_session_key TEXT,
    owner_session_key  TEXT,
    label              TEXT,
    updated_at         INTEGER,          -- epoch ms (entry updatedAt)
    entry_json         TEXT,             -- the raw store entry, NULL for derived keys
    derived            INTEGER NOT NULL DEFAULT 0  -- 1: no store entry referenced the file
, agent_id TEXT);  -- keys.agent_of(session_key), NULL for an unscoped key (v10, as ALTER TABLE
-- writes it: a migrated store's schema text equals a fresh one's)
-- What visibility asks of sessions (read/scope.py, store/sessions.py): a session id (any case),
-- the sessions a caller spawned, parents or owns, an agent's sessions.
CREATE INDEX sessions_by_session_id ON sessions(session_id COLLATE NOCASE);
CREATE INDEX sessions_by_spawner ON sessions(spawned_by) WHERE spawned_by IS NOT NULL;
CREATE INDEX sessions_by_parent ON sessions(parent_session_key)
    WHERE parent_session_key IS NOT NULL;
CREATE INDEX sessions_by_owner ON sessions(owner_session_key) WHERE owner_session_key IS NOT NULL;
CREATE INDEX sessions_by_agent ON sessions(agent_id);

-- Transcript generations: a session key owns one current transcript and any number of
-- archived ones (resets, opted-in deleted archives and backups).
CREATE TABLE transcripts (
    transcript_id  INTEGER PRIMARY KEY,  -- explicit id: rowids change on VACUUM
    source_name    TEXT NOT NULL UNIQUE, -- file name inside the agent's sessions dir
    session_key    TEXT NOT NULL REFERENCES sessions(session_key) ON DELETE CASCADE,
    session_id     TEXT NOT NULL,
    kind           TEXT NOT NULL,        -- current | reset | deleted | backup | orphan
    archived_at    TEXT,                 -- the ISO stamp of an archive's name
    source_path    TEXT NOT NULL,        -- where it was last read from
    revision       INTEGER NOT NULL DEFAULT 1,
    version        INTEGER,              -- header version (NULL: v1)
    bytes_consumed INTEGER NOT NULL DEFAULT 0,  -- prefix of the file already stored
    prefix_sha256  TEXT NOT NULL DEFAULT '',    -- fingerprint of that prefix
    lines_consumed INTEGER NOT NULL DEFAULT 0,
    next_seq       INTEGER NOT NULL DEFAULT 0,
    first_ts       INTEGER,
    last_ts        INTEGER,
    imported_at    INTEGER NOT NULL
);
CREATE INDEX transcripts_by_key ON transcripts(session_key);
CREATE INDEX transcripts_by_session_id ON transcripts(session_id);
CREATE INDEX transcripts_by_session_id_nocase ON transcripts(session_id COLLATE NOCASE);

-- One row per stored JSONL line, seq from 0 (header included). raw is the line as it was,
-- minus its "\n", as one zstd frame (store/rawcodec.py): the file's bytes are each decoded raw
-- + "\n", in line_no order with the quarantine (sessions.raw_lines reads them so).
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
);  -- a rowid table: WITHOUT ROWID is slow for rows this large (measured: 1.7x on import)

-- Events of superseded revisions (a rewritten file): kept, never searched.
CREATE TABLE archived_events (
    transcript_id INTEGER NOT NULL REFERENCES transcripts(transcript_id) ON DELETE CASCADE,
    revision      INTEGER NOT NULL,
    seq           INTEGER NOT NULL,
    line_no       INTEGER NOT NULL,
    raw           BLOB NOT NULL,         -- as events.raw
    PRIMARY KEY (transcript_id, revision, seq)
);

-- The zstd dictionaries raw lines are compressed with, oldest first (store/rawcodec.py).
-- Never changed or removed: each frame names the id of the dictionary it needs.
CREATE TABLE raw_dicts (
    generation       INTEGER PRIMARY KEY,
    dict_id          INTEGER NOT NULL UNIQUE,  -- zstd's dictionary id, derived from its bytes
    trained_at_lines INTEGER NOT NULL,         -- the lines the store held then
    sample_lines     INTEGER NOT NULL,
    sample_bytes     INTEGER NOT NULL,
    dict             BLOB NOT NULL
);

-- The file a transcript was last read whole from, as stat saw it before that read (size,
-- mtime, inode, ctime: ingest/transcripts.py): an import that finds the same takes the file as
-- unchanged without opening it. Only a stat older than its own timestamps by a second is kept.
CREATE TABLE source_stats (
    transcript_id INTEGER PRIMARY KEY REFERENCES transcripts(transcript_id) ON DELETE CASCADE,
    stat          TEXT NOT NULL
);

-- Lines that could not be stored as events (bad JSON, bad UTF-8), kept verbatim.
CREATE TABLE quarantine (
    quarantine_id INTEGER PRIMARY KEY,
    transcript_id INTEGER REFERENCES transcripts(transcript_id) ON DELETE CASCADE,
    path          TEXT NOT NULL,
    line_no       INTEGER NOT NULL,
    code          TEXT NOT NULL,
    error         TEXT NOT NULL,
    raw           BLOB NOT NULL,
    UNIQUE (path, line_no, raw)
);

-- Index state per transcript (upstream: one row per session id).
-- needs_rebuild: 0 clean, 1 dirty; claims are explicit columns instead of upstream's >1 codes.
CREATE TABLE index_state (
    transcript_id INTEGER PRIMARY KEY REFERENCES transcripts(transcript_id) ON DELETE CASCADE,
    indexed_seq   INTEGER NOT NULL DEFAULT -1,
    leaf_event_id TEXT,
    needs_rebuild INTEGER NOT NULL DEFAULT 0,
    claim_token   TEXT,
    claim_expires INTEGER,               -- epoch ms
    redaction_fp  TEXT NOT NULL DEFAULT '',
    updated_at    INTEGER NOT NULL
);

-- Transcripts whose planning or indexing raised, and against what: they are not retried
-- while (revision, next_seq) and the fingerprint (redaction rules + tool version) are the
-- same (store/pending.py), so one poison transcript is reported by `status`, never retried forever.
CREATE TABLE index_failures (
    transcript_id INTEGER PRIMARY KEY REFERENCES transcripts(transcript_id) ON DELETE CASCADE,
    revision      INTEGER NOT NULL,      -- the transcript as it was when it failed
    next_seq      INTEGER NOT NULL,
    fingerprint   TEXT NOT NULL,         -- stale.failure_key: redaction rules + tool version
    error         TEXT NOT NULL,         -- redacted, one line
    failed_at     INTEGER NOT NULL
);

-- Import problems reported on an earlier run: import reports each once, then counts it while
-- it is met unchanged, and forgets it once a run of the same scope no longer meets it
-- (ingest/problems.py); `status --problems` lists them.
CREATE TABLE import_problems (
    fingerprint TEXT PRIMARY KEY,        -- sha256 of code, path, line, session key, message
    code        TEXT NOT NULL,
    severity    TEXT NOT NULL,           -- error | notice (reports.Issue.severity)
    message     TEXT NOT NULL,           -- redacted
    path        TEXT,
    line        INTEGER,
    session_key TEXT,
    first_seen  INTEGER NOT NULL         -- epoch ms: the run that reported it
);

-- Sessions removed by `delete`: the key ('' source) and each transcript as it was stored, so
-- that import skips them while their sources are unchanged (store/tombstones.py).
CREATE TABLE tombstones (
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

-- Each transcript's active branch as `history` reads it: marshal'd columns of its messages
-- (seq, entry_id, role, ts), the ids of its other entries and its flat mode (store/branches.py).
-- Kept by writers (reconcile's publish, an append that provably extends it); current while
-- (revision, next_seq) equal the transcript's, else readers walk the tree (tree.py).
CREATE TABLE branches (
    transcript_id INTEGER PRIMARY KEY REFERENCES transcripts(transcript_id) ON DELETE CASCADE,
    revision      INTEGER NOT NULL,
    next_seq      INTEGER NOT NULL,
    leaf          TEXT,
    messages      BLOB NOT NULL
);

-- Generations upstream's agent database no longer holds live (store/upstream_archived.py):
-- 'cold' (session.maintenance.coldStorage moved its rows into an archive, read from there),
-- 'deleted' (sessions.delete moved it into session_transcript_archives). Agents' views leave
-- them out of search (and deleted ones out of everything); the operator's labels them.
CREATE TABLE upstream_archived (
    transcript_id INTEGER PRIMARY KEY REFERENCES transcripts(transcript_id) ON DELETE CASCADE,
    state         TEXT NOT NULL CHECK (state IN ('cold', 'deleted')),
    archive_name  TEXT NOT NULL,     -- upstream's archive_name
    archived_at   INTEGER            -- epoch ms, as upstream recorded it
);
CREATE INDEX upstream_archived_by_state ON upstream_archived(state);

-- The indexed text (redacted), one row per active user/assistant message.
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

-- Primary index: upstream's tokenizer (Latin, Cyrillic, Greek…; accents folded both ways).
CREATE VIRTUAL TABLE index_fts USING fts5(
    text, content='index_rows', content_rowid='row_id',
    tokenize='unicode61 remove_diacritics 2'
);
-- The CJK index covers only rows with CJK text, and indexes their bigram text: derived, never
-- stored, by ocs_cjk_bigrams(text) (policy/fts_query.cjk_bigram_text, registered on every
-- connection by store/db.py; the sqlite3 shell lacks it, so deleting index rows there fails
-- instead of leaving the index wrong). The view keeps FTS5's integrity-check and 'rebuild'
-- consistent with what is indexed.
CREATE VIEW index_rows_cjk AS SELECT row_id, cjk FROM
    (SELECT row_id, ocs_cjk_bigrams(text) AS cjk FROM index_rows) WHERE cjk IS NOT NULL;
-- CJK bigram index: substrings of any length of CJK-like runs (see policy/fts_query.py). Schema v4
-- dropped the trigram index that served 3+ characters: a phrase of bigrams finds exactly the
-- same rows, and the trigram index was bigger than the primary one.
CREATE VIRTUAL TABLE index_bigram USING fts5(
    cjk, content='index_rows_cjk', content_rowid='row_id',
    tokenize="unicode61 remove_diacritics 0 categories 'L* N* Co M*'"
);

-- External-content FTS: inserts are indexed in batches by index/index_rows.insert_rows (in the
-- writer's transaction: per-row triggers made each row its own FTS5 segment, measured 2x
-- slower); deletes stay on triggers so no code path can leave a stale FTS entry behind.
-- Never INSERT OR REPLACE into index_rows.
CREATE TRIGGER index_rows_ad AFTER DELETE ON index_rows BEGIN
    INSERT INTO index_fts(index_fts, rowid, text) VALUES ('delete', old.row_id, old.text);
END;
CREATE TRIGGER index_rows_ad_cjk AFTER DELETE ON index_rows BEGIN
    INSERT INTO index_bigram(index_bigram, rowid, cjk) SELECT 'delete', old.row_id, cjk
        FROM (SELECT ocs_cjk_bigrams(old.text) AS cjk) WHERE cjk IS NOT NULL;
END;

-- The [semantic] extra's vectors (index/embed.py): one per index row, the model that made it
-- and its L2-normalised float16 vector. Empty without the extra; deleted with their row.
CREATE TABLE index_vectors (
    row_id INTEGER PRIMARY KEY,
    model  TEXT NOT NULL,
    vec    BLOB NOT NULL
);
CREATE TRIGGER index_rows_ad_vec AFTER DELETE ON index_rows BEGIN
    DELETE FROM index_vectors WHERE row_id = old.row_id;
END;

-- Counters `status` reads (store/counts.py) and the pending set search asks (store/pending.py):
-- their tables and the triggers that keep them are created from those modules, where the one
-- definition of staleness lives (migrations.derived_schema).
