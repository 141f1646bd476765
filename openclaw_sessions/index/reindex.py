"""`reindex`: the reconciliation of each agent, in this process, holding the agent's lock."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from openclaw_sessions.policy.redact import Redactor
from openclaw_sessions.reports import ReindexReport
from openclaw_sessions.store import paths
from openclaw_sessions.store.db import open_store

from . import locks
from .reconcile import reconcile


def reindex_agent(
    root: Path,
    agent: str,
    redactor: Redactor,
    *,
    full: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> ReindexReport:
    """Reconcile one agent in this process (holding the agent's 'reconciling' lock)."""
    with open_store(root, agent) as conn, locks.reconciling(paths.agent_dir(root, agent)):
        return reconcile(conn, agent, redactor, full=full, progress=progress)
