"""The operator's hits name their chat: each carries its session's label (the human name
OpenClaw's store gives a chat, `sessions.json` `label`), redacted as every string shown. The
agent's view (`--as`, MCP) has no label: upstream's `sessions_search` result has none."""

from __future__ import annotations

import sqlite3

from openclaw_sessions.read.models import Hit

from .why import Rules


def of_store(conn: sqlite3.Connection) -> dict[str, str]:
    """session key → label, for the store's labelled sessions (few: one row per chat)."""
    rows = conn.execute("SELECT session_key, label FROM sessions WHERE label IS NOT NULL")
    return {str(key): str(label) for key, label in rows if label}


def labelled(hits: list[Hit], labels: dict[str, dict[str, str]], rules: Rules) -> list[Hit]:
    """``hits`` with their label (``labels``: agent → key → label, of_store per store);
    ``rules`` redact each label (the call builds them only when a hit has one)."""
    if not any(labels.values()):
        return hits
    out = []
    for h in hits:
        label = labels.get(h.agent_id or "", {}).get(h.session_key)
        out.append(h._replace(label=rules.redact_text(label)) if label else h)
    return out
