"""`search --remote DSN`: local search's semantics over the central database. Every hit is a
row a local search on that host would find (the same terms, folding, CJK substrings, active
branch, filters and visibility), tagged with its host; --as searches as the caller on its own
host (--host H), with that host's pushed settings, and answers in the agent tool's shape."""

from __future__ import annotations

import json
import math
import sqlite3
from typing import Any, NamedTuple

from openclaw_sessions.errors import UsageError
from openclaw_sessions.model.when import parse_window
from openclaw_sessions.policy import fts_query, keys
from openclaw_sessions.policy.cut import safe_cut
from openclaw_sessions.policy.fts_query import AS_MAX_LIMIT
from openclaw_sessions.read import counting
from openclaw_sessions.read.models import Hit, SearchResult, SessionHits
from openclaw_sessions.read.search import SearchOptions, validate
from openclaw_sessions.read.snippets import CLOSE, OPEN, Snippets, cjk_snippet
from openclaw_sessions.redact import Redactor, build_redactor
from openclaw_sessions.store.migrations import PRIMARY_TOKENIZER

from . import central, schema
from . import dsn as dsns
from .query import Phrase, match, phrases, score

S = schema.SCHEMA
SNIPPET_UNITS = 300


def candidates(limit: int) -> int:
    """Matches scored in full for relevance order: the shortest this many."""
    return max(64, 8 * (limit + 1))


class RemoteHits(NamedTuple):
    result: SearchResult
    hosts: tuple[str, ...]  # each hit's host (hits mode), or each session's (--sessions)


def _validate(opts: SearchOptions, hosts: list[str]) -> None:
    """Local search's rules (`upstream` order is the database's relevance), then --remote's."""
    validate(opts)
    for name, bad in (
        ("--context", opts.context),
        ("--explain", opts.explain),
        ("--wait", opts.wait),
    ):
        if bad:
            raise UsageError(f"{name} reads the local store: it does not go with --remote")
    if opts.relax:  # the relaxed retry is local search's (read/ranked.py)
        raise UsageError("--relax does not go with --remote")
    if opts.as_key is not None and len(hosts) != 1:
        raise UsageError(
            "--as with --remote needs the caller's host: --host NAME (once)",
            hint="a session key names a session on one gateway",
        )


def search_remote(
    opts: SearchOptions, raw_dsn: str | None, hosts: list[str], agent_given: bool
) -> RemoteHits:
    dsn = dsns.resolve(raw_dsn)
    since_ms, until_ms = parse_window(opts.since, opts.until)
    _validate(opts, hosts)
    plan = fts_query.build(opts.query, prefix=opts.prefix)
    import psycopg

    conn = dsns.connect(dsn, autocommit=True)
    try:
        schema.check(conn, for_search=True)
        with conn.transaction():  # one snapshot for every statement
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            return _run(conn, opts, plan, hosts, agent_given, (since_ms, until_ms))
    except psycopg.Error as exc:
        raise dsns.translate(exc, dsn) from None
    finally:
        conn.close()


def _filters(
    conn: Any,
    opts: SearchOptions,
    hosts: list[str],
    agent_given: bool,
    window: tuple[int | None, int | None],
) -> tuple[list[str], list[Any]]:
    where: list[str] = []
    params: list[Any] = []
    if hosts:
        where.append("r.host = ANY(%s)")
        params.append(hosts)
    session: str | None = opts.session
    if opts.as_key is not None:
        hs = central.HostSessions(conn, hosts[0])
        policy = central.caller_policy(hs, opts.as_key, opts.agent, opts.visibility, opts.sandboxed)
        agents, found = central.visible_pairs(hs, policy)
        where.append("(r.agent, r.session_key) IN (SELECT * FROM unnest(%s::text[], %s::text[]))")
        params += [agents, found]
        if session:
            session = policy.resolve_target(session, "search")
    elif agent_given and not opts.all_agents:
        where.append("r.agent = %s")
        params.append(opts.agent.strip().lower())
    if session:
        text = session.strip()
        where.append(
            "(r.session_key = %s OR r.session_id = %s"
            " OR (strpos(%s, ':') = 0 AND r.session_key = 'agent:' || r.agent || ':' || %s))"
        )
        params += [text.lower(), text, text, text.lower()]
    else:  # each store's own namespace (read/search_sql.Filters.agent)
        where.append("(r.session_key NOT LIKE 'agent:%%' OR starts_with(r.session_key,"
                     " 'agent:' || r.agent || ':'))")  # fmt: skip
    if opts.role is not None:
        where.append("r.role = %s")
        params.append(opts.role)
    if window[0] is not None:
        where.append("r.ts >= %s")
        params.append(window[0])
    if window[1] is not None:
        where.append("r.ts < %s")
        params.append(window[1])
    return where, params


# A row counts only when its session is in the host's store (local search joins sessions).
FROM = (
    f" FROM {S}.ocs_rows r JOIN {S}.ocs_sessions ss ON ss.host = r.host AND ss.agent = r.agent"
    " AND ss.session_key = r.session_key"
)


def _run(
    conn: Any,
    opts: SearchOptions,
    plan: fts_query.QueryPlan,
    hosts: list[str],
    agent_given: bool,
    window: tuple[int | None, int | None],
) -> RemoteHits:
    where, params = _filters(conn, opts, hosts, agent_given, window)
    found = phrases(plan, opts.prefix)
    if found is None:
        empty = SearchResult((), match_count=0 if opts.counts and not opts.by_session else None,
                             sessions=() if opts.sessions or opts.by_session else None)  # fmt: skip
        return RemoteHits(empty, ())
    m = match(found)
    body = f"{FROM} WHERE {m.sql} AND {' AND '.join(where)}"
    args = [*m.params, *params]
    if opts.counts and not opts.by_session:
        n = conn.execute(f"SELECT count(*){body}", args).fetchone()[0]
        return RemoteHits(SearchResult((), match_count=int(n)), ())
    sc = score(found)
    if opts.sessions or opts.by_session:
        return _sessions(conn, opts, body, args)
    cols = "r.host, r.agent, r.session_key, r.session_id, r.message_id, r.role, r.ts, r.text"
    cap = max(counting.TOTAL_CAP, opts.limit + 1)
    common = False
    # the rows kept first (newest, or the shortest: bm25's order for words met once), then
    # scored: the score reads each row's words, so only those kept pay for it
    if opts.order == "recent":
        first, n, then = "r.ts DESC", opts.limit + 1, "r.ts DESC"
    else:
        first, n, then = "r.ntok, r.ts DESC", candidates(opts.limit), "score DESC, r.ts DESC"
        common = _common(conn, str(m.params[0]), n)
    if common:  # walk the rows shortest first (an index) rather than fetch every match
        conn.execute("SET LOCAL enable_seqscan = off")
        conn.execute("SET LOCAL enable_bitmapscan = off")
    rows = conn.execute(
        f"SELECT {cols}, {sc.sql} AS score FROM (SELECT {cols}, r.words, r.bigrams, r.ntok{body}"
        f" ORDER BY {first}, r.session_key, r.message_id LIMIT %s) r"
        f" ORDER BY {then}, r.session_key, r.message_id LIMIT %s",
        [*sc.params, *args, n, opts.limit + 1],
    ).fetchall()
    if common:
        conn.execute("SET LOCAL enable_seqscan = on")
        conn.execute("SET LOCAL enable_bitmapscan = on")
    truncated = len(rows) > opts.limit
    rows = rows[: opts.limit]
    total, exact = len(rows), True
    if truncated and opts.as_key is None:  # the agent's view prints no total (as locally)
        total = _count(conn, body, args, cap)
        exact = total < cap
    hits = _hits(conn, rows, plan)
    cut_by = "as-limit" if opts.as_key is not None and opts.limit >= AS_MAX_LIMIT else "limit"
    cap_bytes = 32768 if opts.as_key is not None else opts.max_bytes or None
    shown_hosts = [str(r[0]) for r in rows]
    if cap_bytes is not None:
        from openclaw_sessions.read.search_sql import cap_bytes as cap_fn

        kept, cut = cap_fn(hits, cap_bytes)
        if cut:
            hits, truncated = kept, True
            cut_by = "as-bytes" if opts.as_key is not None else "max-bytes"
        shown_hosts = shown_hosts[: len(hits)]
    result = SearchResult(
        tuple(hits), False, truncated, None, 0, total=total, total_exact=exact,
        cut_by=cut_by if truncated else None,
    )  # fmt: skip
    return RemoteHits(result, tuple(shown_hosts))


def _common(conn: Any, tsquery: str, k: int) -> bool:
    """Are the words so common that walking the rows shortest first (about k·N/M rows for M
    matches of N) beats fetching every match (M)? Past 2·sqrt(k·N) matches (short rows hold
    fewer words), as the planner estimates them (its statistics know the common words)."""
    got = conn.execute(
        "SELECT reltuples FROM pg_class WHERE oid = %s::regclass", (f"{S}.ocs_rows",)
    ).fetchone()
    rows = max(float(got[0]) if got else 0.0, 0.0)
    plan = conn.execute(
        f"EXPLAIN (FORMAT JSON) SELECT 1 FROM {S}.ocs_rows r WHERE r.tsv @@ %s::tsquery",
        (tsquery,),
    ).fetchone()[0]
    doc = json.loads(plan) if isinstance(plan, str) else plan
    return float(doc[0]["Plan"]["Plan Rows"]) >= max(1000.0, 2 * math.sqrt(k * rows))


def _count(conn: Any, body: str, args: list[Any], cap: int) -> int:
    """The matches, counted up to ``cap`` (read/counting.py's total rule)."""
    sql = f"SELECT count(*) FROM (SELECT 1{body} LIMIT %s) c"
    return int(conn.execute(sql, [*args, cap]).fetchone()[0])


def _sessions(conn: Any, opts: SearchOptions, body: str, args: list[Any]) -> RemoteHits:
    """Each session with a match: newest first, or (relevance) by its shortest match."""
    order = "last DESC" if opts.order == "recent" else "best, last DESC"
    rows = conn.execute(
        "SELECT r.host, r.agent, r.session_key, count(*), min(r.ntok) AS best,"
        f" max(r.ts) AS last{body} GROUP BY r.host, r.agent, r.session_key"
        f" ORDER BY {order}, r.host, r.session_key",
        args,
    ).fetchall()
    sessions = tuple(SessionHits(str(k), str(a), int(n)) for _h, a, k, n, _b, _l in rows)
    total = sum(s.matches for s in sessions)
    result = SearchResult((), match_count=total if opts.counts else None, sessions=sessions)
    return RemoteHits(result, tuple(str(r[0]) for r in rows))


_REDACTORS: dict[tuple[str, ...], Redactor] = {}


def _redactor(conn: Any, host: str) -> Redactor:
    got = conn.execute(f"SELECT config FROM {S}.ocs_hosts WHERE host = %s", (host,)).fetchone()
    patterns = tuple((got[0] or {}).get("redactPatterns") or ()) if got else ()
    if patterns not in _REDACTORS:
        _REDACTORS[patterns] = build_redactor(patterns)
    return _REDACTORS[patterns]


def _hits(conn: Any, rows: list[Any], plan: fts_query.QueryPlan) -> list[Hit]:
    """The hits shown, with local search's snippets: FTS5's own, from a scratch table that
    holds their texts (read/snippets.py), redacted again with their host's rules."""
    scratch = sqlite3.connect(":memory:")
    scratch.execute(
        f"CREATE VIRTUAL TABLE index_fts USING fts5(text, tokenize='{PRIMARY_TOKENIZER}')"
    )
    scratch.executemany(
        "INSERT INTO index_fts(rowid, text) VALUES (?, ?)",
        [(i + 1, r[7]) for i, r in enumerate(rows)],
    )
    snips = Snippets(scratch)
    out = []
    try:
        for i, r in enumerate(rows):
            host, agent, key, sid, mid, role, ts, text, sc = r
            snip = snips.primary(plan.primary, i + 1, text) if plan.primary is not None else None
            if snip is None:
                snip = cjk_snippet(text, plan.cjk_terms)
            out.append(_hit(str(key), str(sid), str(mid), str(role), int(ts), snip, float(sc),
                            _redactor(conn, str(host)), str(agent)))  # fmt: skip
    finally:
        snips.close()
        scratch.close()
    return out


def _hit(
    key: str, sid: str, mid: str, role: str, ts: int, snip: str, score: float,
    redactor: Redactor, agent: str,
) -> Hit:  # fmt: skip
    """As read/search_sql._hit: redact, cut to 300 UTF-16 units, the match offsets."""
    plain = snip.replace(OPEN, "").replace(CLOSE, "")
    red = redactor.redact(plain)
    highlights: tuple[tuple[int, int], ...] = ()
    if not red.changed:
        spans, pos, start = [], 0, 0
        for ch in snip:
            if ch == OPEN:
                start = pos
            elif ch == CLOSE:
                spans.append((start, pos))
            else:
                pos += 1
        highlights = tuple(spans)
    cut = safe_cut(red.text, SNIPPET_UNITS, red.spans)
    shown = len(cut) - (1 if len(cut) != len(red.text) else 0)
    highlights = tuple((a, min(b, shown)) for a, b in highlights if a < shown)
    return Hit(key, sid, mid, role, ts, cut, round(score, 6), highlights, agent_id=agent)


def operator_json(hits: RemoteHits) -> dict[str, Any]:
    """The operator's JSON: local search's, each hit (or session) with its host."""
    doc = hits.result.to_json()
    for name in ("results", "sessions"):
        if name in doc:
            doc[name] = [{"host": h, **item} for h, item in zip(hits.hosts, doc[name], strict=True)]
    return doc


def with_hosts(hits: RemoteHits) -> SearchResult:
    """For the human output: each session key shown as host/key."""
    r = hits.result
    if r.sessions is not None:
        sessions = tuple(s._replace(session_key=f"{h}/{s.session_key}")
                         for h, s in zip(hits.hosts, r.sessions, strict=True))  # fmt: skip
        return r._replace(sessions=sessions)
    shown = tuple(x._replace(session_key=f"{h}/{x.session_key}")
                  for h, x in zip(hits.hosts, r.hits, strict=True))  # fmt: skip
    return r._replace(hits=shown)


__all__ = ["Phrase", "RemoteHits", "keys", "operator_json", "search_remote", "with_hosts"]
