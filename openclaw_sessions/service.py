"""The core API the CLI calls once per command: config, redaction, visibility, per-agent stores.

Returns values, raises OpenClawError; never prints, never exits.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from . import config, db, paths, query, search, visibility, workers
from .errors import NotFoundError, StoreError, UsageError
from .models import Hit, SearchResult

if TYPE_CHECKING:
    from .reports import ReindexReport
from .redact import Redactor, build_redactor

AS_MAX_LIMIT = 25


class Context(NamedTuple):
    root: Path
    agent: str
    all_agents: bool = False

    @property
    def config(self) -> config.Config:
        return config.load_config(self.root)

    def redactor(self) -> Redactor:
        return build_redactor(self.config.redact_patterns)

    def agents(self) -> list[str]:
        if self.all_agents:
            found = paths.agents_with_db(self.root)
            if not found:
                raise StoreError(
                    f"no agent databases under {self.root / 'agents'}",
                    hint="run `openclaw-sessions import` first",
                )
            return found
        return [paths.check_agent_id(self.agent)]


@contextmanager
def open_store(root: Path, agent: str, *, create: bool = False) -> Iterator[sqlite3.Connection]:
    path = paths.db_path(root, agent)
    conn = db.connect(path, create=create)
    try:
        yield conn
    except sqlite3.Error as exc:
        raise db.translate(exc, path) from None
    finally:
        conn.close()


def session_refs(conn: sqlite3.Connection, agent: str) -> list[visibility.SessionRef]:
    rows = conn.execute(
        "SELECT session_key, session_id, spawned_by, parent_session_key, owner_session_key"
        " FROM sessions"
    ).fetchall()
    refs = [visibility.SessionRef(r[0], visibility.agent_of(r[0]) or agent, *r[1:]) for r in rows]
    # Older generations' ids also name their key.
    for key, sid in conn.execute(
        "SELECT DISTINCT t.session_key, t.session_id FROM transcripts t JOIN sessions s"
        " ON s.session_key = t.session_key WHERE t.session_id != coalesce(s.session_id, '')"
    ):
        refs.append(visibility.SessionRef(key, visibility.agent_of(key) or agent, sid))
    return refs


class SearchOptions(NamedTuple):
    query: str
    limit: int = 10
    session: str | None = None
    role: str | None = None
    since_ms: int | None = None
    until_ms: int | None = None
    order: str = "relevance"
    prefix: bool = False
    as_key: str | None = None
    visibility: str | None = None
    sandboxed: bool = False
    wait: bool = False
    max_bytes: int | None = search.MAX_RESULT_BYTES
    explain: bool = False


def all_session_refs(ctx: Context) -> list[visibility.SessionRef]:
    """Every agent store's session refs: the snapshot visibility decides over."""
    refs: list[visibility.SessionRef] = []
    for agent in paths.agents_with_db(ctx.root) or [ctx.agent]:
        with open_store(ctx.root, agent) as conn:
            refs += session_refs(conn, agent)
    return refs


def caller_policy(
    ctx: Context, cfg: config.Config, *, as_key: str, visibility_mode: str | None, sandboxed: bool
) -> visibility.Policy:
    """The visibility policy of ``--as KEY`` (shared by search and history)."""
    refs = all_session_refs(ctx)
    key = visibility.resolve_caller_key(as_key, ctx.agent, refs, main_key=cfg.main_key)
    caller_agent = visibility.agent_of(key) or ctx.agent
    caller = visibility.Caller(
        key=key,
        agent_id=caller_agent,
        visibility=visibility_mode or cfg.visibility or visibility.DEFAULT_VISIBILITY,
        sandboxed=sandboxed,
        sandbox_visibility=cfg.sandbox_visibility_for(caller_agent),
        agent_to_agent_enabled=cfg.agent_to_agent_enabled,
        agent_to_agent_allow=cfg.agent_to_agent_allow,
        main_key=cfg.main_key,
    )
    return visibility.Policy(caller, refs)


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
    """Which agents a search reads and which keys it may return in each."""

    agents: list[str]
    policy: visibility.Policy | None
    session_key: str | None


def _scope(ctx: Context, opts: SearchOptions, cfg: config.Config) -> Scope:
    if opts.as_key is None:
        agents = ctx.agents()
        return Scope(agents, None, opts.session)
    policy = caller_policy(
        ctx, cfg, as_key=opts.as_key, visibility_mode=opts.visibility, sandboxed=opts.sandboxed
    )
    target = policy.resolve_target(opts.session, "search") if opts.session else None
    agents = sorted({visibility.agent_of(k) or ctx.agent for k in policy.visible_keys()})
    agents = [a for a in agents if paths.db_path(ctx.root, a).exists()]
    return Scope(agents, policy, target)


def run_search(ctx: Context, opts: SearchOptions) -> SearchResult:
    _validate(opts)
    plan = query.build(opts.query, prefix=opts.prefix)
    cfg = ctx.config
    redactor = build_redactor(cfg.redact_patterns)
    scope = _scope(ctx, opts, cfg)
    if opts.wait:
        for agent in scope.agents:
            reindex_agent(ctx.root, agent, redactor)
    hits: list[Hit] = []
    truncated = indexing = False
    limit = opts.limit
    explained: dict[str, Any] = {}
    for agent in scope.agents:
        with open_store(ctx.root, agent) as conn:
            keys = _visible_in(conn, agent, scope)
            hidden = _incognito_keys(conn)
            filters = search.Filters(
                keys, hidden, scope.session_key, opts.role, opts.since_ms, opts.until_ms
            )
            found, more = search.run(
                conn, plan, filters, redactor, limit=limit, order=opts.order, max_bytes=None
            )
            hits += found
            truncated = truncated or more
            indexing = _stale_kick(conn, ctx.root, agent, redactor) or indexing
            if opts.explain:
                from .explain import explain

                explained[agent] = explain(
                    conn,
                    plan,
                    keys=keys,
                    operator=scope.policy is None,
                    fingerprint=redactor.fingerprint,
                    matched=bool(found),
                )
    hits.sort(key=_order_key(opts.order))
    if len(hits) > limit:
        hits, truncated = hits[:limit], True
    cap = search.MAX_RESULT_BYTES if opts.as_key is not None else opts.max_bytes
    if cap is not None:
        hits, cut = search.cap_bytes(hits, cap)
        truncated = truncated or cut
    return SearchResult(
        tuple(hits), indexing, truncated, {"agents": explained} if opts.explain else None
    )


def _order_key(order: str) -> Callable[[Hit], tuple[Any, ...]]:
    if order == "recent":
        return lambda h: (-h.timestamp, h.session_key, h.message_id)
    return lambda h: (-h.score, -h.timestamp, h.session_key, h.message_id)


def _visible_in(conn: sqlite3.Connection, agent: str, scope: Scope) -> list[str] | None:
    if scope.policy is None:
        return None
    return scope.policy.visible_keys(session_refs(conn, agent))


def _incognito_keys(conn: sqlite3.Connection) -> list[str]:
    rows = conn.execute("SELECT session_key FROM sessions WHERE session_key GLOB '*:incognito-*'")
    return [r[0] for r in rows if visibility.is_incognito(r[0])]


def _stale_kick(conn: sqlite3.Connection, root: Path, agent: str, redactor: Redactor) -> bool:
    """True when results may be incomplete; starts the background reconciler if needed."""
    from .stale import stale_ids

    agent_dir = paths.agent_dir(root, agent)
    if stale_ids(conn, redactor.fingerprint):
        if not workers.background_busy(agent_dir):
            workers.spawn(root, agent)
        return True
    return workers.is_running(agent_dir)


def reindex_agent(
    root: Path,
    agent: str,
    redactor: Redactor,
    *,
    full: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> ReindexReport:
    """Reconcile one agent in this process (holding the agent's 'reconciling' lock)."""
    from .reconcile import reconcile

    with open_store(root, agent) as conn, workers.reconciling(paths.agent_dir(root, agent)):
        return reconcile(conn, agent, redactor, full=full, progress=progress)


def resolve_delete_target(
    conn: sqlite3.Connection, target: str, agent: str
) -> tuple[str, list[int]]:
    """A key, a bare rest of a key, or a session id → (key, transcript ids)."""
    t = target.strip()
    candidates = [t.lower(), f"agent:{agent}:{t.lower()}"]
    for key in candidates:
        rows = conn.execute(
            "SELECT transcript_id FROM transcripts WHERE session_key = ?", (key,)
        ).fetchall()
        exists = conn.execute("SELECT 1 FROM sessions WHERE session_key = ?", (key,)).fetchone()
        if rows or exists:
            return key, [r[0] for r in rows]
    rows = conn.execute(
        "SELECT transcript_id, session_key FROM transcripts WHERE session_id = ?", (t,)
    ).fetchall()
    if rows:
        return rows[0][1], [r[0] for r in rows if r[1] == rows[0][1]]
    raise NotFoundError(f"Session not found: {t}", hint="see `openclaw-sessions status` or search")


def delete_session(
    ctx: Context, target: str, *, generation_only: bool = False
) -> dict[str, object]:
    """Delete a session (or one generation, by session id) and its index rows atomically."""
    agent = paths.check_agent_id(ctx.agent)
    with open_store(ctx.root, agent) as conn:
        with db.transaction(conn):
            key, tids = resolve_delete_target(conn, target, agent)
            n_rows = sum(
                conn.execute(
                    "SELECT count(*) FROM index_rows WHERE transcript_id = ?", (t,)
                ).fetchone()[0]
                for t in tids
            )
            n_events = sum(
                conn.execute(
                    "SELECT count(*) FROM events WHERE transcript_id = ?", (t,)
                ).fetchone()[0]
                for t in tids
            )
            for tid in tids:
                conn.execute("DELETE FROM index_rows WHERE transcript_id = ?", (tid,))
                conn.execute("DELETE FROM transcripts WHERE transcript_id = ?", (tid,))
            conn.execute("DELETE FROM sessions WHERE session_key = ?", (key,))
    return {"sessionKey": key, "transcripts": len(tids), "events": n_events, "indexRows": n_rows}


def preview_delete(ctx: Context, target: str) -> str:
    with open_store(ctx.root, paths.check_agent_id(ctx.agent)) as conn:
        return resolve_delete_target(conn, target, ctx.agent)[0]
