"""The term statistics local bm25 reads, carried centrally: per (host, agent) store and per
full-text index, the rows in the index (N) and their tokens (N · avgdl), read from the local
FTS5 index at push time (its averages record) and stored in ocs_stats, so that a central
score is local's bm25 (query.score)."""

from __future__ import annotations

import math
import sqlite3
from typing import Any, NamedTuple

from . import schema
from .rows import storable

S = schema.SCHEMA
INDEXES = ("index_fts", "index_bigram")  # primary, CJK bigram


class Totals(NamedTuple):
    rows: int  # N: rows in the FTS table (every session's, hidden and incognito ones too)
    tokens: int  # their tokens (avgdl = tokens / rows)


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    """SQLite's varint (as FTS5 writes it): (value, next position)."""
    value = 0
    for i in range(8):
        b = buf[pos + i]
        value = (value << 7) | (b & 0x7F)
        if not b & 0x80:
            return value, pos + i + 1
    return (value << 8) | buf[pos + 8], pos + 9


def local_totals(local: sqlite3.Connection, table: str) -> Totals:
    """FTS5's own totals for ``table``: its averages record (the `_data` row 1: the row count,
    then each column's token count), which is what bm25() reads."""
    got = local.execute(f"SELECT block FROM {table}_data WHERE id = 1").fetchone()
    if got is None or not got[0]:
        return Totals(0, 0)
    buf = bytes(got[0])
    rows, pos = _varint(buf, 0)
    tokens, _ = _varint(buf, pos) if pos < len(buf) else (0, pos)
    return Totals(rows, tokens)


def _vocabulary(local: sqlite3.Connection, table: str) -> dict[str, int]:
    """{term: rows holding it} of a local FTS table (fts5vocab 'row': bm25's n of a word)."""
    local.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.ocs_vocab_{table}"
        f" USING fts5vocab(main, {table}, row)"
    )
    got = local.execute(f"SELECT term, doc FROM temp.ocs_vocab_{table}")
    return {str(t): int(n) for t, n in got if storable(str(t))}


def _push_terms(conn: Any, local: sqlite3.Connection, host: str, agent: str, fts: str) -> None:
    mine = _vocabulary(local, fts)
    theirs = {
        str(t): int(n)
        for t, n in conn.execute(
            f"SELECT term, docs FROM {S}.ocs_terms WHERE host = %s AND agent = %s AND fts = %s",
            (host, agent, fts),
        )
    }
    changed = [(t, n) for t, n in mine.items() if theirs.get(t) != n]
    gone = [t for t in theirs if t not in mine]
    with conn.transaction(), conn.cursor() as cur:
        if gone:
            cur.execute(
                f"DELETE FROM {S}.ocs_terms WHERE host = %s AND agent = %s AND fts = %s"
                " AND term = ANY(%s)",
                (host, agent, fts, gone),
            )
        if changed and not theirs:  # the first push: every term, by COPY
            with cur.copy(f"COPY {S}.ocs_terms (host, agent, fts, term, docs) FROM STDIN") as cp:
                for t, n in changed:
                    cp.write_row((host, agent, fts, t, n))
        elif changed:
            cur.executemany(
                f"INSERT INTO {S}.ocs_terms (host, agent, fts, term, docs)"
                " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (host, agent, fts, term)"
                " DO UPDATE SET docs = excluded.docs",
                [(host, agent, fts, t, n) for t, n in changed],
            )


def push(conn: Any, local: sqlite3.Connection, host: str, agent: str) -> None:
    """Store this agent's totals and document frequencies of both indexes, as the snapshot
    the push reads has them."""
    for table in INDEXES:
        _push_terms(conn, local, host, agent, table)
    values = [(host, agent, t, *local_totals(local, t)) for t in INDEXES]
    with conn.transaction(), conn.cursor() as cur:
        cur.executemany(
            f"INSERT INTO {S}.ocs_stats (host, agent, fts, nrows, ntokens)"
            " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (host, agent, fts) DO UPDATE"
            " SET nrows = excluded.nrows, ntokens = excluded.ntokens",
            values,
        )


def docs(conn: Any, fts: str, term: str, hosts: list[str]) -> dict[tuple[str, str], int] | None:
    """n of one word per store, as local FTS5 counts it (pushed); None when a store searched
    was pushed without its frequencies (an older push: count the pushed rows instead)."""
    any_host = hosts or None
    missing = conn.execute(
        f"SELECT 1 FROM (SELECT DISTINCT host, agent FROM {S}.ocs_transcripts"
        " WHERE %s::text[] IS NULL OR host = ANY(%s)) t WHERE NOT EXISTS (SELECT 1"
        f" FROM {S}.ocs_stats st WHERE st.host = t.host AND st.agent = t.agent) LIMIT 1",
        (any_host, hosts),
    ).fetchone()
    if missing:
        return None
    got = conn.execute(
        f"SELECT host, agent, docs FROM {S}.ocs_terms WHERE fts = %s AND term = %s"
        " AND (%s::text[] IS NULL OR host = ANY(%s))",
        (fts, term, any_host, hosts),
    ).fetchall()
    return {(str(h), str(a)): int(n) for h, a, n in got}


def _totals(conn: Any, host: str, agent: str, fts: str) -> Totals:
    """A store pushed before its totals were (schema < 3): its pushed rows' totals."""
    if fts == "index_fts":
        sql = f"SELECT count(*), coalesce(sum(ntok), 0) FROM {S}.ocs_rows"
    else:
        b = "length(bigrams) - length(replace(bigrams, ' ', '')) - 1"
        sql = f"SELECT count(bigrams), coalesce(sum({b}), 0) FROM {S}.ocs_rows"
    got = conn.execute(f"{sql} WHERE host = %s AND agent = %s", (host, agent)).fetchone()
    return Totals(int(got[0]), int(got[1]))


def idf(n_rows: int, n_hits: int) -> float:
    """fts5_aux.c's: log((N - n + 0.5) / (n + 0.5)), 1e-6 when not positive."""
    v = math.log((n_rows - n_hits + 0.5) / (n_hits + 0.5))
    return v if v > 0 else 1e-6


class Weights(NamedTuple):
    sql: str  # rows w(host, agent, avgdl, idf0, idf1, …) of the stores holding a match
    params: list[Any]
    stores: dict[tuple[str, str], tuple[float, list[float]]]  # (avgdl, idfs) of each


def weights(conn: Any, counts: list[dict[tuple[str, str], int]], fts: str) -> Weights:
    """What bm25 reads of each store holding a match; ``counts``: per scored phrase, its
    rows per store (n_i)."""
    stores = sorted({k for c in counts for k in c})
    known = {
        (str(h), str(a)): Totals(int(n), int(t))
        for h, a, n, t in conn.execute(
            f"SELECT host, agent, nrows, ntokens FROM {S}.ocs_stats WHERE fts = %s", (fts,)
        )
    }
    avgdl: list[float] = []
    idfs: list[list[float]] = [[] for _ in counts]
    for store in stores:
        tot = known.get(store) or _totals(conn, *store, fts)
        # a local N below the pushed matches (stats older than the rows): the matches bound it
        n_rows = max(tot.rows, max(c.get(store, 0) for c in counts), 1)
        avgdl.append(max(tot.tokens, 1) / max(tot.rows, 1))
        for i, c in enumerate(counts):
            idfs[i].append(idf(n_rows, c.get(store, 0)))
    cols = ", ".join(f"idf{i}" for i in range(len(counts)))
    arrays = ", ".join(["%s::text[]"] * 2 + ["%s::float8[]"] * (1 + len(counts)))
    sql = f"SELECT * FROM unnest({arrays}) AS w(host, agent, avgdl, {cols})"
    per = {st: (avgdl[j], [v[j] for v in idfs]) for j, st in enumerate(stores)}
    return Weights(sql, [[h for h, _a in stores], [a for _h, a in stores], avgdl, *idfs], per)


def rows(conn: Any, fts: str) -> dict[tuple[str, str], int]:
    """N of each store (its local FTS table's rows)."""
    got = conn.execute(f"SELECT host, agent, nrows FROM {S}.ocs_stats WHERE fts = %s", (fts,))
    return {(str(h), str(a)): int(n) for h, a, n in got}
