"""`reindex`: the reconciliation of each agent, in this process, holding the agent's lock (and
its one background slot, for the reconciler a search starts)."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from openclaw_sessions.redact import Redactor
from openclaw_sessions.reports import Bars, Progress, ReindexReport, no_bars
from openclaw_sessions.store import paths
from openclaw_sessions.store.db import open_store
from openclaw_sessions.store.paths import StateScope

from . import locks
from .reconcile import reconcile


def reindex_agent(
    root: Path,
    agent: str,
    redactor: Redactor,
    *,
    full: bool = False,
    progress: Progress | None = None,
) -> ReindexReport:
    """Reconcile one agent in this process (holding the agent's 'reconciling' lock)."""
    with open_store(root, agent) as conn, locks.reconciling(paths.agent_dir(root, agent)):
        return reconcile(conn, agent, redactor, full=full, progress=progress)


class ReindexOptions(NamedTuple):
    """`reindex`'s options; each field declares the CLI parameter of its name (type, default)."""

    state_dir: Path | None = None
    agent: str = paths.DEFAULT_AGENT
    all_agents: bool = False
    full: bool = False  # rebuild every transcript's index, not only the stale ones
    background: bool = False  # the detached reconciler a search starts: one per agent
    embed: bool = False  # then embed what has no vector yet (the [semantic] extra: index/embed.py)


def reindex(opts: ReindexOptions, bars: Bars = no_bars) -> list[ReindexReport]:
    """Reconcile each agent in turn; the background reconciler skips an agent another one
    already serves."""
    ctx = StateScope.at(opts.state_dir, opts.agent, opts.all_agents)
    redactor = ctx.redactor()
    out = []
    for agent in ctx.agents():
        if opts.background:
            with locks.background_slot(paths.agent_dir(ctx.root, agent)) as mine:
                if mine:
                    out.append(reindex_agent(ctx.root, agent, redactor, full=opts.full))
            continue
        with bars(f"indexing {agent}", "items") as bar:
            out.append(reindex_agent(ctx.root, agent, redactor, full=opts.full, progress=bar))
    return out
