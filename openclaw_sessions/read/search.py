"""The `search` command's core: validate, scope by visibility, query each agent's store, start
the background reconciler when something is stale, merge, cap.

Returns values, raises OpenClawError; never prints, never exits.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from openclaw_sessions import config
from openclaw_sessions.errors import UsageError
from openclaw_sessions.index import locks
from openclaw_sessions.policy import fts_query, keys, visibility
from openclaw_sessions.policy.redact import Redactor, build_redactor
from openclaw_sessions.policy.when import parse_when
from openclaw_sessions.store import paths
from openclaw_sessions.store.context import Context
from openclaw_sessions.store.db import open_store
from openclaw_sessions.store.sessions import StoreIndex, session_ref

from . import search_sql
from .models import Hit, SearchResult
from .scope import caller_policy, register, stores_in_scope, visible_sql

AS_MAX_LIMIT = 25


class SearchOptions(NamedTuple):
    """`search`'s options, named as the CLI's parameters (cli/app.py builds it, and so does the
    fast path)."""

    query: str
    state_dir: Path | None = None
    agent: str = paths.DEFAULT_AGENT
    all_agents: bool = False
    limit: int = 10
    session: str | None = None  # a key or a session id
    role: str | None = None
    since: str | None = None  # an ISO date/time or a span (when.parse_when)
    until: str | None = None
    order: str = "relevance"
    prefix: bool = False
    as_key: str | None = None
    visibility: str | None = None
    sandboxed: bool = False
    wait: bool = False
    max_bytes: int = search_sql.MAX_RESULT_BYTES  # 0: no cap (with --as: always the default)
    explain: bool = False


def _validate(opts: SearchOptions) -> None:
    if opts.limit < 1 or (opts.as_key is not None and opts.limit > AS_MAX_LIMIT):
        raise UsageError(
            "limit must be a positive integer",
            hint=f"with --as the limit is at most {AS_MAX_LIMIT}",
        )
    if opts.role not in (None, "user", "assistant"):
        raise UsageError("role must be user or assistant")
    if opts.order not in ("relevance", "recent"):
        raise UsageError("order must be relevance or recent")
    if opts.visibility not in (None, *visibility.VISIBILITIES):
        raise UsageError(f"visibility must be one of {', '.join(visibility.VISIBILITIES)}")


class Scope(NamedTuple):
    """Which agents a search reads, and whose visibility it checks on each row."""

    agents: list[str]
    policy: visibility.Policy | None  # None: the operator
    session_key: str | None


def _scope(ctx: Context, opts: SearchOptions, cfg: config.Config) -> Scope:
    if opts.as_key is None:
        agents = ctx.agents()
        return Scope(agents, None, opts.session)
    with StoreIndex(ctx.root, ctx.agent) as index:
        policy = caller_policy(
            ctx,
            cfg,
            index,
            as_key=opts.as_key,
            visibility_mode=opts.visibility,
            sandboxed=opts.sandboxed,
        )
        target = policy.resolve_target(opts.session, "search") if opts.session else None
        agents = stores_in_scope(index, policy)
    return Scope(agents, policy, target)


def search(opts: SearchOptions) -> SearchResult:
    ctx = Context.at(opts.state_dir, opts.agent, opts.all_agents)
    since_ms = parse_when(opts.since, option="--since") if opts.since is not None else None
    until_ms = parse_when(opts.until, option="--until") if opts.until is not None else None
    _validate(opts)
    plan = fts_query.build(opts.query, prefix=opts.prefix)
    cfg = ctx.config
    redactor = build_redactor(cfg.redact_patterns)
    scope = _scope(ctx, opts, cfg)
    if opts.wait:
        from openclaw_sessions.index.reindex import reindex_agent  # the reconciler: only here

        for agent in scope.agents:
            reindex_agent(ctx.root, agent, redactor)
    hits: list[Hit] = []
    truncated = indexing = False
    unindexed = 0
    limit = opts.limit
    explained: dict[str, Any] = {}
    for agent in scope.agents:
        with open_store(ctx.root, agent) as conn:
            register(conn, agent, scope.policy)
            visible = visible_sql(scope.policy)
            filters = search_sql.Filters(visible, scope.session_key, opts.role, since_ms, until_ms)
            found, more = search_sql.find_hits(
                conn, plan, filters, redactor, limit=limit, order=opts.order, max_bytes=None
            )
            hits += found
            truncated = truncated or more
            indexing = _stale_kick(conn, ctx.root, agent, redactor) or indexing
            unindexed += _unindexed(conn, agent, redactor.fingerprint, scope)
            if opts.explain:
                from .explain import explain

                explained[agent] = explain(
                    conn,
                    plan,
                    visible=visible,
                    operator=scope.policy is None,
                    redactor=redactor,
                    matched=bool(found),
                )
    hits.sort(key=_order_key(opts.order))
    if len(hits) > limit:
        hits, truncated = hits[:limit], True
    cap = search_sql.MAX_RESULT_BYTES if opts.as_key is not None else opts.max_bytes or None
    if cap is not None:
        hits, cut = search_sql.cap_bytes(hits, cap)
        truncated = truncated or cut
    return SearchResult(
        tuple(hits),
        indexing,
        truncated,
        {"agents": explained} if opts.explain else None,
        unindexed,
    )


def _order_key(order: str) -> Callable[[Hit], tuple[Any, ...]]:
    if order == "recent":
        return lambda h: (-h.timestamp, h.session_key, h.message_id)
    return lambda h: (-h.score, -h.timestamp, h.session_key, h.message_id)


def _unindexed(conn: sqlite3.Connection, agent: str, fp: str, scope: Scope) -> int:
    """Sessions in the search's scope whose indexing failed (a poison transcript): they are
    not pending, so they do not make the answer `indexing`; the caller is told instead."""
    from openclaw_sessions.index.stale import current_failures

    only = scope.session_key
    policy = scope.policy or visibility.Policy(visibility.Caller(None, agent), ())
    found = set()
    for f in current_failures(conn, fp):
        if only is not None and only.lower() != f.session_key and only != f.session_id:
            continue
        row = conn.execute(
            "SELECT session_key, session_id, spawned_by, parent_session_key, owner_session_key"
            " FROM sessions WHERE session_key = ?",
            (f.session_key,),
        ).fetchone()
        ref = (
            session_ref(row, agent)
            if row
            else keys.SessionRef(f.session_key, keys.agent_of(f.session_key) or agent)
        )
        if policy.owns_unscoped(ref) and policy.visible(ref):
            found.add(f.session_key)
    return len(found)


def _stale_kick(conn: sqlite3.Connection, root: Path, agent: str, redactor: Redactor) -> bool:
    """True when results may be incomplete; starts the background reconciler if needed."""
    from openclaw_sessions.index.stale import any_stale

    agent_dir = paths.agent_dir(root, agent)
    if any_stale(conn, redactor.fingerprint):
        if not locks.background_busy(agent_dir):
            locks.spawn(root, agent)
        return True
    return locks.is_running(agent_dir)
