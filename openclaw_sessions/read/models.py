"""Frozen values search and history return to the CLI (and the CLI renders)."""

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
    # the matches in the snippet: [start, end) offsets in code points (Python's and jq's
    # string indices), JSON "matches"
    highlights: tuple[tuple[int, int], ...] = ()

    def to_json(self) -> dict[str, Any]:
        out = self.upstream_json()
        out["matches"] = [list(span) for span in self.highlights]
        return out

    def upstream_json(self) -> dict[str, Any]:
        """The fields of upstream's result: what the byte caps count (so --as returns as many
        hits as sessions_search would)."""
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

    def warnings(self) -> list[str]:
        out = [INDEXING_WARNING] if self.indexing else []
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


class HistoryResult(NamedTuple):
    session_key: str
    session_id: str | None
    messages: tuple[dict[str, Any], ...]
    truncated: bool = False
    dropped_messages: bool = False
    content_truncated: bool = False
    content_redacted: bool = False
    bytes: int = 2
    offset: int | None = None
    next_offset: int | None = None
    has_more: bool | None = None
    total_messages: int | None = None
    anchor: str | None = None  # the --around message id (for tables; not in JSON)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "sessionKey": self.session_key,
            "sessionId": self.session_id,
            "messages": list(self.messages),
            "truncated": self.truncated,
            "droppedMessages": self.dropped_messages,
            "contentTruncated": self.content_truncated,
            "contentRedacted": self.content_redacted,
            "bytes": self.bytes,
        }
        for name, value in (
            ("offset", self.offset),
            ("nextOffset", self.next_offset),
            ("hasMore", self.has_more),
            ("totalMessages", self.total_messages),
        ):
            if value is not None:
                out[name] = value
        return out
