"""`search --remote DSN`: local search's semantics over the central database. Every hit is a
row a local search on that host would find (the same terms, folding, CJK substrings, active
branch, filters and visibility), tagged with its host; --as searches as the caller on its own
host (--host H), with that host's pushed settings, and answers in the agent tool's shape."""

from __future__ import annotations

import sqlite3
from typing import Any, NamedTuple

from openclaw_sessions.errors import UsageError
from openclaw_sessions.model.when import parse_window
from openclaw_sessions.policy import fts_query, kinds
from openclaw_sessions.read.models import Hit, SearchResult, SessionHits
from openclaw_sessions.read.scope import caller_policy, in_caller_list
from openclaw_sessions.read.search import SearchOptions, counting, fts, page, validate
from openclaw_sessions.redact import build_redactor
from openclaw_sessions.store.migrations import PRIMARY_TOKENIZER

from . import central, ranking, schema
from . import dsn as dsns
from .query import Where, branches, match

S = schema.SCHEMA


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
        ("--semantic", opts.semantic),  # the vectors live in the local store only
    ):
        if bad:
            raise UsageError(f"{name} reads the local store: it does not go with --remote")
    if opts.relax:  # the relaxed retry is local search's (read/search/ranked.py)
        raise UsageError("--relax does not go with --remote")
    if opts.as_key is not None and len(hosts) != 1:
        raise UsageError(
            "--as with --remote needs the caller's host: --host NAME (once)",
            hint="a session key names a session on one gateway",
        )


def search_remote(
    opts: SearchOptions,
    raw_dsn: str | None,
    hosts: list[str],
    agent_given: bool,
    *,
    trusted_network: bool = False,
) -> RemoteHits:
    dsn = dsns.resolve(raw_dsn, trusted_network=trusted_network)
    since_ms, until_ms = parse_window(opts.since, opts.until)
    _validate(opts, hosts)
    plan = fts_query.build(opts.query, prefix=opts.prefix)
    import psycopg

    conn = dsns.connect(dsn, autocommit=True)
    try:
        schema.check(conn, for_search=True)
        with conn.transaction():  # one snapshot for every statement
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            # a common word's matches are sorted per store in memory, not on disk
            conn.execute("SET LOCAL work_mem = '64MB'")
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
    own = ""
    if hosts:
        where.append("r.host = ANY(%s)")
        params.append(hosts)
    session: str | None = opts.session
    if opts.as_key is not None:
        hs = central.HostSessions(conn, hosts[0])
        policy = caller_policy(opts.agent, hs.config, hs.index, opts)
        # every session of the host the caller may see, as read/scope.register decides a row
        # (cron runs too when one is named: scope.in_caller_list)
        seen = [
            (a, r.key)
            for a, r in hs.stored
            if policy.owns_unscoped(r)
            and policy.visible(r)
            and (bool(session) or in_caller_list(policy, r.key))
        ]
        where.append("(r.agent, r.session_key) IN (SELECT * FROM unnest(%s::text[], %s::text[]))")
        params += [[a for a, _k in seen], [k for _a, k in seen]]
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
    else:  # each store's own namespace (read/fts.Filters.agent), on the session (the
        # planner cannot estimate it: on the rows, it took 88k matches for 200)
        own = (" AND (ss.session_key NOT LIKE 'agent:%%'"
               " OR starts_with(ss.session_key, 'agent:' || ss.agent || ':'))")  # fmt: skip
    if opts.role is not None:
        where.append("r.role = %s")
        params.append(opts.role)
    clauses, kparams = _key_filter(opts)
    where += clauses
    params += kparams
    if window[0] is not None:
        where.append("r.ts >= %s")
        params.append(window[0])
    if window[1] is not None:
        where.append("r.ts < %s")
        params.append(window[1])
    # a row counts only when its session is in the host's store (local search joins
    # sessions): a semi-join, so that the plan starts from the matches (the GIN index),
    # never from every session (issue 39: a nested loop over 21k sessions for 300 matches)
    where.append(
        f"EXISTS (SELECT 1 FROM {S}.ocs_sessions ss WHERE ss.host = r.host"
        f" AND ss.agent = r.agent AND ss.session_key = r.session_key{own})"
    )
    return where, params


def _key_filter(opts: SearchOptions) -> tuple[list[str], list[Any]]:
    """--kind, --not-kind and --key on the rows' session keys, as local search tests them
    (policy/kinds.py), SQLite's GLOB patterns read as PostgreSQL regular expressions."""
    keys = kinds.key_filter(opts.kind, opts.not_kind, opts.key)
    where: list[str] = []
    params: list[Any] = []
    for group in (keys.kinds, keys.globs):  # one of each group
        if group:
            where.append("r.session_key ~ ANY(%s)")
            params.append([kinds.glob_regex(g) for g in group])
    if keys.skipped:  # and none of these
        where.append("NOT r.session_key ~ ANY(%s)")
        params.append([kinds.glob_regex(g) for g in keys.skipped])
    return where, params


def _run(
    conn: Any,
    opts: SearchOptions,
    plan: fts_query.QueryPlan,
    hosts: list[str],
    agent_given: bool,
    window: tuple[int | None, int | None],
) -> RemoteHits:
    where, params = _filters(conn, opts, hosts, agent_given, window)
    bs = branches(plan, opts.prefix)
    if bs is None:
        empty = SearchResult((), match_count=0 if opts.counts and not opts.by_session else None,
                             sessions=() if opts.sessions or opts.by_session else None)  # fmt: skip
        return RemoteHits(empty, ())
    m = match(bs)
    filt = Where(" AND ".join(where), params)
    body = f" FROM {m.sql} WHERE {filt.sql}"
    args = [*m.params, *params]
    if opts.counts and not opts.by_session:
        n = conn.execute(f"SELECT count(*){body}", args).fetchone()[0]
        return RemoteHits(SearchResult((), match_count=int(n)), ())
    if opts.sessions or opts.by_session:
        return _sessions(conn, opts, body, args)
    if opts.order == "recent":
        ranked = ranking.recent(conn, body, args, opts.limit)
    elif opts.order == "relevance" and opts.as_key is None:
        one = opts.session is not None
        ranked = ranking.operator(conn, bs, hosts, filt, opts.limit, one)
    else:
        ranked = ranking.upstream(conn, bs, hosts, filt, opts.limit)
    rows, truncated = ranked.rows, ranked.more
    total, exact = len(rows), True
    cap = max(counting.TOTAL_CAP, opts.limit + 1)
    if truncated and opts.as_key is None:  # the agent's view prints no total (as locally)
        if ranked.total is not None:  # every match was scored, and counted
            total, exact = min(ranked.total, cap), ranked.total < cap
        else:
            sql = f"SELECT count(*) FROM (SELECT 1{body} LIMIT %s) c"  # counting.py's rule
            total = int(conn.execute(sql, [*args, cap]).fetchone()[0])
            exact = total < cap
    hits, truncated, cut_by = page.capped(
        _hits(conn, rows, plan),
        truncated,
        caller=opts.as_key is not None,
        limit=opts.limit,
        max_bytes=opts.max_bytes,
    )
    result = SearchResult(
        tuple(hits), False, truncated, None, 0, total=total, total_exact=exact, cut_by=cut_by
    )
    shown_hosts = [str(r[0]) for r in rows[: len(hits)]]
    return RemoteHits(result, tuple(shown_hosts))


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


def _hits(conn: Any, rows: list[Any], plan: fts_query.QueryPlan) -> list[Hit]:
    """The hits shown, made as local search makes them (read/fts.hit): FTS5's own
    snippets from a scratch table that holds their texts, redacted with their host's rules."""
    texts = [str(r[7]) for r in rows]
    # as local index rows (read/fts.Row): the score negated back into a bm25 rank
    keyed = [(*r[2:7], -float(r[8]), i) for i, r in enumerate(rows, 1)]
    scratch = sqlite3.connect(":memory:")
    try:
        scratch.execute(
            f"CREATE VIRTUAL TABLE index_fts USING fts5(text, tokenize='{PRIMARY_TOKENIZER}')"
        )
        scratch.executemany("INSERT INTO index_fts(rowid, text) VALUES (?, ?)", enumerate(texts, 1))
        snips = fts.snippets(scratch, plan, keyed, texts)
    finally:
        scratch.close()
    # a host's rows were redacted under its own rules before they left it (its patterns never
    # do: push.config_snapshot); each snippet is redacted again here under the default rules
    red = build_redactor(())
    return [
        fts.hit(k, text, snip, plan, red, fts.SNIPPET_UNITS)._replace(agent_id=str(r[1]))
        for r, k, text, snip in zip(rows, keyed, texts, snips, strict=True)
    ]


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
    field = "hits" if r.sessions is None else "sessions"
    items = zip(hits.hosts, getattr(r, field), strict=True)
    shown: dict[str, Any] = {
        field: tuple(x._replace(session_key=f"{h}/{x.session_key}") for h, x in items)
    }
    return r._replace(**shown)
