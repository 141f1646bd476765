"""One search call: the caller resolved once (its policy, the stores it reads), the config and
its redaction rules loaded once, and one connection per agent store, opened the first time the
call reads that store and shared by every pass (the first one, --relax's and the exchange's
retries, the page's texts and snippets, -C, and why an answer is empty) until the call ends.

Returns values, raises OpenClawError; never prints, never exits.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from openclaw_sessions.errors import StoreError
from openclaw_sessions.model.when import parse_window
from openclaw_sessions.policy import fts_query, keys, kinds, query_lang, visibility
from openclaw_sessions.read.models import Hit, HitContext, SearchResult
from openclaw_sessions.read.scope import (
    caller_policy,
    listed_sessions,
    operator_policy,
    register,
    stores_in_scope,
    visible_sql,
)
from openclaw_sessions.read.tokens import tokens
from openclaw_sessions.redact import fingerprint
from openclaw_sessions.secretrefs import secret_values
from openclaw_sessions.store.db import open_store, transaction
from openclaw_sessions.store.paths import StateScope
from openclaw_sessions.store.sessions import SessionLookup

from . import archived, counting, fts, page, ranked
from .options import SearchOptions, validate

if TYPE_CHECKING:
    from openclaw_sessions.redact import Redactor


class Scope(NamedTuple):
    """Which agents a search reads, and whose visibility it checks on each row."""

    agents: list[str]
    policy: visibility.Policy | None  # None: the operator
    session_key: str | None
    exclude: tuple[str, ...] = ()


class Seen(NamedTuple):
    """What one agent's pass leaves for the explanation (why.explain), asked after the pass."""

    visible: str
    sessions: tuple[str, ...] | None
    matched: bool


class Call(contextlib.ExitStack):
    """One search: its options, plan, caller and stores. ``batch``: every store is read in one
    read transaction (one snapshot for several queries)."""

    def __init__(
        self,
        opts: SearchOptions,
        exclude: tuple[str, ...] = (),
        queries: tuple[str, ...] | None = None,
        *,
        why_empty: bool = False,
    ) -> None:
        """``queries``: a batch's, each read in one read transaction of every store (one
        snapshot); None: ``opts.query``. ``why_empty``: explain an answer without hits (the
        agent tool's reasons)."""
        super().__init__()
        self.ctx = StateScope.at(opts.state_dir, opts.agent, opts.all_agents)
        self.since_ms, self.until_ms = parse_window(opts.since, opts.until)
        validate(opts)
        self.opts, self.why_empty, self.batch = opts, why_empty, queries is not None
        self.literal = opts.literal or opts.as_key is not None
        # the errors come in the order they always have: the query's, the config's, the scope's
        self.plans = [] if self.batch else [self.plan(opts.query)]
        self.config = self.ctx.config
        self._rules = (self.config.redact_patterns, secret_values(self.config, self.ctx.root))
        self._redactor: Redactor | None = None
        if any(self._rules):  # a bad pattern is an error now, as always
            self.fingerprint = self.redactor.fingerprint
        else:  # the default rules: current rows need only their fingerprint (no build)
            self.fingerprint = fingerprint.defaults()
        self._conns: dict[str, sqlite3.Connection] = {}
        self._registered: set[str] = set()
        try:
            self.scope = self._scope()._replace(exclude=exclude)
            self.plans += [self.plan(q) for q in queries or ()]
        except BaseException:
            self.close()  # the stores the scope opened: no `with` holds them yet
            raise

    def plan(self, query: str) -> fts_query.QueryPlan:
        """Upstream's literal terms (--literal or --as), else the query language."""
        if self.literal:
            return fts_query.build(query, prefix=self.opts.prefix, tokenize=tokens)
        return query_lang.build(query, prefix=self.opts.prefix, tokenize=tokens)

    @property
    def redactor(self) -> Redactor:
        """The config's rules, built when a pass needs them (a row's text off the index: -C,
        --explain, --wait): a page of current index rows was redacted when it was written."""
        if self._redactor is None:
            from openclaw_sessions.redact.engine import build_redactor  # the rules: ~10 ms

            self._redactor = build_redactor(*self._rules)
        return self._redactor

    def redact_text(self, text: str) -> str:
        return self.redactor.redact_text(text)

    def conn(self, agent: str) -> sqlite3.Connection:
        """Agent ``agent``'s store with the caller's visibility on it (scope.register)."""
        conn = self._store(agent)
        if agent not in self._registered:
            # An agent's search names a session, or leaves cron runs out (scope.register).
            register(conn, agent, self.scope.policy, cron_runs=self.scope.session_key is not None)
            self._registered.add(agent)
        return conn

    def _store(self, agent: str) -> sqlite3.Connection:
        """Agent ``agent``'s store, opened once per call (the caller's scope reads it too)."""
        conn = self._conns.get(agent)
        if conn is None:
            conn = self.enter_context(open_store(self.ctx.root, agent))
            if self.batch:
                self.enter_context(transaction(conn, write=False))
            self._conns[agent] = conn
        return conn

    def _scope(self) -> Scope:
        ctx, opts = self.ctx, self.opts
        if opts.as_key is None:
            agents = ctx.agents()
            if opts.session is None:
                return Scope(agents, None, None)
            with SessionLookup(ctx.root, ctx.agent, self._store) as index:
                policy = operator_policy(ctx, self.config, index)
                session = policy.expand_id(opts.session)  # a unique prefix of a session id
                key = policy.resolve_target(session, "search")
                target = _operator_target(policy, index, session, key)
            named = keys.agent_of(key)  # a full key names its agent: search it there
            if named is not None and named not in agents:
                agents = sorted({*agents, named})
            return Scope(agents, None, target)
        with SessionLookup(ctx.root, ctx.agent, self._store) as index:
            policy = caller_policy(ctx.agent, self.config, index, opts)
            agents = stores_in_scope(index, policy)
            if not opts.session:
                return Scope(agents, policy, None)
            session = policy.expand_id(opts.session)  # among the sessions it may see
            return Scope(agents, policy, policy.resolve_target(session, "search"))

    def run(
        self,
        plan: fts_query.QueryPlan,
        opts: SearchOptions | None = None,
        relaxed: bool = False,
        exchange_of: list[str] | None = None,  # ranked.exchange_parts: the hits are exchanges
    ) -> SearchResult:
        """One pass of ``plan`` over every store in scope, to the capped page."""
        opts = opts or self.opts
        scope, fp, limit = self.scope, self.fingerprint, opts.limit
        hits: list[Hit] = []
        truncated = indexing = False
        unindexed = excluded = 0
        tally = counting.Tally()
        # The operator's relevance order re-ranks every agent's best candidates (ranked.py).
        pool = ranked.Pool() if opts.as_key is None and opts.order == "relevance" else None
        # the operator's search of several agents goes on past a broken store, as rg does past
        # an unreadable file, and says so; an agent's answer (--as) or one store fails whole
        skipped: list[tuple[str, str]] | None = None
        if opts.as_key is None and len(scope.agents) > 1:
            skipped = []
        seen: dict[str, Seen] = {}
        for agent in scope.agents:
            with _skipping(agent, skipped):
                conn = self.conn(agent)
                visible = visible_sql(scope.policy)
                filters = fts.Filters(
                    visible,
                    scope.session_key,
                    opts.role,
                    self.since_ms,
                    self.until_ms,
                    agent=agent,
                    sessions=listed_sessions(conn, agent, scope.policy),
                    keys=kinds.key_filter(opts.kind, opts.not_kind, opts.key),
                    exclude=scope.exclude,
                )
                if scope.policy is not None:  # the agent's view: upstream's rule on archives
                    excluded += archived.excluded(conn, filters)
                    filters = filters._replace(visible=archived.caller_visible(visible))
                found: list[Hit] = []
                more = matched = False
                if opts.counts or opts.sessions:
                    per_session = opts.sessions or opts.by_session
                    tally.add(conn, agent, plan, filters, fp, per_session=per_session)
                    if per_session and pool is not None:  # the sessions in the relevance order
                        rows, info, _ = ranked.candidates(conn, plan, filters, fp, ranked.POOL)
                        pool.add(agent, rows, info)
                elif pool is not None and exchange_of is not None:
                    k = max(ranked.POOL, 6 * limit)
                    got = ranked.find_exchanges(conn, exchange_of, filters, fp, k)
                    matched = pool.add_exchanges(agent, got)
                    tally.add_total(conn, plan, filters, fp, len(got), False)
                elif pool is not None:
                    k = max(ranked.POOL, 6 * limit)
                    rows, info, more = ranked.candidates(conn, plan, filters, fp, k)
                    pool.add(agent, rows, info)
                    tally.add_total(conn, plan, filters, fp, len(rows), more)
                    matched = bool(rows)
                else:
                    found, more = fts.find_hits(conn, plan, filters, fp, limit, opts.order)
                    found = [h._replace(agent_id=agent) for h in found]
                    if opts.as_key is None:  # `total` is the operator's: the agent's view has none
                        tally.add_total(conn, plan, filters, fp, len(found), more)
                hits += found
                truncated = truncated or more
                only = scope.session_key
                stale = counting.stale_kick(conn, self.ctx.root, agent, fp, scope.policy, only)
                indexing = stale or indexing
                unindexed += counting.unindexed(conn, agent, fp, scope.policy, only)
                seen[agent] = Seen(visible, filters.sessions, bool(found) or matched)
        broken = tuple(skipped or ())
        if opts.counts or opts.sessions:
            return SearchResult(
                (),
                indexing,
                False,
                None,
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
            hits, more = pool.top(self.conn, plan, limit, one, relaxed)
            truncated = truncated or more
        elif opts.order == "recent":
            hits.sort(key=lambda h: (-h.timestamp, h.session_key, h.message_id))
        else:
            hits.sort(key=lambda h: (-h.score, -h.timestamp, h.session_key, h.message_id))
        if len(hits) > limit:
            hits, truncated = hits[:limit], True
        if opts.context:
            hits = self._with_context(hits, opts.context)
        hits, truncated, cut_by = page.capped(
            hits, truncated, caller=opts.as_key is not None, limit=limit, max_bytes=opts.max_bytes
        )
        if scope.policy is None:  # the operator's hits name their chat (page.py)
            hits = page.labelled(hits, self.conn, self)
        explained = None
        if opts.explain or (self.why_empty and not hits):
            explained = self._explain(plan, seen)
        return SearchResult(
            tuple(hits),
            indexing,
            truncated,
            explained,
            unindexed,
            total=tally.total,
            total_exact=tally.exact,
            cut_by=cut_by,
            skipped=broken,
            archived_excluded=excluded,
        )

    def _explain(self, plan: fts_query.QueryPlan, seen: dict[str, Seen]) -> dict[str, Any]:
        """--explain, per agent read (why.py): asked once the pass is done."""
        from . import why  # --explain, or an agent's empty answer (the tool's reasons)

        operator = self.scope.policy is None
        return {
            "agents": {
                agent: why.explain(
                    self.conn(agent),
                    plan,
                    visible=s.visible,
                    operator=operator,
                    redactor=self,
                    matched=s.matched,
                    sessions=s.sessions,
                )
                for agent, s in seen.items()
            }
        }

    def why(
        self, plan: fts_query.QueryPlan, result: SearchResult, *, relaxed: bool = False
    ) -> dict[str, Any] | None:
        """The operator's ``absence``: why ``result`` is empty or partial (why.absence); None
        for a whole answer, which most selective searches get without reading why.py."""
        if result.hits and not (result.truncated or result.indexing or result.unindexed):
            return None
        from . import why

        def relax_possible() -> bool:
            return ranked.relaxed_plan(plan, literal=self.literal) is not None

        return why.absence(
            self.conn,
            self.scope.agents,
            plan,
            self,
            result,
            deep=self.opts.explain,
            relax_possible=relax_possible,
            relaxed=relaxed,
        )

    def _with_context(self, hits: list[Hit], n: int) -> list[Hit]:
        """Each hit with the ``n`` active-branch messages before and after it (-C N); for a
        caller (``--as``) shaped by the display projection, as its `history` shows them."""
        from openclaw_sessions.read.history import context_of

        as_caller = self.opts.as_key is not None
        out = []
        for h in hits:
            conn = self.conn(h.agent_id or "")
            ctx = context_of(
                conn, h.session_key, h.session_id, h.message_id, n, self.redactor, as_caller
            )
            out.append(h._replace(context=HitContext(*ctx)))
        return out


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


@contextlib.contextmanager
def _skipping(agent: str, skipped: list[tuple[str, str]] | None) -> Iterator[None]:
    """A store that cannot be read is noted in ``skipped`` and left out (None: it fails)."""
    try:
        yield
    except StoreError as exc:
        if skipped is None:
            raise
        skipped.append((agent, exc.message))
