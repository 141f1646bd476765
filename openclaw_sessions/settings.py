"""Every OPENCLAW_* environment variable the tool reads, read here and nowhere else.

Each accessor reads the environment when it is called, never at import: tests and callers
that live long change it.
"""

from __future__ import annotations

import os


def plan_workers() -> bool | None:
    """$OPENCLAW_SESSIONS_PLAN_WORKER: "0" never plans in worker processes, "1" always; None
    (unset or anything else): by the size of the backlog."""
    raw = os.environ.get("OPENCLAW_SESSIONS_PLAN_WORKER")
    return {"0": False, "1": True}.get(raw or "")
