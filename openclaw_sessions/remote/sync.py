"""One agent's store against the central tables: its sessions, then its fresh transcripts
(fingerprints compared, gone ones deleted, changed ones diffed row by row and streamed into
COPY in batches that each commit with their fingerprints), each row with its postings
(postings.py). push.py drives it."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from typing import Any

from openclaw_sessions.policy import keys
from openclaw_sessions.redact import Redactor
from openclaw_sessions.store.db import transaction
from openclaw_sessions.store.pending import fresh

from . import postings, schema, stats
from .rows import clean, fold_text, row_hash, storable

S = schema.SCHEMA
BATCH_ROWS = 5000  # rows per COPY/commit: bounded memory, resumable
ROW_COLS = (
    "host, agent, transcript_id, seq, session_key, session_id, message_id, role, ts, text,"
    " words, bigrams, ntok, tsv, hash, tfmax"
)


class Counts:
    """What a push did, added up over its agents: push.PushReport's figures, named as there."""

    def __init__(self) -> None:
        self.upserted = self.deleted = self.unchanged = 0
        self.sessions_upserted = self.sessions_deleted = self.transcripts = self.stale = 0
        # keys the central database cannot hold exactly (a NUL, a lone surrogate): left out,
        # and named, so one bad session is its own problem, not the whole push's
        self.skipped: set[str] = set()


# The session fields pushed, as the central table names them (locally: agent_id).
_SESSION_COLS = (
    "session_key, session_id, spawned_by, parent_session_key, owner_session_key, label,"
    " updated_at, key_agent"
)


def _push_sessions(
    conn: Any, local: sqlite3.Connection, host: str, agent: str, red: Redactor, c: Counts
) -> None:
    mine = {}
    cols = _SESSION_COLS.replace("key_agent", "agent_id")
    for r in local.execute(f"SELECT {cols} FROM sessions"):
        if keys.is_incognito(r[0]):
            continue
        if not (storable(r[0]) and storable(r[1])):
            c.skipped.add(r[0])
            continue
        label = None if r[5] is None else red.redact_text(r[5])  # as local output shows it
        row = (*r[:5], label, *r[6:])
        mine[r[0]] = tuple(clean(v) if isinstance(v, str) else v for v in row)
    theirs = {
        r[0]: tuple(r)
        for r in conn.execute(
            f"SELECT {_SESSION_COLS} FROM {S}.ocs_sessions WHERE host = %s AND agent = %s",
            (host, agent),
        )
    }
    changed = [v for k, v in mine.items() if theirs.get(k) != v]
    gone = [k for k in theirs if k not in mine]
    with conn.transaction():
        if changed:
            with conn.cursor() as cur:
                cur.executemany(
                    f"INSERT INTO {S}.ocs_sessions (host, agent, {_SESSION_COLS}) VALUES"
                    " (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
                    " ON CONFLICT (host, agent, session_key) DO UPDATE SET "
                    + ", ".join(f"{c} = excluded.{c}" for c in _SESSION_COLS.split(", ")[1:]),
                    [(host, agent, *v) for v in changed],
                )
        if gone:
            conn.execute(
                f"DELETE FROM {S}.ocs_sessions WHERE host = %s AND agent = %s"
                " AND session_key = ANY(%s)",
                (host, agent, gone),
            )
    c.sessions_upserted += len(changed)
    c.sessions_deleted += len(gone)


Local = tuple[str, str, str, int, int]  # key, session id, fingerprint, rows, stored lines


def _local_transcripts(
    local: sqlite3.Connection, fp: str, c: Counts
) -> tuple[dict[int, Local], int]:
    """{transcript id: (key, session id, fingerprint, rows, stored lines)} of the fresh
    transcripts (what local search searches), and how many are not fresh."""
    out: dict[int, Local] = {}
    stale = 0
    sql = (
        "SELECT t.transcript_id, t.session_key, t.session_id, t.revision, s.indexed_seq,"
        f" s.leaf_event_id, s.redaction_fp, ({fresh()}) AS ok,"
        " coalesce(n.cnt, 0), coalesce(n.mx, 0), coalesce(n.sm, 0), t.next_seq"
        " FROM transcripts t LEFT JOIN index_state s ON s.transcript_id = t.transcript_id"
        " LEFT JOIN (SELECT transcript_id, count(*) AS cnt, max(row_id) AS mx,"
        " total(row_id) AS sm FROM index_rows GROUP BY transcript_id) n"
        " ON n.transcript_id = t.transcript_id"
    )
    for row in local.execute(sql, (fp,)):
        tid, key, sid = int(row[0]), str(row[1]), str(row[2])
        if keys.is_incognito(key):
            continue
        if not (storable(key) and storable(sid)):
            c.skipped.add(key)
            continue
        if not row[7]:
            stale += 1
            continue
        mark = "\0".join(str(v) for v in row[1:7]) + "\0" + "\0".join(str(v) for v in row[8:11])
        out[tid] = (
            key,
            sid,
            hashlib.sha256(mark.encode("utf-8", "surrogatepass")).hexdigest()[:32],
            int(row[8]),
            int(row[11] or 0),
        )
    return out, stale


def push_agent(
    conn: Any, local: sqlite3.Connection, host: str, agent: str, red: Redactor, c: Counts
) -> None:
    fp = red.fingerprint
    with transaction(local, write=False):  # one snapshot of the local store
        _push_sessions(conn, local, host, agent, red, c)
        mine, stale = _local_transcripts(local, fp, c)
        c.stale += stale
        theirs: dict[int, str] = {}
        lines: dict[int, int | None] = {}
        for t, f, n in conn.execute(
            f"SELECT transcript_id, fp, lines FROM {S}.ocs_transcripts"
            " WHERE host = %s AND agent = %s",
            (host, agent),
        ):
            theirs[int(t)], lines[int(t)] = str(f), n
        gone = [t for t in theirs if t not in mine]
        if gone:
            with conn.transaction():
                postings.forget(conn, "r.host = %s AND r.agent = %s AND r.transcript_id = ANY(%s)",
                                [host, agent, gone])  # fmt: skip
                for table in ("ocs_rows", "ocs_transcripts"):
                    cur = conn.execute(
                        f"DELETE FROM {S}.{table} WHERE host = %s AND agent = %s"
                        " AND transcript_id = ANY(%s)",
                        (host, agent, gone),
                    )
                    c.deleted += cur.rowcount if table == "ocs_rows" else 0
        todo = []
        relined = []  # pushed before the lines were (schema 3): only those are set
        for tid, (key, sid, tfp, n, ln) in sorted(mine.items()):
            if theirs.get(tid) == tfp:
                c.unchanged += n
                if lines.get(tid) != ln:
                    relined.append((ln, host, agent, tid))
            else:
                todo.append((tid, key, sid, tfp, tid in theirs))
        batch: list[tuple[int, str, str, str, bool]] = []
        size = 0
        for item in todo:
            batch.append(item)
            size += mine[item[0]][3]
            if size >= BATCH_ROWS:
                _push_batch(conn, local, host, agent, batch, c, mine)
                batch, size = [], 0
        if batch:
            _push_batch(conn, local, host, agent, batch, c, mine)
        if relined:
            with conn.transaction(), conn.cursor() as cur:
                cur.executemany(
                    f"UPDATE {S}.ocs_transcripts SET lines = %s WHERE host = %s AND agent = %s"
                    " AND transcript_id = %s",
                    relined,
                )
        stats.push(conn, local, host, agent)


def _rows(local: sqlite3.Connection, tid: int) -> Iterator[tuple[int, str, str, int, str]]:
    cur = local.cursor()
    cur.row_factory = None
    yield from cur.execute(
        "SELECT seq, message_id, role, ts, text FROM index_rows WHERE transcript_id = ?"
        " ORDER BY seq",
        (tid,),
    )


def _push_batch(
    conn: Any,
    local: sqlite3.Connection,
    host: str,
    agent: str,
    batch: list[tuple[int, str, str, str, bool]],
    c: Counts,
    mine: dict[int, Local],
) -> None:
    """One transaction: the changed rows of these transcripts, and their fingerprints. Rows
    stream from the local store into COPY (two passes over a known transcript: its diff, then
    its new rows), so memory does not grow with a transcript's length."""
    keep: dict[int, set[int]] = {}
    with conn.transaction():
        with conn.cursor() as cur:
            for tid, key, sid, _tfp, known in batch:
                c.transcripts += 1
                if not known:
                    continue
                central = {
                    int(s): str(h)
                    for s, h in cur.execute(
                        f"SELECT seq, hash FROM {S}.ocs_rows WHERE host = %s AND agent = %s"
                        " AND transcript_id = %s",
                        (host, agent, tid),
                    )
                }
                same, seen = set(), set()
                for seq, mid, role, ts, text in _rows(local, tid):
                    seen.add(seq)
                    if central.get(seq) == row_hash(key, sid, mid, role, ts, text):
                        same.add(seq)
                keep[tid] = same
                c.unchanged += len(same)
                drop = [s for s in central if s not in same]
                c.deleted += len([s for s in drop if s not in seen])
                if drop:
                    where = (
                        "r.host = %s AND r.agent = %s AND r.transcript_id = %s AND r.seq = ANY(%s)"
                    )
                    postings.forget(cur, where, [host, agent, tid, drop])
                    cur.execute(
                        f"DELETE FROM {S}.ocs_rows WHERE host = %s AND agent = %s"
                        " AND transcript_id = %s AND seq = ANY(%s)",
                        (host, agent, tid, drop),
                    )
            posts: list[Any] = []  # written after the rows (one COPY at a time)
            with cur.copy(f"COPY {S}.ocs_rows ({ROW_COLS}) FROM STDIN") as cp:
                for tid, key, sid, _tfp, _known in batch:
                    skip = keep.get(tid, set())
                    for seq, mid, role, ts, text in _rows(local, tid):
                        if seq in skip:
                            continue
                        h = row_hash(key, sid, mid, role, ts, text)
                        text = clean(text)
                        f = fold_text(text)
                        cp.write_row(
                            (host, agent, tid, seq, clean(key), clean(sid), clean(mid), role, ts,
                             text, f.words, f.bigrams, f.ntok, f.tsv, h, f.tfmax)
                        )  # fmt: skip
                        posts += postings.of_row(host, agent, tid, seq, ts, f)
                        c.upserted += 1
            postings.write(cur, posts)
            cur.executemany(
                f"INSERT INTO {S}.ocs_transcripts (host, agent, transcript_id, session_key,"
                " session_id, fp, lines) VALUES (%s, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (host, agent, transcript_id) DO UPDATE SET"
                " session_key = excluded.session_key, session_id = excluded.session_id,"
                " fp = excluded.fp, lines = excluded.lines",
                [(host, agent, t, key, sid, tfp, mine[t][4]) for t, key, sid, tfp, _ in batch],
            )
