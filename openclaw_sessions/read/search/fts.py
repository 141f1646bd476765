"""The search query: one SQL statement per call, every filter inside it, before LIMIT.

Visibility (checked per row: read/scope.py), dirty sessions, role, time and session filters all
sit in the WHERE clause, so a hidden or stale match never changes what the caller sees, counts or
pages. When the search keeps to a few sessions (a narrow caller's, or --session), the full-text
query itself keeps to their rows: only those are scored and joined, however common the word.
Snippets are redacted again on the way out (the index holds redacted text) and cut after that.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any, NamedTuple

from openclaw_sessions.policy import fts_query, kinds
from openclaw_sessions.policy.cut import safe_cut
from openclaw_sessions.read.models import Hit
from openclaw_sessions.read.scope import OPERATOR_VISIBLE, SESSION_JOIN
from openclaw_sessions.store.db import transaction
from openclaw_sessions.store.pending import fresh

from .snippets import CLOSE as _CLOSE
from .snippets import OPEN as _OPEN
from .snippets import Snippets, cjk_snippet

if TYPE_CHECKING:
    from openclaw_sessions.redact import Redactor

SNIPPET_UNITS = 300  # UTF-16 code units, as upstream counts
_NO_MARKS = str.maketrans("", "", _OPEN + _CLOSE)  # the snippet's match marks, taken out
_CANDIDATES = 64  # first candidate batch for relevance order (grows x8 while inexact)


class Filters(NamedTuple):
    # The per-row visibility condition (read/scope.py: visible_sql, with its function
    # registered on the connection); the default: every session but incognito ones.
    visible: str = OPERATOR_VISIBLE
    session: str | None = None  # a key or a session id
    role: str | None = None
    since_ms: int | None = None
    until_ms: int | None = None
    # The store's agent: a search with no session filter keeps to that agent's namespace (a
    # sessions.json entry in agent A's directory whose key names agent B is not A's session,
    # as upstream's search backend has it). None: no such filter.
    agent: str | None = None
    # The sessions a narrow caller may see (scope.listed_sessions), None: not listed (the
    # per-row check alone). The per-row check stays either way: this only narrows the work.
    sessions: tuple[str, ...] | None = None
    keys: kinds.KeyFilter = kinds.KeyFilter()  # --kind, --not-kind, --key (operator)
    # Sessions left out before the limit (the MCP tool's excludeSessionKeys): keys, lowercase,
    # or session ids, as the session filter compares them.
    exclude: tuple[str, ...] = ()

    def scope(self) -> tuple[list[str], list[Any]]:
        """The clause on t keeping to the session named, else to the agent namespace."""
        if self.session is not None:
            return ["(t.session_key = ? OR t.session_id = ?)"], [self.session.lower(), self.session]
        if self.agent is None:
            return [], []
        prefix = f"agent:{self.agent}:"
        glob = "(t.session_key NOT GLOB 'agent:*' OR substr(t.session_key, 1, ?) = ?)"
        return [glob], [len(prefix), prefix]


def driving_index(plan: fts_query.QueryPlan) -> tuple[str, str]:
    """(FTS table driving the query, its MATCH expression)."""
    if plan.primary is not None:
        return "index_fts", plan.primary
    assert plan.bigram is not None
    return "index_bigram", plan.bigram


def where_of(f: Filters, fp: str) -> tuple[list[str], list[Any]]:
    """WHERE clauses over r (index_rows), t (transcripts), s (index_state), ss (sessions),
    before LIMIT."""
    scope, sparams = f.scope()
    where = [fresh(), f.visible, *scope]
    params: list[Any] = [fp, *sparams]
    if f.exclude:
        where.append(
            "t.session_key NOT IN (SELECT value FROM json_each(?))"
            " AND coalesce(t.session_id, '') NOT IN (SELECT value FROM json_each(?))"
        )
        params += [json.dumps([k.lower() for k in f.exclude]), json.dumps(f.exclude)]
    if f.role is not None:
        where.append("r.role = ?")
        params.append(f.role)
    if not f.keys.empty:
        clauses, kparams = kinds.where(f.keys, "t.session_key")
        where += clauses
        params += kparams
    if f.since_ms is not None:
        where.append("r.ts >= ?")
        params.append(f.since_ms)
    if f.until_ms is not None:
        where.append("r.ts < ?")
        params.append(f.until_ms)
    return where, params


def _other_index(plan: fts_query.QueryPlan, table: str, col: str) -> tuple[str, list[Any]]:
    """The other indexes' terms, and the rows a `-word` leaves out, as rowid filters on the
    driving table."""
    sql, params = "", []
    if plan.bigram is not None and table != "index_bigram":
        sql += f" AND {col} IN (SELECT rowid FROM index_bigram WHERE index_bigram MATCH ?)"
        params.append(plan.bigram)
    for other, expr in (("index_fts", plan.not_primary), ("index_bigram", plan.not_bigram)):
        if expr is not None:
            sql += f" AND {col} NOT IN (SELECT rowid FROM {other} WHERE {other} MATCH ?)"
            params.append(expr)
    return sql, params


def kept_rows(f: Filters, col: str) -> tuple[str, list[Any]]:
    """The rows of the sessions the search keeps to (the listed visible ones, the --session
    one), as a filter on the driving table's rowid ``col``. The unary ``+`` keeps it out of
    FTS5's plan: a probe per listed row costs far more than testing each match against the
    list, which runs in C before a match is scored."""
    where, params = [], list[Any]()
    if f.sessions is not None:
        where.append("kt.session_key IN (SELECT value FROM json_each(?))")
        params.append(json.dumps(f.sessions))
    if f.session is not None:
        where.append("(kt.session_key = ? OR kt.session_id = ?)")
        params += [f.session.lower(), f.session]
    if not where:
        return "", []
    return (
        f" AND +{col} IN (SELECT k.row_id FROM transcripts kt JOIN index_rows k"
        f" ON k.transcript_id = kt.transcript_id WHERE {' AND '.join(where)})"
    ), params


def repeats(plan: fts_query.QueryPlan, table: str, col: str) -> tuple[str, str, list[Any]]:
    """(a join of the extra bm25 of the phrases the query repeated, on rowid ``col``, the
    score's addend, their parameters): the folded query scores as upstream's unfolded one
    (bm25 is a sum over the phrases), each repeated phrase read once whatever its count."""
    reps = [(expr, n) for t, expr, n in plan.repeats if t == table]
    if not reps:
        return "", "", []
    part = f"SELECT rowid AS rid, ? * bm25({table}) AS s FROM {table} WHERE {table} MATCH ?"
    # LIMIT -1 keeps SQLite from flattening the union into the GROUP BY, where bm25() has no
    # FTS5 cursor to read ("unable to use function bm25 in the requested context").
    union = " UNION ALL ".join([part] * len(reps)) + " LIMIT -1"
    join = f" LEFT JOIN (SELECT rid, sum(s) AS s FROM ({union}) GROUP BY rid) x ON x.rid = {col}"
    return join, " + coalesce(x.s, 0)", [v for expr, n in reps for v in (n, expr)]


# The transcript, index state and session of an index row r: what the filters of a search read.
JOINS = (
    " JOIN transcripts t ON t.transcript_id = r.transcript_id"
    " JOIN index_state s ON s.transcript_id = r.transcript_id" + SESSION_JOIN
)


def _scored(alt: fts_query.QueryPlan, f: Filters, scored: bool = True) -> tuple[str, list[Any]]:
    """One alternative's matches as (rid, score), the filters' row limits inside, and its
    parameters; ``scored`` False: the score is 0 (a count: bm25 reads each match's size)."""
    table, expr = driving_index(alt)
    col = f"{table}.rowid"
    also, aparams = _other_index(alt, table, col)
    kept, kparams = kept_rows(f, col)
    xjoin, plus, xparams = repeats(alt, table, col) if scored else ("", "", [])
    score = f"bm25({table}){plus}" if scored else "0"
    sql = (
        f"SELECT {col} AS rid, {score} AS score FROM {table}{xjoin}"
        f" WHERE {table} MATCH ?{also}{kept}"
    )
    return sql, [*xparams, expr, *aparams, *kparams]


def _matching(
    plan: fts_query.QueryPlan, f: Filters, fp: str, scored: bool = True
) -> tuple[str, str, list[Any]]:
    """(the score of a match, `FROM … WHERE …` of every match the filters keep, its
    parameters): what the newest-first hits, the counts and the per-session counts all read.
    An OR across the two indexes (or a word written against CJK text: fts_query.with_glued)
    is the union of its branches, each row at its best score. ``scored`` False: a count's."""
    where, params = where_of(f, fp)
    if len(plan.branches) > 1:
        # Without alternatives, the glued branches leave out what the word index finds: the
        # branches are disjoint, read in turn (a capped count stops in the first).
        disjoint = not plan.alternatives
        parts, aparams = [], []
        for alt in plan.branches:
            sql, more = _scored(alt, f, scored)
            parts.append(sql)
            aparams += more
        union = " UNION ALL ".join(parts)
        m = (
            f"{union} LIMIT -1"
            if disjoint
            else f"SELECT rid, min(score) AS score FROM ({union}) GROUP BY rid"
        )
        body = (
            f" FROM ({m}) m"
            f" {'CROSS ' if disjoint else ''}JOIN index_rows r ON r.row_id = m.rid{JOINS}"
            f" WHERE {' AND '.join(where)}"
        )
        return "m.score", body, [*aparams, *params]
    table, expr = driving_index(plan)
    also, aparams = _other_index(plan, table, "r.row_id")
    kept, kparams = kept_rows(f, f"{table}.rowid")
    xjoin, plus, xparams = repeats(plan, table, f"{table}.rowid") if scored else ("", "", [])
    body = (
        f" FROM {table}{xjoin} JOIN index_rows r ON r.row_id = {table}.rowid{JOINS}"
        f" WHERE {table} MATCH ?{also}{kept} AND {' AND '.join(where)}"
    )
    return f"bm25({table}){plus}", body, [*xparams, expr, *aparams, *kparams, *params]


def _recent(
    conn: sqlite3.Connection, plan: fts_query.QueryPlan, f: Filters, fp: str, limit: int
) -> list[tuple[Any, ...]]:
    """Newest first: every match is joined and filtered, then sorted by time."""
    score, body, params = _matching(plan, f, fp)
    sql = (
        f"SELECT t.session_key, t.session_id, r.message_id, r.role, r.ts, {score},"
        f" r.row_id{body} ORDER BY r.ts DESC, t.session_key, r.message_id LIMIT ?"
    )
    return [tuple(r) for r in conn.execute(sql, [*params, limit + 1])]


def first_k(limit: int) -> int:
    """Candidates ranked on the first try: enough for most filters to leave limit+1."""
    return max(_CANDIDATES, 8 * (limit + 1))


def best(
    conn: sqlite3.Connection,
    plan: fts_query.QueryPlan,
    f: Filters,
    fp: str,
    k: int,
    extra: str = "",
    extra_params: Sequence[Any] = (),
) -> tuple[dict[int, float], float, list[Any]]:
    """Without joining every match: the best ``k`` of each alternative by bm25 (scored in C;
    SQLite keeps only the best k as it goes, where FTS5's ``ORDER BY rank`` sorts every
    match), each row at its best rank; the rank no match outside them beats (inf: they are
    every match); and those the filters keep, joined, best first: (row id, key, session id,
    message id, role, ts, then the ``extra`` columns)."""
    ranks: dict[int, float] = {}
    bound = float("inf")
    for alt in plan.branches:
        sql, aparams = _scored(alt, f)
        cands = conn.execute(f"{sql} ORDER BY score LIMIT ?", [*aparams, k]).fetchall()
        for rowid, rank in cands:
            ranks[rowid] = min(rank, ranks.get(rowid, rank))
        if len(cands) == k:
            bound = min(bound, cands[-1][1])
    where, params = where_of(f, fp)
    rows = conn.execute(
        f"SELECT r.row_id, t.session_key, t.session_id, r.message_id, r.role, r.ts{extra}"
        f" FROM index_rows r{JOINS} WHERE r.row_id IN (SELECT value FROM json_each(?))"
        f" AND {' AND '.join(where)}",
        [*extra_params, json.dumps(list(ranks)), *params],
    ).fetchall()
    rows.sort(key=lambda r: (ranks[r[0]], -r[5], r[1], r[3]))
    return ranks, bound, rows


def _relevant(
    conn: sqlite3.Connection,
    plan: fts_query.QueryPlan,
    f: Filters,
    fp: str,
    limit: int,
) -> list[tuple[Any, ...]]:
    """Best first: the best k candidates, k grown until the answer is exact."""
    k = first_k(limit)
    while True:
        ranks, bound, rows = best(conn, plan, f, fp, k)
        top = rows[: limit + 1]
        # Exact when nothing outside the k candidates can rank before the last row kept: the
        # matches are exhausted, or the last kept row ranks strictly better than candidate k.
        if bound == float("inf") or (len(top) == limit + 1 and ranks[top[-1][0]] < bound):
            break
        k *= 8
    return [(r[1], r[2], r[3], r[4], r[5], ranks[r[0]], r[0]) for r in top]


def find_hits(
    conn: sqlite3.Connection,
    plan: fts_query.QueryPlan,
    filters: Filters,
    fp: str,
    limit: int,
    order: str = "relevance",
) -> tuple[list[Hit], bool]:
    """(hits, more exist) in upstream's orders: bm25 then time (``relevance``, ``upstream``)
    or newest first (``recent``), of the rows current under fingerprint ``fp``. Fetches
    limit+1 rows to know whether more exist; the caller caps the bytes (page.py)."""
    if plan.empty:
        return [], False
    # One read transaction: the several statements of a search see one snapshot, even while a
    # reconciler rewrites the rows (found by the concurrent search test).
    with snapshot(conn):
        if order == "recent":
            rows = _recent(conn, plan, filters, fp, limit)
        else:
            rows = _relevant(conn, plan, filters, fp, limit)
        hits = materialize(conn, plan, rows[:limit])
    return hits, len(rows) > limit


def snapshot(conn: sqlite3.Connection) -> AbstractContextManager[sqlite3.Connection]:
    """A read transaction, or the one the caller already holds (a batch of searches reads
    one snapshot: read/search.py's search_batch)."""
    return nullcontext(conn) if conn.in_transaction else transaction(conn, write=False)


Row = tuple[Any, ...]  # (session_key, session_id, message_id, role, ts, bm25, row_id)


def materialize(
    conn: sqlite3.Connection, plan: fts_query.QueryPlan, rows: Sequence[Row]
) -> list[Hit]:
    """The hits of ``rows``, in their order: texts and snippets read in one snapshot (the
    caller's, when it holds one)."""
    # Texts and snippets only for the rows shown: one message may be megabytes long. The rows
    # are current under the fingerprint the query asked for: their text was redacted under
    # these very rules when it was written, so no second pass.
    ids = [r[6] for r in rows]
    with snapshot(conn):
        got = dict(
            conn.execute(
                "SELECT row_id, text FROM index_rows"
                " WHERE row_id IN (SELECT value FROM json_each(?))",
                (json.dumps(ids),),
            ).fetchall()
        )
        texts = [got[i] for i in ids]
        snips = snippets(conn, plan, rows, texts)
    shown = zip(rows, texts, snips, strict=True)
    return [hit(r, text, snip, plan, None, SNIPPET_UNITS) for r, text, snip in shown]


def snippets(
    conn: sqlite3.Connection,
    plan: fts_query.QueryPlan,
    rows: Sequence[tuple[Any, ...]],
    texts: list[str],
) -> list[str | None]:
    """FTS5 snippets (snippets.py) of the rows shown; None where the CJK window serves."""
    expr = plan.highlight or plan.primary
    if expr is None:
        return [None] * len(rows)
    snips = Snippets(conn)
    try:
        return [snips.primary(expr, r[6], t) for r, t in zip(rows, texts, strict=True)]
    finally:
        snips.close()


def hit(
    row: tuple[Any, ...],
    text: str,
    snip: str | None,
    plan: fts_query.QueryPlan,
    redactor: Redactor | None,
    limit: int,
) -> Hit:
    """A hit of a row and its snippet; ``redactor``: the text is redacted again (a text of
    another host's rules: remote/), None: it is an index row's, current under these rules."""
    key, sid, mid, role, ts, rank, _rowid = tuple(row)
    if snip is None:
        snip = cjk_snippet(text, plan.cjk_terms)
    plain = snip.translate(_NO_MARKS)
    highlights: tuple[tuple[int, int], ...] = ()
    spans: tuple[tuple[int, int], ...] = ()
    if redactor is None:
        out, highlights = plain, _marked_spans(snip)
    else:
        red = redactor.redact(plain)
        out, spans = red.text, red.spans
        if not red.changed:
            highlights = _marked_spans(snip)
    cut = safe_cut(out, limit, spans)
    visible = len(cut) - (1 if len(cut) != len(out) else 0)
    highlights = tuple((a, min(b, visible)) for a, b in highlights if a < visible)
    score = -float(rank) if rank is not None else 0.0
    return Hit(key, sid, mid, role, int(ts), cut, score, highlights)


def _marked_spans(snip: str) -> tuple[tuple[int, int], ...]:
    spans, out_pos, start = [], 0, 0
    for ch in snip:
        if ch == _OPEN:
            start = out_pos
        elif ch == _CLOSE:
            spans.append((start, out_pos))
        else:
            out_pos += 1
    return tuple(spans)
