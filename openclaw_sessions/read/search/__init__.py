"""`search`, in one room: a call (call.py) holds the plan, the caller's policy and one
connection per agent store, from the FTS statement (fts.py) to the page, the operator's
relevance order, --relax and an exchange's match (ranked.py), the counts and whether the
answer may be incomplete (counting.py), the page's caps and labels (page.py); why an answer
is empty or partial is asked only then (why.py).

Returns values, raises OpenClawError; never prints, never exits.
"""

from __future__ import annotations

from openclaw_sessions.policy import fts_query
from openclaw_sessions.read.models import SearchResult

from . import ranked
from .call import Call
from .options import ORDERS, SearchOptions, validate

__all__ = ["ORDERS", "SearchOptions", "search", "search_batch", "validate"]


def search(opts: SearchOptions, *, exclude: tuple[str, ...] = ()) -> SearchResult:
    """``exclude``: sessions (keys or ids) left out before the limit (the MCP extension)."""
    with Call(opts, exclude) as call:
        (plan,) = call.plans
        if opts.wait:
            from openclaw_sessions.index.reindex import reindex_agent  # the reconciler: only here

            for agent in call.scope.agents:
                reindex_agent(call.ctx.root, agent, call.redactor)
        result = call.run(plan)
        if opts.as_key is not None or opts.counts or opts.sessions:
            return result
        if opts.semantic:  # by meaning, whatever the words match (semantic.py)
            from . import semantic

            return semantic.fill(call, result)
        relaxed = None
        if opts.relax:  # more parts than it takes is a usage error, whatever the answer
            relaxed = ranked.relaxed_plan(plan, literal=call.literal, asked=True)
        if not result.hits:
            other = when_empty(call, plan, result, relaxed)
            if other is not None:
                return other
        page = result._replace(absence=call.why(plan, result))
        if result.hits:
            return page
        from . import semantic  # an empty page: the nearest in meaning (the extra), or what helps

        return semantic.fill(call, page)


def when_empty(
    call: Call,
    plan: fts_query.QueryPlan,
    result: SearchResult,
    relaxed: fts_query.QueryPlan | None,
) -> SearchResult | None:
    """The one place where the operator's lexical page, found empty, is answered otherwise:
    an exchange that holds every word (no one message does), else, with --relax
    (``relaxed``), what matches most of the words; None: the page stays empty."""
    opts = call.opts
    ex = ranked.exchange_answer(plan, result, opts.role, opts.order, call.run)
    if ex is not None:
        return ex._replace(absence=call.why(plan, ex))
    if relaxed is not None:
        loose = call.run(relaxed, relaxed=True)
        if loose.hits:
            return loose._replace(absence=call.why(plan, result, relaxed=True))
    return None


def search_batch(
    opts: SearchOptions, queries: tuple[str, ...], *, exclude: tuple[str, ...] = ()
) -> list[SearchResult]:
    """One search per query, as ``search`` runs it, with the caller resolved once and each
    store opened once, every query reading it in one read transaction (one snapshot, and
    the cost of one search's set-up instead of one per query). The caller's view (--as);
    each answer without hits says why (why.explain), for the agent tool's reasons."""
    with Call(opts, exclude, queries, why_empty=True) as call:
        return [
            call.run(p, opts._replace(query=q)) for q, p in zip(queries, call.plans, strict=True)
        ]
