"""The page's last step: what cuts it and what its hits are labelled with.

The caps: the agent tool's (policy/limits.py: at most AS_MAX_LIMIT hits, their JSON at most
32 KiB, counted as upstream counts it) and the operator's --max-bytes; and what cut the page.

The operator's hits name their chat and say when upstream no longer holds their generation
live: each carries its session's label (the human name OpenClaw's store gives a chat,
`sessions.json` `label`), redacted as every string shown, and `archived: "cold"` or
`"deleted"` (store/upstream_archived.py; archived.py has the agent's rule). Both are read for
the page's own sessions only. The agent's view (`--as`, MCP) has neither: upstream's
`sessions_search` result has none.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING

from openclaw_sessions.policy.limits import AS_MAX_LIMIT, MAX_RESULT_BYTES
from openclaw_sessions.read.models import Hit

if TYPE_CHECKING:
    from .why import Rules


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
        hits, cut = _cap_bytes(hits, cap)
        if cut:
            truncated, cut_by = True, "as-bytes" if caller else "max-bytes"
    return hits, truncated, cut_by


def _cap_bytes(hits: list[Hit], max_bytes: int) -> tuple[list[Hit], bool]:
    """Upstream's count: '[' and ']', the commas, each item's UTF-8 compact JSON (as
    ``JSON.stringify`` writes it). A hit's -C context counts too (it is no upstream field,
    but with --as it must stay inside the budget the agent tool has)."""
    # Imported here: only a capped page (--as, --max-bytes) counts bytes; sanitize is large.
    from openclaw_sessions.policy.sanitize import json_bytes

    total = 2
    for i, h in enumerate(hits):
        size = json_bytes(h.agent_json()) + (1 if i else 0)
        if total + size > max_bytes:
            return hits[:i], True
        total += size
    return hits, False


def labelled(
    hits: list[Hit], conn_of: Callable[[str], sqlite3.Connection], rules: Rules
) -> list[Hit]:
    """The operator's ``hits`` with their label and archived state, read per agent for the
    hits' own sessions (the page's few keys and ids, not every labelled or archived session
    of a store); ``rules`` redact each label (the call builds them only when a hit has one)."""
    by_agent: dict[str, list[Hit]] = {}
    for h in hits:
        by_agent.setdefault(h.agent_id or "", []).append(h)
    labels: dict[tuple[str, str], str] = {}
    states: dict[tuple[str, str], str] = {}
    for agent, mine in by_agent.items():
        conn = conn_of(agent)
        rows = conn.execute(
            "SELECT session_key, label FROM sessions WHERE label IS NOT NULL"
            " AND session_key IN (SELECT value FROM json_each(?))",
            (json.dumps(sorted({h.session_key for h in mine})),),
        )
        labels.update(((agent, str(key)), str(label)) for key, label in rows if label)
        rows = conn.execute(
            "SELECT t.session_id, a.state FROM upstream_archived a JOIN transcripts t"
            " USING (transcript_id) WHERE t.session_id IN (SELECT value FROM json_each(?))",
            (json.dumps(sorted({h.session_id for h in mine if h.session_id})),),
        )
        states.update(((agent, str(sid)), str(state)) for sid, state in rows)
    if not labels and not states:
        return hits
    out = []
    for h in hits:
        label = labels.get((h.agent_id or "", h.session_key))
        state = states.get((h.agent_id or "", h.session_id))
        out.append(h._replace(label=rules.redact_text(label) if label else None, archived=state))
    return out
