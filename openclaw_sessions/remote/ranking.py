"""Relevance centrally, as local search ranks: each row scored by FTS5's bm25 under its own
(host, agent) store's statistics (N and avgdl pushed, n_i counted over the pushed rows:
stats.py, query.score), then

- `upstream` and `--as`: bm25, then newest first, then key and message id: local's order
  across agents (read/search.py), the whole fleet's too;
- the operator's `relevance`: each store's best candidates by bm25 (as many as local takes:
  read/ranked.POOL, 6 × limit) pooled over the stores searched and re-ranked by
  policy/rank.order (a session is one host's: its key is told apart by its host).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from openclaw_sessions.policy import rank

from . import schema, stats
from .query import Phrase, dl_sql, match, score, scored

S = schema.SCHEMA
COLS = "r.host, r.agent, r.session_key, r.session_id, r.message_id, r.role, r.ts, r.text"
POOL = 64  # read/ranked.POOL


class Ranked(NamedTuple):
    rows: list[Any]  # COLS, then the score (higher is better)
    more: bool  # more matches than rows


def _counts(conn: Any, found: list[Phrase], hosts: list[str]) -> list[dict[tuple[str, str], int]]:
    """n_i of each scored phrase, per (host, agent): its rows among the pushed ones (local
    counts every row of its FTS table; what a push leaves out, incognito or stale, is not
    here, so a rare word's idf can be a little higher centrally)."""
    out = []
    for p in scored(found):
        m = match([p])
        where, params = m.sql, list(m.params)
        if hosts:
            where += " AND r.host = ANY(%s)"
            params.append(hosts)
        got = conn.execute(
            f"SELECT r.host, r.agent, count(*) FROM {S}.ocs_rows r WHERE {where}"
            " GROUP BY r.host, r.agent",
            params,
        ).fetchall()
        out.append({(str(h), str(a)): int(n) for h, a, n in got})
    return out


def _scored_sql(
    conn: Any, found: list[Phrase], hosts: list[str], body: str, args: list[Any]
) -> tuple[str, list[Any]] | None:
    """`SELECT COLS, score …` of every match (body: FROM … WHERE …), or None: no match."""
    counts = _counts(conn, found, hosts)
    if not any(counts):
        return None
    fts = "index_fts" if scored(found)[0].column == "words" else "index_bigram"
    wsql, wparams = stats.weights(conn, counts, fts)
    sc = score(found)
    doubled = ", ".join(
        f"replace(coalesce(r.{c}, ''), ' ', '  ') AS d_{c}"
        for c in sorted({p.column for p in scored(found)})
    )
    inner = f"SELECT {COLS}, r.transcript_id AS tid, {dl_sql(found)} AS dl, {doubled}{body}"
    sql = (
        f"SELECT {COLS}, {sc.sql} AS score, r.tid FROM ({inner}) r"
        f" JOIN ({wsql}) w ON w.host = r.host AND w.agent = r.agent"
    )
    return sql, [*sc.params, *args, *wparams]


ORDER = "score DESC, ts DESC, session_key, message_id, host"


def upstream(
    conn: Any, found: list[Phrase], hosts: list[str], body: str, args: list[Any], limit: int
) -> Ranked:
    """bm25 then time: the first limit (+1: whether more exist)."""
    got = _scored_sql(conn, found, hosts, body, args)
    if got is None:
        return Ranked([], False)
    sql, params = got
    rows = conn.execute(f"SELECT * FROM ({sql}) s ORDER BY {ORDER} LIMIT %s", [*params, limit + 1])
    out = rows.fetchall()
    return Ranked([r[:9] for r in out[:limit]], len(out) > limit)


def operator(
    conn: Any,
    found: list[Phrase],
    hosts: list[str],
    body: str,
    args: list[Any],
    limit: int,
    one_session: bool,
) -> Ranked:
    """The operator's order: each store's best k by bm25, re-ranked (policy/rank.py)."""
    got = _scored_sql(conn, found, hosts, body, args)
    if got is None:
        return Ranked([], False)
    sql, params = got
    k = max(POOL, 6 * limit)
    rows = conn.execute(
        f"SELECT s.*, coalesce(t.lines, 1) AS lines FROM (SELECT *, row_number() OVER"
        f" (PARTITION BY host, agent ORDER BY {ORDER}) AS nth FROM ({sql}) s0) s"
        f" LEFT JOIN {S}.ocs_transcripts t ON t.host = s.host AND t.agent = s.agent"
        " AND t.transcript_id = s.tid"
        " WHERE s.nth <= %s ORDER BY s.host, s.agent, s.nth",
        [*params, k + 1],
    ).fetchall()
    more = any(int(r[10]) > k for r in rows)
    rows = [r for r in rows if int(r[10]) <= k]
    several = len({str(r[0]) for r in rows}) > 1
    cands = [
        rank.Cand(
            f"{r[2]}\0{r[0]}" if several else str(r[2]),
            int(r[6]),
            float(r[8]),
            str(r[7])[: rank.HEAD_CHARS * 2],
            int(r[11]),
        )
        for r in rows
    ]
    cap = None if one_session else max(1, min(rank.PER_SESSION, limit // 3))
    order = rank.order(cands, per_session=cap)
    return Ranked([rows[o.pos][:9] for o in order[:limit]], more or len(order) > limit)
