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


# JSON keeps upstream's text byte for byte: it is sessions_search's contract, and agents and
# scripts acting as a session (--as) match on it. People get the CLI's own words (footer).
INDEXING_WARNING = (
    "Transcript indexing is in progress; results may be incomplete. Retry sessions_search shortly."
)
INDEXING_NOTE = (
    "indexing is in progress; results may be incomplete: run `openclaw-sessions reindex`,"
    " or add `--wait`"
)


def unindexed_warning(n: int) -> str:
    """Sessions whose indexing failed (status lists them): missing from results, not pending."""
    s = "s" if n != 1 else ""
    return (
        f"{n} session{s} could not be indexed and {'are' if s else 'is'} missing from results;"
        " see `openclaw-sessions status`."
    )


class SearchResult(NamedTuple):
    hits: tuple[Hit, ...]
    indexing: bool = False
    truncated: bool = False
    explain: dict[str, Any] | None = None
    unindexed: int = 0  # sessions the caller may see whose indexing failed

    def warnings(self, *, human: bool = False) -> list[str]:
        """The JSON `warning`'s parts, or (``human``) the footer's lines."""
        out = [INDEXING_NOTE if human else INDEXING_WARNING] if self.indexing else []
        return out + ([unindexed_warning(self.unindexed)] if self.unindexed else [])

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"results": [h.to_json() for h in self.hits]}
        if self.indexing:
            out["indexing"] = True
        if self.unindexed:
            out["unindexed"] = self.unindexed
        if self.indexing or self.unindexed:
            out["warning"] = " ".join(self.warnings())
        if self.truncated:
            out["truncated"] = True
        if self.explain is not None:
            out["explain"] = self.explain
        return out
