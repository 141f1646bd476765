"""The caps on a search answer: the agent tool's (policy/limits.py: at most AS_MAX_LIMIT hits,
their JSON at most 32 KiB, counted as upstream counts it) and the operator's --max-bytes; and
what cut it."""

from __future__ import annotations

from openclaw_sessions.policy.limits import AS_MAX_LIMIT, MAX_RESULT_BYTES
from openclaw_sessions.policy.sanitize import json_bytes
from openclaw_sessions.read.models import Hit


def cap_bytes(hits: list[Hit], max_bytes: int) -> tuple[list[Hit], bool]:
    """Upstream's count: '[' and ']', the commas, each item's UTF-8 compact JSON (as
    ``JSON.stringify`` writes it). A hit's -C context counts too (it is no upstream field,
    but with --as it must stay inside the budget the agent tool has)."""
    total = 2
    for i, h in enumerate(hits):
        size = json_bytes(h.agent_json()) + (1 if i else 0)
        if total + size > max_bytes:
            return hits[:i], True
        total += size
    return hits, False


def capped(
    hits: list[Hit], truncated: bool, *, caller: bool, limit: int, max_bytes: int
) -> tuple[list[Hit], bool, str | None]:
    """The hits within the byte cap (always upstream's for a ``caller`` (--as), else
    ``max_bytes``, 0: none), whether more exist, and what cut them (SearchResult.cut_by);
    ``truncated``: the limit cut them."""
    at_most = caller and limit >= AS_MAX_LIMIT  # --limit cannot go higher
    cut_by = ("as-limit" if at_most else "limit") if truncated else None
    cap = MAX_RESULT_BYTES if caller else max_bytes or None
    if cap is not None:
        hits, cut = cap_bytes(hits, cap)
        if cut:
            truncated, cut_by = True, "as-bytes" if caller else "max-bytes"
    return hits, truncated, cut_by
