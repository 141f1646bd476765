"""Relevance centrally, as local search ranks: each row scored by the FTS5 bm25 of its branch's
index (query.branches: the word index's, or the bigram index's for a word written against CJK
text) under its own (host, agent) store's statistics (N, avgdl and each word's n pushed from
the local index; a phrase's or a prefix's n counted over the pushed rows: stats.py,
query.score), then

- `upstream` and `--as`: bm25, then newest first, then key and message id: local's order
  across agents (read/search/), the whole fleet's too;
- the operator's `relevance`: each store's best candidates by bm25 (as many as local takes:
  read/ranked.POOL, 6 × limit) pooled over the stores searched and re-ranked by
  policy/rank.order (a session is one host's: its key is told apart by its host).

A store's best rows for one word come from the postings (postings.py), anything else from
scoring every match; `recent` reads the newest rows first (recent()).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from openclaw_sessions.policy import rank

from . import postings, schema, stats
from .query import Branch, Where, holding, match, score

S = schema.SCHEMA
COLS = "r.host, r.agent, r.session_key, r.session_id, r.message_id, r.role, r.ts, r.text"
POOL = 64  # read/ranked.POOL


class Ranked(NamedTuple):
    rows: list[Any]  # COLS, then the score (higher is better)
    more: bool  # more matches than rows
    total: int | None = None  # every match, when the ranking counted them (None: search.py
    # counts them with local's cap)


def _counts(conn: Any, b: Branch, hosts: list[str]) -> list[dict[tuple[str, str], int]]:
    """n_i of each scored phrase, per (host, agent): a whole word's as local FTS5 counts it
    (pushed: ocs_terms); a phrase's or prefix's, its rows among the pushed ones (local counts
    every row of its FTS table; what a push leaves out, incognito or stale, is not here, so
    such an idf can be a little higher centrally)."""
    out = []
    for p in b.scored:
        word = p.needle.strip()
        if p.needle.endswith(" ") and " " not in word:  # one whole word: local's own n
            pushed = stats.docs(conn, b.fts, word, hosts)
            if pushed is not None:
                out.append(pushed)
                continue
        m = holding([p])
        got = conn.execute(
            f"SELECT r.host, r.agent, count(*) FROM {m.sql}"
            " WHERE %s::text[] IS NULL OR r.host = ANY(%s) GROUP BY r.host, r.agent",
            [*m.params, hosts or None, hosts],
        ).fetchall()
        out.append({(str(h), str(a)): int(n) for h, a, n in got})
    return out


def _scored(b: Branch, w: stats.Weights, src: Where, filt: Where) -> Where:
    """`SELECT NARROW, score, tid` of the matches ``src`` holds that ``filt`` keeps, each
    scored under its store's weights. No text and no words leave the scan: only the rows
    kept read their text (texts())."""
    sc = score(b)
    doubled = ", ".join(
        f"replace(coalesce(r.{c}, ''), ' ', '  ') AS d_{c}"
        for c in sorted({p.column for p in b.scored})
    )
    sql = (
        f"SELECT {NARROW}, {sc.sql} AS score, r.transcript_id AS tid"
        f" FROM {src.sql} JOIN ({w.sql}) w ON w.host = r.host AND w.agent = r.agent"
        f" CROSS JOIN LATERAL (SELECT {doubled}) d WHERE {filt.sql}"
    )
    return Where(sql, [*sc.params, *src.params, *w.params, *filt.params])


NARROW = postings.NARROW  # a row's text is read once it is kept (texts())


def _key(r: Any) -> tuple[Any, ...]:
    """Local's order (read/search/fts.best): bm25, newest, key, message id; then host."""
    return (-float(r[8]), -int(r[6]), str(r[2]), str(r[4]), str(r[0]))


def best(
    conn: Any, bs: list[Branch], hosts: list[str], filt: Where, k: int
) -> tuple[list[Any], bool, int | None]:
    """Each store's best k matches by bm25 (NARROW, score, tid), whether a store has
    more, and how many match (None: not counted): each branch's best k (its rows scored by
    its index's bm25), merged (the branches are disjoint), as local search merges them
    (read/search_sql.best)."""
    by: dict[tuple[str, str], list[Any]] = {}
    total: int | None = 0
    for b in bs:
        rows, n = _best(conn, b, hosts, filt, k)
        total = None if total is None or n is None else total + n
        for r in rows:
            by.setdefault((str(r[0]), str(r[1])), []).append(r)
    out: list[Any] = []
    more = False
    for got in by.values():
        got.sort(key=_key)
        more = more or len(got) > k
        out += got[:k]
    return out, more, total


def _best(
    conn: Any, b: Branch, hosts: list[str], filt: Where, k: int
) -> tuple[list[Any], int | None]:
    """One branch's best k + 1 matches of each store, and its matches (None: not counted).
    Words of their own are read from the postings (postings.best: one word, a few short
    index ranges per store however common; several, their postings joined; the matches not
    counted) unless one of several is rare; anything else (phrases, a prefix, CJK) scores
    every match the GIN index finds, counting them as it goes (no second scan)."""
    counts = _counts(conn, b, hosts)
    if not any(counts):
        return [], 0
    w = stats.weights(conn, counts, b.fts)
    words = postings.terms(b)
    # several words of which one is rare: its few rows, found by the GIN index and scored,
    # cost less than joining the others' postings in every store
    few = min(sum(c.values()) for c in counts) <= RARE * len(w.stores)
    rare = words is not None and len(words) > 1 and few
    if words is not None and not rare:
        return postings.best(conn, b, w, filt, k + 1), None
    sc = _scored(b, w, match([b]), filt)
    got = conn.execute(
        f"SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY host, agent ORDER BY"
        f" {ORDER}) AS nth, count(*) OVER (PARTITION BY host, agent) AS matches"
        f" FROM ({sc.sql}) s0) s WHERE s.nth <= %s",
        [*sc.params, k + 1],
    ).fetchall()
    return got, sum(int(r[-1]) for r in got if int(r[-2]) == 1)


def texts(conn: Any, rows: list[Any]) -> list[Any]:
    """The rows kept, their text in place of their seq (COLS, score, tid)."""
    got = {
        (str(h), str(a), int(t), int(q)): str(x)
        for h, a, t, q, x in conn.execute(
            f"SELECT host, agent, transcript_id, seq, text FROM {S}.ocs_rows WHERE"
            " (host, agent, transcript_id, seq) IN (SELECT * FROM unnest(%s::text[], %s::text[],"
            " %s::bigint[], %s::int[]))",
            (
                [r[0] for r in rows],
                [r[1] for r in rows],
                [int(r[9]) for r in rows],
                [int(r[7]) for r in rows],
            ),
        )
    }
    return [(*r[:7], got[(str(r[0]), str(r[1]), int(r[9]), int(r[7]))], *r[8:10]) for r in rows]


def _lines(conn: Any, rows: list[Any]) -> list[int]:
    """Each row's transcript's stored lines (policy/rank.py's session size)."""
    got = {
        (str(h), str(a), int(t)): int(n or 1)
        for h, a, t, n in conn.execute(
            f"SELECT host, agent, transcript_id, lines FROM {S}.ocs_transcripts WHERE"
            " (host, agent, transcript_id) IN (SELECT * FROM unnest(%s::text[], %s::text[],"
            " %s::bigint[]))",
            ([r[0] for r in rows], [r[1] for r in rows], [int(r[9]) for r in rows]),
        )
    }
    return [got.get((str(r[0]), str(r[1]), int(r[9])), 1) for r in rows]


def _exchanges(conn: Any, rows: list[Any]) -> list[str]:
    """Each row's exchange, as local search names it (read/search/ranked.EXCHANGE_OF): the
    transcript and seq of the last user message at or before it ("": none)."""
    got = {
        (str(h), str(a), int(t), int(q)): "" if u is None else f"{t}:{u}"
        for h, a, t, q, u in conn.execute(
            "SELECT k.host, k.agent, k.tid, k.seq, (SELECT max(u.seq) FROM"
            f" {S}.ocs_rows u WHERE u.host = k.host AND u.agent = k.agent AND"
            " u.transcript_id = k.tid AND u.role = 'user' AND u.seq <= k.seq) FROM"
            " unnest(%s::text[], %s::text[], %s::bigint[], %s::int[]) AS k(host, agent, tid, seq)",
            (
                [r[0] for r in rows],
                [r[1] for r in rows],
                [int(r[9]) for r in rows],
                [int(r[7]) for r in rows],
            ),
        )
    }
    return [got[(str(r[0]), str(r[1]), int(r[9]), int(r[7]))] for r in rows]


ORDER = "score DESC, ts DESC, session_key, message_id, host"
# rows holding a word, per store searched, below which it is rare (~35 µs to score a row
# found by the GIN index; ~5 ms a store to join postings)
RARE = 200
RECENT_FIRST = 64  # the newest rows first looked at, per hit asked
RECENT_STEPS = 2  # windows tried (the second 16 times the first) before every match is sorted


def recent(conn: Any, body: str, args: list[Any], limit: int) -> Ranked:
    """Newest first (then key, message id, host): the matches among the newest central rows
    (a window on ocs_rows_by_ts, whatever their host), widened until it holds more than
    ``limit`` of them, then every match. Exact: a row left out is older than every row of
    the window. (Sorting every match of a common word read a third of the table.)"""
    sql = f"SELECT {COLS}, 0.0{body}{{}} ORDER BY r.ts DESC, r.session_key, r.message_id, r.host"
    n = (limit + 1) * RECENT_FIRST
    for _step in range(RECENT_STEPS):
        cut = conn.execute(
            f"SELECT ts FROM {S}.ocs_rows ORDER BY ts DESC OFFSET %s LIMIT 1", [n]
        ).fetchone()
        if cut is None:  # fewer rows than the window: every match is few
            break
        got = conn.execute(sql.format(" AND r.ts >= %s") + " LIMIT %s",
                           [*args, cut[0], limit + 1]).fetchall()  # fmt: skip
        if len(got) > limit:
            return Ranked(got[:limit], True)
        n *= 16
    got = conn.execute(sql.format("") + " LIMIT %s", [*args, limit + 1]).fetchall()
    return Ranked(got[:limit], len(got) > limit)


def upstream(conn: Any, bs: list[Branch], hosts: list[str], filt: Where, limit: int) -> Ranked:
    """bm25 then time: the first limit (+1: whether more exist)."""
    rows, _more, total = best(conn, bs, hosts, filt, limit + 1)
    rows.sort(key=_key)
    return Ranked([r[:9] for r in texts(conn, rows[:limit])], len(rows) > limit, total)


def operator(
    conn: Any,
    bs: list[Branch],
    hosts: list[str],
    filt: Where,
    limit: int,
    one_session: bool,
) -> Ranked:
    """The operator's order: each store's best k by bm25, re-ranked (policy/rank.py)."""
    k = max(POOL, 6 * limit)
    rows, more, total = best(conn, bs, hosts, filt, k)
    exchanges = _exchanges(conn, rows)
    rows = texts(conn, rows)
    several = len({str(r[0]) for r in rows}) > 1
    cands = [
        rank.Cand(
            f"{r[2]}\0{r[0]}" if several else str(r[2]),
            int(r[6]),
            float(r[8]),
            str(r[7])[: rank.HEAD_CHARS * 2],
            size,
            str(r[5]),
            ex,
        )
        for r, size, ex in zip(rows, _lines(conn, rows), exchanges, strict=True)
    ]
    cap = None if one_session else max(1, min(rank.PER_SESSION, limit // 3))
    order = rank.order(cands, per_session=cap)
    more = more or len(order) > limit
    return Ranked([rows[o.pos][:9] for o in order[:limit]], more, total)
