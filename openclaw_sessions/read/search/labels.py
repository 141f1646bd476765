"""The operator's hits name their chat: each carries its session's label (the human name
OpenClaw's store gives a chat, `sessions.json` `label`), redacted as every string shown. The
agent's view (`--as`, MCP) has no label: upstream's `sessions_search` result has none."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable

from openclaw_sessions.read.models import Hit

from .why import Rules


def labelled(
    hits: list[Hit], conn_of: Callable[[str], sqlite3.Connection], rules: Rules
) -> list[Hit]:
    """``hits`` with their label, read for the hits' own sessions only (the page's few keys,
    not every labelled session of a store); ``rules`` redact each label (the call builds them
    only when a hit has one)."""
    by_agent: dict[str, set[str]] = {}
    for h in hits:
        by_agent.setdefault(h.agent_id or "", set()).add(h.session_key)
    labels: dict[tuple[str, str], str] = {}
    for agent, keys in by_agent.items():
        rows = conn_of(agent).execute(
            "SELECT session_key, label FROM sessions WHERE label IS NOT NULL"
            " AND session_key IN (SELECT value FROM json_each(?))",
            (json.dumps(sorted(keys)),),
        )
        labels.update(((agent, str(key)), str(label)) for key, label in rows if label)
    if not labels:
        return hits
    out = []
    for h in hits:
        label = labels.get((h.agent_id or "", h.session_key))
        out.append(h._replace(label=rules.redact_text(label)) if label else h)
    return out
