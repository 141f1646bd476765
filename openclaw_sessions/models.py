"""Frozen values search returns to the CLI (and the CLI renders)."""

from __future__ import annotations

from typing import Any, NamedTuple


class Hit(NamedTuple):
    session_key: str
    session_id: str
    message_id: str
    role: str
    timestamp: int
    snippet: str
    score: float
    highlights: tuple[tuple[int, int], ...] = ()  # for tables only; never in JSON

    def to_json(self) -> dict[str, Any]:
        return {
            "sessionKey": self.session_key,
            "sessionId": self.session_id,
            "messageId": self.message_id,
            "role": self.role,
            "timestamp": self.timestamp,
            "snippet": self.snippet,
            "score": self.score,
        }


INDEXING_WARNING = (
    "Transcript indexing is in progress; results may be incomplete. Retry sessions_search shortly."
)


class SearchResult(NamedTuple):
    hits: tuple[Hit, ...]
    indexing: bool = False
    truncated: bool = False
    explain: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"results": [h.to_json() for h in self.hits]}
        if self.indexing:
            out["indexing"] = True
            out["warning"] = INDEXING_WARNING
        if self.truncated:
            out["truncated"] = True
        if self.explain is not None:
            out["explain"] = self.explain
        return out
