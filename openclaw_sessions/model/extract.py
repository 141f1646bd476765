"""Which text of an entry is indexed (upstream's rules, facts §2) — pure."""

from __future__ import annotations

from typing import Any

INDEXED_ROLES = frozenset({"user", "assistant"})
_TEXT_BLOCKS = frozenset({"text", "input_text", "output_text"})


def message_text(message: Any) -> str:
    """content if a string, else message.text if a string, else the non-blank text blocks."""
    if not isinstance(message, dict):
        return ""
    content = message.get("content")
    if isinstance(content, str):
        return content
    text = message.get("text")
    if isinstance(text, str):
        return text
    if not isinstance(content, list):
        return ""
    texts = (
        b.get("text") for b in content if isinstance(b, dict) and b.get("type") in _TEXT_BLOCKS
    )
    return "\n".join(t for t in texts if isinstance(t, str) and t.strip())


def indexable_text(obj: dict[str, Any], entry_id: str | None) -> str | None:
    """The text to index for one entry (entry_id: its id, assigned for v1), or None."""
    message = obj.get("message")
    if not entry_id or obj.get("type") != "message" or not isinstance(message, dict):
        return None
    if message.get("role") not in INDEXED_ROLES:
        return None
    text = message_text(message)
    return text if text.strip() else None
