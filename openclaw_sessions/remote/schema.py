"""The central schema: numbered migrations (like the local store's), applied by `push` under
an advisory lock, recorded in ocs_meta. A database migrated by a newer tool is refused by an
older one (exit 3), for push and search alike; an older one is migrated by push and refused by
search (which needs only SELECT).

Every table leads with ``host``: a host's rows are one key range (and a LIST partition by host
is the natural next step when one server is not enough: README, "Going further")."""

from __future__ import annotations

from typing import Any

from openclaw_sessions.policy.cjk import CJK_CLASS

from .dsn import RemoteError
from .rows import BIGRAM_MARK

SCHEMA = "openclaw_sessions"
MIGRATION_LOCK = 0x6F63735F6D6967  # pg_advisory_xact_lock key of the migrations
POSTED_CHARS = 100  # a longer word has no posting (its searches take the GIN path)

# bm25's bound of a row for any query (migration 3's index, dropped by 5): its most repeated
# token's count over bm25's length norm at a reference avgdl
BOUND_AVGDL = 32.0
BOUND = (
    "(coalesce(tfmax, ntok)::float8 / (0.25::float8 + 0.75::float8 * ntok::float8"
    f" / {BOUND_AVGDL}::float8))"
)


def _pg_class(chars: str) -> str:
    """A Python regex character class's text as PostgreSQL's regex writes it (escapes)."""
    return "".join(c if c == "-" else f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF
                   else f"\\U{ord(c):08x}" for c in chars)  # fmt: skip


def postings_of(where: str) -> str:
    """`SELECT` of the postings (host, agent, term, tf, ntok, ts, transcript_id, seq) of the
    rows of ocs_rows ``r`` that ``where`` selects, derived from what they hold: one per
    distinct word of ``words`` (tf, and the row's length), and one per distinct word of the
    bigram index beside CJK text that the words lack (marked ~: the bigram branch's rows,
    query.branches; tf and length as that index counts them). rows.fold_text's
    postings are these (the migration posts the rows already pushed with this very SQL, and
    postings.forget finds a row's postings through it)."""
    cols = "r.host, r.agent, r.transcript_id, r.seq, r.ts"
    dl = "(length(r.bigrams) - length(replace(r.bigrams, ' ', '')) - 1)"
    return (
        f"SELECT r.host, r.agent, w.term, count(*)::int AS tf, r.ntok, r.ts, r.transcript_id,"
        f" r.seq FROM {SCHEMA}.ocs_rows r CROSS JOIN LATERAL string_to_table(btrim(r.words, ' '),"
        f" ' ') AS w(term) WHERE ({where}) AND w.term <> '' AND length(w.term) <= {POSTED_CHARS}"
        f" GROUP BY {cols}, r.ntok, w.term UNION ALL SELECT r.host, r.agent,"
        f" '{BIGRAM_MARK}' || w.term, count(*)::int, {dl}, r.ts, r.transcript_id, r.seq"
        f" FROM {SCHEMA}.ocs_rows r CROSS JOIN LATERAL string_to_table(btrim(r.bigrams, ' '),"
        f" ' ') AS w(term) WHERE ({where}) AND r.bigrams IS NOT NULL AND w.term <> ''"
        f" AND length(w.term) < {POSTED_CHARS} AND w.term !~ '[{_pg_class(CJK_CLASS)}]'"
        f" AND strpos(r.words, ' ' || w.term || ' ') = 0 GROUP BY {cols}, {dl}, w.term"
    )


MIGRATIONS: list[str] = [
    # 1: hosts with their config snapshot, sessions, transcripts with their fingerprints, rows
    f"""
    CREATE TABLE {SCHEMA}.ocs_meta (key text PRIMARY KEY, value text NOT NULL);
    -- One row per pushing host: the settings --as reads there (visibility, agent-to-agent,
    -- sandbox clamp, main key, redaction patterns), as pushed last.
    CREATE TABLE {SCHEMA}.ocs_hosts (
        host        text PRIMARY KEY,
        config      jsonb NOT NULL,
        tool        text NOT NULL,
        pushed_at   timestamptz NOT NULL DEFAULT now()
    );
    -- The session store entries visibility reads (never incognito ones).
    CREATE TABLE {SCHEMA}.ocs_sessions (
        host               text NOT NULL,
        agent              text NOT NULL,   -- the store it is in
        session_key        text NOT NULL,
        session_id         text,
        spawned_by         text,
        parent_session_key text,
        owner_session_key  text,
        label              text,
        updated_at         bigint,
        key_agent          text,            -- the agent its key names (NULL: unscoped)
        PRIMARY KEY (host, agent, session_key)
    );
    CREATE INDEX ocs_sessions_by_id ON {SCHEMA}.ocs_sessions (host, lower(session_id));
    -- Transcript generations pushed, with the fingerprint of what was pushed.
    CREATE TABLE {SCHEMA}.ocs_transcripts (
        host          text NOT NULL,
        agent         text NOT NULL,
        transcript_id bigint NOT NULL,
        session_key   text NOT NULL,
        session_id    text NOT NULL,
        fp            text NOT NULL,
        PRIMARY KEY (host, agent, transcript_id)
    );
    CREATE INDEX ocs_transcripts_by_id
        ON {SCHEMA}.ocs_transcripts (host, lower(session_id));
    -- The redacted index rows: text as local search shows it, the folded tokens of the
    -- primary index and of the CJK bigram index (" tok tok "), both as a tsvector for GIN.
    CREATE TABLE {SCHEMA}.ocs_rows (
        host          text NOT NULL,
        agent         text NOT NULL,
        transcript_id bigint NOT NULL,
        seq           integer NOT NULL,
        session_key   text NOT NULL,
        session_id    text NOT NULL,
        message_id    text NOT NULL,
        role          text NOT NULL,
        ts            bigint NOT NULL,
        text          text NOT NULL,
        words         text NOT NULL,    -- " w1 w2 … " (primary tokens, folded)
        bigrams       text,             -- " b1 b2 … " (CJK bigram tokens), NULL: no CJK
        ntok          integer NOT NULL,
        tsv           tsvector,         -- distinct words and ~bigrams; NULL: too large
        hash          text NOT NULL,    -- of message id, role, ts and text
        PRIMARY KEY (host, agent, transcript_id, seq)
    );
    CREATE INDEX ocs_rows_tsv ON {SCHEMA}.ocs_rows USING gin (tsv);
    CREATE INDEX ocs_rows_untokenized ON {SCHEMA}.ocs_rows (host) WHERE tsv IS NULL;
    CREATE INDEX ocs_rows_by_ts ON {SCHEMA}.ocs_rows (ts);
    -- relevance order of a common word walks the shortest rows first
    CREATE INDEX ocs_rows_by_ntok ON {SCHEMA}.ocs_rows (ntok, ts DESC);
    CREATE INDEX ocs_rows_by_key ON {SCHEMA}.ocs_rows (host, session_key);
    """,
    # 2: a host's redaction patterns are no longer pushed (a literal secret an operator
    # listed to mask it was readable by every search role): drop what earlier pushes left
    f"""
    UPDATE {SCHEMA}.ocs_hosts SET config = config - 'redactPatterns'
        WHERE config ? 'redactPatterns';
    """,
    # 3: local bm25 centrally: each store's FTS totals (remote/stats.py), each transcript's
    # stored lines (the operator's order dilutes a long session by them: policy/rank.py)
    f"""
    CREATE TABLE {SCHEMA}.ocs_stats (
        host     text NOT NULL,
        agent    text NOT NULL,
        fts      text NOT NULL,     -- index_fts | index_bigram
        nrows    bigint NOT NULL,   -- N: rows in the local FTS table, every session's
        ntokens  bigint NOT NULL,   -- their tokens: avgdl = ntokens / nrows
        PRIMARY KEY (host, agent, fts)
    );
    ALTER TABLE {SCHEMA}.ocs_transcripts ADD COLUMN lines bigint;
    -- each store's document frequencies (fts5vocab 'row'): a word's n_i is local's own
    CREATE TABLE {SCHEMA}.ocs_terms (
        host   text NOT NULL,
        agent  text NOT NULL,
        fts    text NOT NULL,
        term   text NOT NULL,
        docs   bigint NOT NULL,
        PRIMARY KEY (host, agent, fts, term)
    );
    -- a row's most repeated token: no phrase occurs in it more often, so its bm25 for any
    -- query is bounded by tfmax and its length (ranking.py walks this bound, best first);
    -- NULL (pushed earlier): its length bounds it
    ALTER TABLE {SCHEMA}.ocs_rows ADD COLUMN tfmax integer;
    CREATE INDEX ocs_rows_by_bound ON {SCHEMA}.ocs_rows (host, agent, ({BOUND}) DESC);
    """,
    # 4: a row's words are the word index's tokens alone (bm25 there counts no others) and its
    # bigrams the bigram index's, the words beside CJK text included (rows.fold_text): every
    # row with CJK text is pushed again by its host's next push (hash and fingerprint unset)
    f"""
    UPDATE {SCHEMA}.ocs_rows SET hash = '' WHERE bigrams IS NOT NULL;
    UPDATE {SCHEMA}.ocs_transcripts t SET fp = '' WHERE EXISTS (SELECT 1 FROM {SCHEMA}.ocs_rows r
        WHERE r.host = t.host AND r.agent = t.agent AND r.transcript_id = t.transcript_id
        AND r.bigrams IS NOT NULL);
    """,
    # 5: a posting per row and distinct word (remote/postings.py): a store's best rows for a
    # word are then a few short ranges of one index, however common the word; the rows
    # pushed so far get theirs here, from the words they hold (what a push would send).
    # The bound index of 3 served a walk that never paid (issue 39): dropped.
    f"""
    CREATE TABLE {SCHEMA}.ocs_postings (
        host          text NOT NULL,
        agent         text NOT NULL,
        term          text NOT NULL,    -- a word of the row, or ~ and a bigram index word
        tf            integer NOT NULL, -- its count in the row
        ntok          integer NOT NULL, -- the row's length (as the term's index counts it)
        ts            bigint NOT NULL,  -- the row's time (ocs_rows.ts)
        transcript_id bigint NOT NULL,
        seq           integer NOT NULL
    );
    INSERT INTO {SCHEMA}.ocs_postings {postings_of("true")};
    -- a store's rows holding a word, best bm25 first within each count (postings.best); the
    -- whole key, so that a posting is deleted by an index lookup (postings.forget)
    CREATE INDEX ocs_postings_best ON {SCHEMA}.ocs_postings
        (host, agent, term, tf DESC, ntok, ts DESC, transcript_id, seq);
    DROP INDEX IF EXISTS {SCHEMA}.ocs_rows_by_bound;
    """,
]
VERSION = len(MIGRATIONS)


def version(conn: Any) -> int:
    """The central schema's version (0: none yet)."""
    with conn.cursor() as cur:
        if not cur.execute("SELECT to_regclass(%s)", (f"{SCHEMA}.ocs_meta",)).fetchone()[0]:
            return 0
        row = cur.execute(
            f"SELECT value FROM {SCHEMA}.ocs_meta WHERE key = 'schema_version'"
        ).fetchone()
    return int(row[0]) if row else 0


def check(conn: Any, *, for_search: bool) -> None:
    """Refuse a schema this tool does not know (newer), or (search) none or an older one."""
    found = version(conn)
    if found > VERSION:
        raise RemoteError(
            f"the central schema is version {found}; this openclaw-sessions knows up to {VERSION}",
            hint="upgrade openclaw-sessions on this machine",
            code="remote_schema_newer",
        )
    if for_search and found < VERSION:
        raise RemoteError(
            "the central database has no openclaw-sessions schema yet"
            if found == 0
            else f"the central schema is version {found}; this openclaw-sessions needs {VERSION}",
            hint="run `openclaw-sessions push` with this version first",
            code="remote_schema_missing" if found == 0 else "remote_schema_older",
        )


def migrate(conn: Any) -> int:
    """Bring the schema to VERSION (one transaction, under the migration lock); the version
    it was at."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        start = version(conn)
        if start == 0:  # IF NOT EXISTS still needs CREATE on the database: only when new
            conn.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
        check(conn, for_search=False)
        for n in range(start, VERSION):
            conn.execute(MIGRATIONS[n])
            conn.execute(
                f"INSERT INTO {SCHEMA}.ocs_meta (key, value) VALUES ('schema_version', %s)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (str(n + 1),),
            )
    return start
