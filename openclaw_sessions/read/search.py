"""The `search` command's core: validate, scope by visibility, query each agent's store, start
the background reconciler when something is stale, merge, cap.

Returns values, raises OpenClawError; never prints, never exits.
"""

from __future__ import annotations

import contextlib
import functools
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from openclaw_sessions.errors import StoreError, UsageError
from openclaw_sessions.model.when import parse_window
from openclaw_sessions.policy import fts_query, keys, kinds, visibility
from openclaw_sessions.policy.fts_query import AS_MAX_LIMIT
from openclaw_sessions.redact import Redactor
from openclaw_sessions.store import paths, upstream_archived
from openclaw_sessions.store.db import open_store, transaction
from openclaw_sessions.store.sessions import SessionLookup
from openclaw_sessions.store.state import StateScope

from . import archived, caps, counting, exchange, freshness, ranked, search_sql, semantic
from .models import Hit, HitContext, SearchResult
from .scope import (
    caller_policy,
    listed_sessions,
    operator_policy,
    register,
    stores_in_scope,
    visible_sql,
)

ORDERS = ("relevance", "recent", "upstream")


class SearchOptions(NamedTuple):
    """`search`'s options; each field declares the CLI parameter of its name (type, default)."""

    query: str
    state_dir: Path | None = None
    agent: str = paths.DEFAULT_AGENT
    all_agents: bool = False
    limit: int = 10
    session: str | None = None  # a key or a session id
    role: str | None = None
    since: str | None = None  # an ISO date/time or a span (when.parse_window)
    until: str | None = None
    order: str = "relevance"
    prefix: bool = False
    as_key: str | None = None
    visibility: str | None = None
    sandboxed: bool = False
    wait: bool = False
    # 0: no cap. The 32 KiB cap is the agent tool's: --as always has it, the operator on request.
    max_bytes: int = 0
    explain: bool = False
    counts: bool = False  # --count: the number of matching messages instead of hits
    by_session: bool = False  # with --count: per session
    sessions: bool = False  # the sessions with a match instead of hits (like `rg -l`)
    context: int = 0  # -C N: N active-branch messages before and after each hit
    literal: bool = False  # every word literal, as upstream (always so with --as)
    relax: bool = False  # nothing matches every word: show what matches most of them
    semantic: bool = False  # the nearest in meaning, whatever the words match ([semantic] extra)
    kind: list[str] | None = None  # --kind: only these kinds of session (policy/kinds.py)
    not_kind: list[str] | None = None  # --not-kind: not these
    key: list[str] | None = None  # --key GLOB: only keys matching one of these


def validate(opts: SearchOptions) -> None:
    """The options' own rules, wherever the search runs (here, or --remote's database)."""
    if opts.limit < 1 or (opts.as_key is not None and opts.limit > AS_MAX_LIMIT):
        raise UsageError(
            "limit must be a positive integer",
            hint=f"with --as the limit is at most {AS_MAX_LIMIT}",
        )
    if opts.by_session and not opts.counts:
        raise UsageError("--by-session counts per session: use it with --count")
    if opts.counts and opts.sessions:
        raise UsageError(
            "--count and --sessions cannot be used together",
            hint="--count --by-session gives each session's count",
        )
    if opts.context < 0:
        raise UsageError("-C/--context must be 0 or more")
    if (opts.counts or opts.sessions) and (opts.context or opts.explain):
        what = "-C/--context" if opts.context else "--explain"
        raise UsageError(f"{what} shows hits: it does not go with --count or --sessions")
    if opts.role not in (None, "user", "assistant"):
        raise UsageError("role must be user or assistant")
    if opts.order not in ORDERS:
        raise UsageError("order must be relevance, recent or upstream")
    if opts.relax and opts.as_key is not None:
        raise UsageError("--relax is an operator option", hint="--as keeps upstream's query")
    if opts.semantic and (opts.as_key is not None or opts.counts or opts.sessions):
        what = "--as keeps upstream's answer" if opts.as_key else "it shows hits"
        raise UsageError("--semantic is an operator search for hits", hint=what)
    kinds.operator_only(opts.as_key, opts.kind, opts.not_kind, opts.key)
    if opts.visibility not in (None, *visibility.VISIBILITIES):
        raise UsageError(f"visibility must be one of {', '.join(visibility.VISIBILITIES)}")


class Scope(NamedTuple):
    """Which agents a search reads, and whose visibility it checks on each row."""

    agents: list[str]
    policy: visibility.Policy | None  # None: the operator
    session_key: str | None
    exclude: tuple[str, ...] = ()


def _scope(ctx: StateScope, opts: SearchOptions) -> Scope:
    if opts.as_key is None:
        agents = ctx.agents()
        if opts.session is None:
            return Scope(agents, None, None)
        with SessionLookup(ctx.root, ctx.agent) as index:
            policy = operator_policy(ctx, ctx.config, index)
            session = policy.expand_id(opts.session)  # a unique prefix of a session id
            key = policy.resolve_target(session, "search")
            target = _operator_target(policy, index, session, key)
        named = keys.agent_of(key)  # a full key names its agent: search it there, as history does
        if named is not None and named not in agents:
            agents = sorted({*agents, named})
        return Scope(agents, None, target)
    with SessionLookup(ctx.root, ctx.agent) as index:
        policy = caller_policy(ctx.agent, ctx.config, index, opts)
        agents = stores_in_scope(index, policy)
        if not opts.session:
            return Scope(agents, policy, None)
        session = policy.expand_id(opts.session)  # among the sessions it may see
        return Scope(agents, policy, policy.resolve_target(session, "search"))


def _operator_target(policy: visibility.Policy, index: SessionLookup, raw: str, key: str) -> str:
    """The --session filter of an operator search: an unknown session is an error (exit 2),
    as everywhere; a session id stays an id, so the filter keeps to that generation (as
    stored: ids resolve in any case, the filter compares them exactly)."""
    text = raw.strip()
    if ":" in text or text.lower() == key or keys.scoped(text, policy.agent) == key:
        return key  # a key, a bare rest of one, or an alias (main, current)
    if text.lower() in ("main", "current"):
        return key
    stored = sorted({r.session_id or "" for r in index.with_session_id(text) if r.key == key})
    return text if text in stored or not stored else stored[0]


def search(opts: SearchOptions, *, exclude: tuple[str, ...] = ()) -> SearchResult:
    """``exclude``: sessions (keys or ids) left out before the limit (the MCP extension)."""
    ctx = StateScope.at(opts.state_dir, opts.agent, opts.all_agents)
    since_ms, until_ms = parse_window(opts.since, opts.until)
    validate(opts)
    literal = opts.literal or opts.as_key is not None
    plan = ranked.build_plan(opts.query, prefix=opts.prefix, literal=literal)
    redactor = ctx.redactor()
    scope = _scope(ctx, opts)._replace(exclude=exclude)
    if opts.wait:
        from openclaw_sessions.index.reindex import reindex_agent  # the reconciler: only here

        for agent in scope.agents:
            reindex_agent(ctx.root, agent, redactor)
    run = functools.partial(
        _run, ctx, opts, scope, redactor=redactor, since_ms=since_ms, until_ms=until_ms
    )
    result = run(plan)
    if opts.as_key is not None or opts.counts or opts.sessions:
        return result
    if opts.semantic:  # by meaning, whatever the words match (read/semantic.py)
        return semantic.fill(ctx.root, opts, scope, redactor, (since_ms, until_ms), result)
    relaxed = ranked.relaxed_plan(plan, literal=literal, asked=opts.relax)
    absent = functools.partial(ranked.absence, ctx.root, scope.agents, plan, redactor)
    why = functools.partial(absent, deep=opts.explain, relax_possible=relaxed is not None)
    ex = exchange.answer(plan, result, opts.role, opts.order, run)
    if ex is not None:  # no one message holds every word: one exchange does
        return ex._replace(absence=why(ex, relaxed=False))
    if opts.relax and not result.hits and relaxed is not None:
        loose = run(relaxed, relaxed=True)
        if loose.hits:
            return loose._replace(absence=why(result, relaxed=True))
    # the page; an empty one: the nearest in meaning (the [semantic] extra), or what would help
    page = result._replace(absence=why(result, relaxed=False))
    return semantic.fill(ctx.root, opts, scope, redactor, (since_ms, until_ms), page)


def search_batch(
    opts: SearchOptions, queries: tuple[str, ...], *, exclude: tuple[str, ...] = ()
) -> list[SearchResult]:
    """One search per query, as ``search`` runs it, with the caller resolved once and each
    store opened once, every query reading it in one read transaction (one snapshot, and
    the cost of one search's set-up instead of one per query). The caller's view (--as)."""
    ctx = StateScope.at(opts.state_dir, opts.agent, opts.all_agents)
    since_ms, until_ms = parse_window(opts.since, opts.until)
    validate(opts)
    redactor = ctx.redactor()
    scope = _scope(ctx, opts)._replace(exclude=exclude)
    literal = opts.literal or opts.as_key is not None
    plans = [ranked.build_plan(q, prefix=opts.prefix, literal=literal) for q in queries]
    with contextlib.ExitStack() as stack:
        conns = {}
        for agent in scope.agents:
            conns[agent] = stack.enter_context(open_store(ctx.root, agent))
            stack.enter_context(transaction(conns[agent], write=False))
        return [
            _run(
                ctx, opts._replace(query=q), scope, plan, redactor, since_ms, until_ms, conns=conns
            )
            for q, plan in zip(queries, plans, strict=True)
        ]


def _store(
    root: Path, agent: str, conns: dict[str, sqlite3.Connection] | None
) -> contextlib.AbstractContextManager[sqlite3.Connection]:
    """The agent's store: the batch's open one, else opened for this search."""
    if conns is not None:
        return contextlib.nullcontext(conns[agent])
    return open_store(root, agent)


def _run(
    ctx: StateScope,
    opts: SearchOptions,
    scope: Scope,
    plan: fts_query.QueryPlan,
    redactor: Redactor,
    since_ms: int | None,
    until_ms: int | None,
    relaxed: bool = False,
    conns: dict[str, sqlite3.Connection] | None = None,
    exchange_of: list[str] | None = None,  # exchange.parts: the hits are exchanges, not messages
) -> SearchResult:
    hits: list[Hit] = []
    truncated = indexing = False
    unindexed = excluded = 0
    states: dict[str, dict[str, str]] = {}  # the operator's labels (read/archived.py)
    limit = opts.limit
    explained: dict[str, Any] = {}
    tally = counting.Tally()
    fp = redactor.fingerprint
    # The operator's relevance order re-ranks every agent's best candidates (read/ranked.py).
    pool = ranked.Pool() if opts.as_key is None and opts.order == "relevance" else None
    # the operator's search of several agents goes on past a broken store, as rg does past an
    # unreadable file, and says so; an agent's answer (--as) or one store fails whole
    skipped: list[tuple[str, str]] | None = None
    if opts.as_key is None and len(scope.agents) > 1:
        skipped = []
    for agent in scope.agents:
        with _skipping(agent, skipped), _store(ctx.root, agent, conns) as conn:
            # An agent's search names a session, or leaves cron runs out (scope.register).
            register(conn, agent, scope.policy, cron_runs=scope.session_key is not None)
            visible = visible_sql(scope.policy)
            filters = search_sql.Filters(
                visible,
                scope.session_key,
                opts.role,
                since_ms,
                until_ms,
                agent=agent,
                sessions=listed_sessions(conn, agent, scope.policy),
                keys=kinds.key_filter(opts.kind, opts.not_kind, opts.key),
                exclude=scope.exclude,
            )
            if scope.policy is not None:  # the agent's view: upstream's rule on archives
                excluded += archived.excluded(conn, filters)
                filters = filters._replace(visible=archived.caller_visible(visible))
            else:
                states[agent] = upstream_archived.by_session_id(conn)
            found: list[Hit] = []
            more = matched = False
            if opts.counts or opts.sessions:
                per_session = opts.sessions or opts.by_session
                tally.add(conn, agent, plan, filters, fp, per_session=per_session)
                if per_session and pool is not None:  # the sessions in the relevance order
                    rows, info, _ = ranked.candidates(conn, plan, filters, fp, ranked.POOL)
                    pool.add(agent, rows, info)
            elif pool is not None and exchange_of is not None:
                got = exchange.find(conn, exchange_of, filters, fp, max(ranked.POOL, 6 * limit))
                matched = pool.add_exchanges(agent, got)
                tally.add_total(conn, plan, filters, fp, len(got), False)
            elif pool is not None:
                k = max(ranked.POOL, 6 * limit)
                rows, info, more = ranked.candidates(conn, plan, filters, fp, k)
                pool.add(agent, rows, info)
                tally.add_total(conn, plan, filters, fp, len(rows), more)
                matched = bool(rows)
            else:
                found, more = search_sql.find_hits(
                    conn, plan, filters, redactor, limit=limit, order=opts.order
                )
                found = [h._replace(agent_id=agent) for h in found]
                if opts.as_key is None:  # `total` is the operator's: the agent's view has none
                    tally.add_total(conn, plan, filters, fp, len(found), more)
            hits += found
            truncated = truncated or more
            indexing = freshness.stale_kick(
                conn, ctx.root, agent, redactor, scope.policy, scope.session_key
            ) or indexing
            unindexed += freshness.unindexed(conn, agent, fp, scope.policy, scope.session_key)
            if opts.explain:
                from .explain import explain

                explained[agent] = explain(
                    conn,
                    plan,
                    visible=visible,
                    operator=scope.policy is None,
                    redactor=redactor,
                    matched=bool(found) or matched,
                    sessions=filters.sessions,
                )
    explained_or_none = {"agents": explained} if opts.explain else None
    broken = tuple(skipped or ())
    if opts.counts or opts.sessions:
        return SearchResult(
            (),
            indexing,
            False,
            explained_or_none,
            unindexed,
            match_count=tally.total if opts.counts else None,
            skipped=broken,
            sessions=(
                tally.sessions(opts.order, pool.session_order() if pool is not None else None)
                if opts.by_session or opts.sessions
                else None
            ),
        )
    if pool is not None:
        one = scope.session_key is not None
        hits, more = pool.top(ctx.root, plan, redactor, limit, one, relaxed)
        truncated = truncated or more
    elif opts.order == "recent":
        hits.sort(key=lambda h: (-h.timestamp, h.session_key, h.message_id))
    else:
        hits.sort(key=lambda h: (-h.score, -h.timestamp, h.session_key, h.message_id))
    if len(hits) > limit:
        hits, truncated = hits[:limit], True
    if opts.context:
        hits = _with_context(ctx.root, hits, opts.context, redactor, opts.as_key is not None)
    hits, truncated, cut_by = caps.capped(
        hits, truncated, caller=opts.as_key is not None, limit=opts.limit, max_bytes=opts.max_bytes
    )
    return SearchResult(
        tuple(archived.labelled(hits, states)),
        indexing,
        truncated,
        explained_or_none,
        unindexed,
        total=tally.total,
        total_exact=tally.exact,
        cut_by=cut_by,
        skipped=broken,
        archived_excluded=excluded,
    )


@contextlib.contextmanager
def _skipping(agent: str, skipped: list[tuple[str, str]] | None) -> Iterator[None]:
    """A store that cannot be read is noted in ``skipped`` and left out (None: it fails)."""
    try:
        yield
    except StoreError as exc:
        if skipped is None:
            raise
        skipped.append((agent, exc.message))


def _with_context(
    root: Path, hits: list[Hit], n: int, redactor: Redactor, as_caller: bool
) -> list[Hit]:
    """Each hit with the ``n`` active-branch messages before and after it (-C N); for a
    caller (``--as``) shaped by the display projection, as its `history` shows them."""
    from .history import context_of

    out = {}
    for agent in sorted({h.agent_id or "" for h in hits}):
        with open_store(root, agent) as conn:
            for h in hits:
                if h.agent_id == agent:
                    ctx = context_of(
                        conn, h.session_key, h.session_id, h.message_id, n, redactor, as_caller
                    )
                    out[h] = h._replace(context=HitContext(*ctx))
    return [out[h] for h in hits]
