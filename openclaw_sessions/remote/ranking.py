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
"""

from __future__ import annotations

from typing import Any, NamedTuple

from openclaw_sessions.policy import rank

from . import schema, stats
from .query import Branch, Where, holding, match, parts, score

S = schema.SCHEMA
COLS = "r.host, r.agent, r.session_key, r.session_id, r.message_id, r.role, r.ts, r.text"
POOL = 64  # read/ranked.POOL


class Ranked(NamedTuple):
    rows: list[Any]  # COLS, then the score (higher is better)
    more: bool  # more matches than rows
    total: int | None = None  # every match, when the ranking counted them (scored them all)


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


def _scored(b: Branch, w: stats.Weights, src: Where, filt: Where, extra: str = "") -> Where:
    """`SELECT NARROW, score, tid, bound` of the matches ``src`` holds that ``filt`` keeps
    (``extra``: more columns), each scored under its store's weights. No text and no
    words leave the scan: only the rows kept read their text (texts())."""
    sc = score(b)
    doubled = ", ".join(
        f"replace(coalesce(r.{c}, ''), ' ', '  ') AS d_{c}"
        for c in sorted({p.column for p in b.scored})
    )
    sql = (
        f"SELECT {NARROW}, {sc.sql} AS score, r.transcript_id AS tid, {BOUND_R} AS bound{extra}"
        f" FROM {src.sql} JOIN ({w.sql}) w ON w.host = r.host AND w.agent = r.agent"
        f" CROSS JOIN LATERAL (SELECT {doubled}) d WHERE {filt.sql}"
    )
    return Where(sql, [*sc.params, *src.params, *w.params, *filt.params])


NARROW = COLS.replace("r.text", "r.seq")  # a row's text is read once it is kept (texts())


BOUND_R = schema.BOUND.replace("tfmax", "r.tfmax").replace("ntok", "r.ntok")
WALK = 2000  # a store with more matches than this, and
WALK_PART = 0.2  # more than this part of its rows matching, is walked best bound first
WALK_FIRST = 512  # rows fetched by the first step of a walk (then 8 times more each)
# off: the bound (any word's count) is loose, and a step's plan reads every match of the store
# through its sessions and sorts them (184 ms a store at 622k rows; later steps took 40-85 s
# on a loaded machine): no cheaper than scoring every match (issue 39)
WALK_STEPS = 0


def _key(r: Any) -> tuple[Any, ...]:
    """Local's order (read/search/fts.best): bm25, newest, key, message id; then host."""
    return (-float(r[8]), -int(r[6]), str(r[2]), str(r[4]), str(r[0]))


def _walkable(b: Branch) -> bool:
    """tfmax bounds every phrase's tf (no prefix: it sums several words' counts), and the
    row length is the primary one."""
    return all(p.column == "words" and p.needle.endswith(" ") for p in b.scored)


def best(
    conn: Any, bs: list[Branch], hosts: list[str], filt: Where, k: int
) -> tuple[list[Any], bool, int | None]:
    """Each store's best k matches by bm25 (NARROW, score, tid, bound), whether a store has
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
    """One branch's best k + 1 matches of each store, and its matches (counted as they are
    scored: the answer's total needs no second scan; None: a store was walked). A store
    whose matches are few, or a small part of its rows, scores them all; another walks its
    rows by the bound of their bm25 (ocs_rows_by_bound), best first, until no row left can
    beat its k-th (walking an index whose rows mostly do not match costs more than scoring
    every match)."""
    counts = _counts(conn, b, hosts)
    if not any(counts):
        return [], 0
    w = stats.weights(conn, counts, b.fts)
    walk = []
    if _walkable(b):
        rows_of = stats.rows(conn, b.fts)
        for st in w.stores:
            n = min(c.get(st, 0) for c in counts)
            if n > WALK and n > WALK_PART * rows_of.get(st, n):
                walk.append(st)
    out: list[Any] = []
    total: int | None = None if walk else 0
    rest = [st for st in w.stores if st not in walk]
    for st in walk:
        got = _walk(conn, b, w, st, filt, k)
        if got is None:  # the bound did not settle it in a few steps: score every match
            rest.append(st)
            continue
        out += got
    if rest:
        only = Where(
            f"{filt.sql} AND (r.host, r.agent) IN (SELECT * FROM unnest(%s::text[], %s::text[]))",
            [*filt.params, [h for h, _a in rest], [a for _h, a in rest]],
        )
        sc = _scored(b, w, match([b]), only)
        got = conn.execute(
            f"SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY host, agent ORDER BY"
            f" {ORDER}) AS nth, count(*) OVER (PARTITION BY host, agent) AS matches"
            f" FROM ({sc.sql}) s0) s WHERE s.nth <= %s",
            [*sc.params, k + 1],
        ).fetchall()
        out += got
        if total is not None:
            total += sum(int(r[-1]) for r in got if int(r[-2]) == 1)
    return out, total


def _walk(
    conn: Any, b: Branch, w: stats.Weights, store: tuple[str, str], filt: Where, k: int
) -> list[Any] | None:
    """One store's best k: its matches fetched by descending bound, n at a time (n grows
    WALK_STEPS times), until the k-th best scored beats what any row past the last fetched
    could score; None when it did not (then every match is scored: never slower than that
    by more than the steps)."""
    avgdl, idfs = w.stores[store]
    # a row's tf / (0.25 + 0.75 dl / avgdl) is at most its bound × max(1, avgdl / REF)
    scale = max(1.0, avgdl / schema.BOUND_AVGDL)
    indexed, unindexed = parts(b.found)
    n = max(2 * (k + 1), WALK_FIRST)
    for _step in range(WALK_STEPS):
        # the store's matches by descending bound (ocs_rows_by_bound: the filters inside, so
        # that LIMIT counts only rows that count), and every row without a tsvector (few)
        mine = f"SELECT r.*, %s AS walked FROM {S}.ocs_rows r WHERE r.host = %s AND r.agent = %s"
        src = Where(
            f"(({mine} AND {indexed.sql} AND {filt.sql} ORDER BY {BOUND_R} DESC LIMIT %s)"
            f" UNION ALL ({mine} AND {unindexed.sql} AND {filt.sql})) r",
            [True, *store, *indexed.params, *filt.params, n,
             False, *store, *unindexed.params, *filt.params],
        )  # fmt: skip
        sc = _scored(b, w, src, Where("true", []), extra=", r.walked")
        rows: list[Any] = conn.execute(sc.sql, sc.params).fetchall()
        rows.sort(key=_key)
        walked = [r for r in rows if r[11]]
        if len(walked) < n:  # every match was fetched
            return rows[: k + 1]
        u = min(float(r[10]) for r in walked) * scale
        ceiling = sum(idfs) * (2.2 / (1.0 + 1.2 / u)) if u > 0 else 0.0
        if len(rows) > k and float(rows[k][8]) > ceiling:  # the k+1-th too: `more` is exact
            return rows[: k + 1]
        n *= 8
    return None


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
