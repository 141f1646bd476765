"""``sessions_list``: the page of the caller's sessions (read/listing.py's inventory) as
upstream's tool answers it: ``count`` (this page), ``sessions``, ``hasMore``, ``nextOffset``,
``limitApplied``, a ``visibility`` note when the caller's mode is narrower than ``all``, and
the whole pretty-printed answer within upstream's 64 KiB (rows cut from the end, marked
``truncationReason: "byte-limit"``, ``nextOffset`` where the cut began). SDK-free.
"""

from __future__ import annotations

from typing import Any

from openclaw_sessions.read.listing import Page, SessionsOptions, inventory

from . import args, jstext, schemas
from .identity import Identity

# upstream's SESSION_VISIBILITY_SCOPE_COPY, and its sandboxed tree ("spawnRestricted")
_SCOPE = {
    "self": "current session only",
    "tree": "current session + own spawn subtree; the main session sees all sessions of its agent",
    "agent": "all sessions of this agent",
}
_SPAWNED = "current session + own spawn subtree (sandbox: spawned sessions only)"


def sessions_list(identity: Identity, a: args.ListArgs) -> dict[str, Any]:
    opts = SessionsOptions(all_agents=identity.operator, **identity.options())
    page = inventory(
        opts, offset=a.offset, limit=a.limit, match=a.search, active_minutes=a.active_minutes
    )
    return capped(page, a.offset, a.limit)


def _visibility(page: Page) -> dict[str, Any] | None:
    if page.visibility == "all":
        return None
    scope = _SPAWNED if page.spawn_restricted and page.visibility == "tree" else None
    scope = scope or _SCOPE.get(page.visibility, page.visibility)
    return {
        "mode": page.visibility,
        "restricted": True,
        "warning": "Session visibility is restricted (effective tools.sessions.visibility="
        f"{page.visibility}: {scope}). Sessions outside that scope are omitted from results"
        " and count.",
    }


def _answer(page: Page, offset: int, limit: int, count: int) -> dict[str, Any]:
    """Upstream's resultFor(count), its key order."""
    rows = list(page.rows)
    cut = count < len(rows)
    out: dict[str, Any] = {
        "count": count,
        "sessions": rows[:count],
        "hasMore": cut or page.has_more,
    }
    if cut:
        out["nextOffset"] = offset + count
    elif page.next_offset is not None:
        out["nextOffset"] = page.next_offset
    out["limitApplied"] = limit
    if cut:
        out["truncationReason"] = "byte-limit"
    seen = _visibility(page)
    if seen is not None:
        out["visibility"] = seen
    return out


def capped(page: Page, offset: int, limit: int) -> dict[str, Any]:
    """The most rows whose answer fits upstream's 64 KiB (a binary search, as upstream's)."""

    def fits(n: int) -> bool:
        text = jstext.stringify(_answer(page, offset, limit, n))
        return len(text.encode("utf-8")) <= schemas.LIST_MAX_BYTES

    low, high = 0, len(page.rows)
    if not fits(high):
        while low < high:
            middle = (low + high + 1) // 2
            low, high = (middle, high) if fits(middle) else (low, middle - 1)
        high = low
    return _answer(page, offset, limit, high)
