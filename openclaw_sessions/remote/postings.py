"""The posting table (schema migration 5): one row per central row and distinct word of it
(its count there, the row's length and time), so that a store's best rows for one word are
read from one index in bm25 order instead of scoring every row that holds it (issue 39).

Within one store, a word's bm25 grows with its count in a row (tf) and shrinks with the
row's length (ntok), so local's order (bm25, newest, key, message id) puts, among the rows
of one tf, the shorter first, then the newer. A store's best k are therefore among, for
each tf value, the first k of that tf by (ntok, ts DESC) that pass the filters (ties on
both kept: key and message id decide between them): one short range of ocs_postings_best
per tf value. push writes a row's postings with the row (sync.py) and deletes them before
the row (forget()); the migration gave the rows already pushed theirs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from . import schema, stats
from .query import Branch, Where, score
from .rows import Folded

S = schema.SCHEMA
COLS = "host, agent, term, tf, ntok, ts, transcript_id, seq"
# the columns ranking.py reads of a candidate (NARROW), then its score and transcript
NARROW = "r.host, r.agent, r.session_key, r.session_id, r.message_id, r.role, r.ts, r.seq"


def of_row(host: str, agent: str, tid: int, seq: int, ts: int, f: Folded) -> Iterator[Any]:
    """A pushed row's postings (COLS): one per distinct word not longer than POSTED_CHARS."""
    for term, n in f.tf.items():
        if len(term) <= schema.POSTED_CHARS:
            yield (host, agent, term, n, f.ntok, ts, tid, seq)


def write(cur: Any, postings: list[Any]) -> None:
    with cur.copy(f"COPY {S}.ocs_postings ({COLS}) FROM STDIN") as cp:
        for p in postings:
            cp.write_row(p)


def forget(cur: Any, where: str, params: list[Any]) -> None:
    """Delete the postings of the rows of ocs_rows ``r`` that ``where`` selects (before the
    rows go): each recomputed from its row's words, whole (the migration's very SQL), so
    that each is one lookup of the index's full key, not a scan of the store's postings."""
    cur.execute(
        f"DELETE FROM {S}.ocs_postings p USING (SELECT r.host, r.agent, w.term, count(*) AS tf,"
        f" r.ntok, r.ts, r.transcript_id, r.seq FROM {S}.ocs_rows r CROSS JOIN LATERAL"
        " string_to_table(btrim(r.words, ' '), ' ') AS w(term)"
        f" WHERE {where} AND w.term <> '' AND length(w.term) <= {schema.POSTED_CHARS}"
        " GROUP BY r.host, r.agent, r.transcript_id, r.seq, r.ntok, r.ts, w.term) d"
        " WHERE p.host = d.host AND p.agent = d.agent AND p.term = d.term AND p.tf = d.tf"
        " AND p.ntok = d.ntok AND p.ts = d.ts AND p.transcript_id = d.transcript_id"
        " AND p.seq = d.seq",
        params,
    )


def word(b: Branch) -> str | None:
    """The one whole word a branch finds and scores in the word index (postings answer
    it), or None (several phrases, a prefix, CJK, a word too long to be posted)."""
    if b.fts != "index_fts" or len(b.scored) != 1 or b.found != b.scored or b.unless:
        return None
    p = b.scored[0]
    w = p.needle.strip()
    whole = p.column == "words" and p.needle.endswith(" ") and " " not in w
    return w if whole and 0 < len(w) <= schema.POSTED_CHARS else None


def best(conn: Any, b: Branch, w: stats.Weights, filt: Where, k: int) -> list[Any]:
    """Each store's candidates for its best k rows holding the branch's word (NARROW, score,
    tid): for each tf value the store has of the word, from the highest down, its first k
    rows by (ntok, ts DESC) among those ``filt`` keeps, with their ties; scored by the
    same bm25 expression as a scanned row (query.score), tf and length from the posting."""
    term = word(b)
    sc = score(b, tf=["r.ptf"])
    stores = list(w.stores)
    sql = (
        f"SELECT {NARROW}, {sc.sql} AS score, r.transcript_id AS tid"
        " FROM unnest(%s::text[], %s::text[]) AS s(host, agent)"
        f" JOIN ({w.sql}) w ON w.host = s.host AND w.agent = s.agent"
        " CROSS JOIN LATERAL generate_series((SELECT max(tf) FROM"
        f" {S}.ocs_postings WHERE host = s.host AND agent = s.agent AND term = %s), 1, -1)"
        f" AS g(tf) CROSS JOIN LATERAL (SELECT {NARROW}, r.ntok, r.transcript_id, p.tf AS ptf"
        f" FROM {S}.ocs_postings p JOIN {S}.ocs_rows r ON r.host = p.host AND r.agent = p.agent"
        " AND r.transcript_id = p.transcript_id AND r.seq = p.seq"
        " WHERE p.host = s.host AND p.agent = s.agent AND p.term = %s AND p.tf = g.tf"
        f" AND {filt.sql} ORDER BY p.ntok, p.ts DESC FETCH FIRST %s ROWS WITH TIES) r"
    )
    params = [
        *sc.params,
        [h for h, _a in stores],
        [a for _h, a in stores],
        *w.params,
        term,
        term,
        *filt.params,
        k,
    ]
    return list(conn.execute(sql, params).fetchall())
