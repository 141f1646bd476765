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
from .query import Branch, Phrase, Where, score
from .rows import BIGRAM_MARK, Folded

S = schema.SCHEMA
COLS = "host, agent, term, tf, ntok, ts, transcript_id, seq"
# the columns ranking.py reads of a candidate (NARROW), then its score and transcript
NARROW = "r.host, r.agent, r.session_key, r.session_id, r.message_id, r.role, r.ts, r.seq"


def of_row(host: str, agent: str, tid: int, seq: int, ts: int, f: Folded) -> Iterator[Any]:
    """A pushed row's postings (COLS), as schema.postings_of derives them: one per distinct
    word, and one per word beside CJK text the words lack (marked), each term not longer
    than POSTED_CHARS."""
    for term, n in f.tf.items():
        if len(term) <= schema.POSTED_CHARS:
            yield (host, agent, term, n, f.ntok, ts, tid, seq)
    for term, n in f.beside.items():
        if len(term) < schema.POSTED_CHARS:
            yield (host, agent, BIGRAM_MARK + term, n, f.nbig, ts, tid, seq)


def write(cur: Any, postings: list[Any]) -> None:
    with cur.copy(f"COPY {S}.ocs_postings ({COLS}) FROM STDIN") as cp:
        for p in postings:
            cp.write_row(p)


def forget(cur: Any, where: str, params: list[Any]) -> None:
    """Delete the postings of the rows of ocs_rows ``r`` that ``where`` selects (before the
    rows go): each derived again from its row (schema.postings_of), whole, so that each is
    one lookup of the index's full key, not a scan of the store's postings."""
    cur.execute(
        f"DELETE FROM {S}.ocs_postings p USING ({schema.postings_of(where)}) d"
        " WHERE p.host = d.host AND p.agent = d.agent AND p.term = d.term AND p.tf = d.tf"
        " AND p.ntok = d.ntok AND p.ts = d.ts AND p.transcript_id = d.transcript_id"
        " AND p.seq = d.seq",
        params * 2,
    )


def _whole(p: Phrase, column: str) -> str | None:
    w = p.needle.strip()
    return w if p.column == column and p.needle.endswith(" ") and w and " " not in w else None


def terms(b: Branch) -> list[str] | None:
    """The posting terms that answer a branch: its whole words in the word index (each a
    phrase of one word), or (the bigram branch of a one-word query) that word beside CJK
    text, marked; None for anything else (a phrase of several words, a prefix, CJK text, a
    word too long)."""
    if b.fts == "index_fts" and not b.unless and b.found == b.scored:
        got = [_whole(p, "words") for p in b.scored]
    elif (
        b.fts == "index_bigram"
        and len(b.scored) == len(b.found) == len(b.unless) == 1
        and b.found[0].needle == b.scored[0].needle
        and _whole(b.unless[0], "words")
    ):
        w = _whole(b.scored[0], "bigrams")
        got = [None if w is None else BIGRAM_MARK + w]
    else:
        return None
    ok = [t for t in got if t and len(t) <= schema.POSTED_CHARS]
    return ok if ok and len(ok) == len(got) else None


def best(conn: Any, b: Branch, w: stats.Weights, filt: Where, k: int) -> list[Any]:
    """Each store's candidates for its best k rows holding the branch's word (NARROW, score,
    tid): for each tf value the store has of the word, from the highest down, its first k
    rows by (ntok, ts DESC) among those ``filt`` keeps, with their ties; scored by the
    same bm25 expression as a scanned row (query.score), tf and length from the posting."""
    words = terms(b)
    assert words is not None
    if len(words) > 1:
        # the words' postings are hashed (the planner, misled by the filters' estimates,
        # probed the commonest word's postings once per row of another, or sorted them all)
        conn.execute("SET LOCAL enable_mergejoin = off")
        conn.execute("SET LOCAL enable_nestloop = off")
        try:
            return [r for st in w.stores for r in _all(conn, b, words, w, st, filt, k)]
        finally:
            conn.execute("RESET enable_mergejoin")
            conn.execute("RESET enable_nestloop")
    term = words[0]
    sc = score(b, tf=["r.ptf"], dl="r.pntok")
    # the bigram branch's rows lack the word among their words (query.branches)
    unless = "".join(f" AND strpos(r.{p.column}, %s) = 0" for p in b.unless)
    # each posting, in the index's order, looks its row up and tests the filters (OFFSET 0
    # keeps that subquery apart: joined, the planner started from the store's sessions and
    # sorted every match, misled by the filters' estimates)
    stores = list(w.stores)
    sql = (
        f"SELECT {NARROW}, {sc.sql} AS score, r.transcript_id AS tid"
        " FROM unnest(%s::text[], %s::text[]) AS s(host, agent)"
        f" JOIN ({w.sql}) w ON w.host = s.host AND w.agent = s.agent"
        " CROSS JOIN LATERAL generate_series((SELECT max(tf) FROM"
        f" {S}.ocs_postings WHERE host = s.host AND agent = s.agent AND term = %s), 1, -1)"
        f" AS g(tf) CROSS JOIN LATERAL (SELECT r.*, p.tf AS ptf, p.ntok AS pntok FROM"
        f" {S}.ocs_postings p"
        f" CROSS JOIN LATERAL (SELECT {NARROW}, r.ntok, r.transcript_id FROM {S}.ocs_rows r"
        " WHERE r.host = p.host AND r.agent = p.agent AND r.transcript_id = p.transcript_id"
        f" AND r.seq = p.seq AND {filt.sql}{unless} OFFSET 0) r"
        " WHERE p.host = s.host AND p.agent = s.agent AND p.term = %s AND p.tf = g.tf"
        " ORDER BY p.ntok, p.ts DESC FETCH FIRST %s ROWS WITH TIES) r"
    )
    params = [
        *sc.params,
        [h for h, _a in stores],
        [a for _h, a in stores],
        *w.params,
        term,
        *filt.params,
        *(p.needle for p in b.unless),
        term,
        k,
    ]
    return list(conn.execute(sql, params).fetchall())


def _all(
    conn: Any, b: Branch, words: list[str], w: stats.Weights, store: tuple[str, str],
    filt: Where, k: int,
) -> list[Any]:  # fmt: skip
    """One store's best k rows holding several words: the rows holding every one, joined
    from the words' postings (hashed: no row read), each scored from its postings' tf and
    length; then, best first, each looked up and tested against the filters until k (and
    their ties on score and time: key and message id decide between them) are kept."""
    avgdl, idfs = w.stores[store]
    sc = score(b, tf=[f"c.tf{i}" for i in range(len(words))], dl="c.ntok")
    mine = "p{0}.host = %s AND p{0}.agent = %s AND p{0}.term = %s"
    joins = "".join(
        f" JOIN {S}.ocs_postings p{i} ON {mine.format(i)} AND p{i}.transcript_id ="
        f" p0.transcript_id AND p{i}.seq = p0.seq"
        for i in range(1, len(words))
    )
    tfs = ", ".join(f"p{i}.tf AS tf{i}" for i in range(len(words)))
    cols = ", ".join(f"%s::float8 AS idf{i}" for i in range(len(words)))
    sql = (
        f"SELECT {NARROW}, c.score, r.transcript_id AS tid FROM (SELECT c.*, {sc.sql} AS score"
        f" FROM (SELECT p0.transcript_id, p0.seq, p0.ts, p0.ntok, {tfs} FROM {S}.ocs_postings"
        f" p0{joins} WHERE {mine.format(0)}) c CROSS JOIN (SELECT %s::float8 AS avgdl, {cols}) w"
        " ORDER BY score DESC, c.ts DESC) c CROSS JOIN LATERAL (SELECT"
        f" {NARROW}, r.transcript_id FROM {S}.ocs_rows r WHERE r.host = %s AND r.agent = %s"
        f" AND r.transcript_id = c.transcript_id AND r.seq = c.seq AND {filt.sql} OFFSET 0) r"
        " ORDER BY c.score DESC, c.ts DESC FETCH FIRST %s ROWS WITH TIES"
    )
    params = [*sc.params, *(x for t in words[1:] for x in (*store, t)), *store, words[0],
              avgdl, *idfs, *store, *filt.params, k]  # fmt: skip
    return list(conn.execute(sql, params).fetchall())
