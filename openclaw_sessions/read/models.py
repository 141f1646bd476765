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
    context: HitContext | None = None  # with -C N: the messages around it
    agent_id: str | None = None  # the store it came from (an unscoped key does not name it)
    copies: int = 1  # operator order: the near-duplicate messages this hit stands for
    relaxed: bool = False  # --relax: matches most of the words, not all
    label: str | None = None  # the session's label (the chat's human name), redacted; operator
    archived: str | None = None  # operator: "cold" | "deleted" in OpenClaw (search/page.py)
    # operator: no one message holds every word, this exchange (a question and its replies)
    # does; the matching messages' ids in transcript order (read/search/ranked.py)
    exchange: tuple[str, ...] = ()
    # operator: no message holds the words; this one is near in meaning (read/semantic.py),
    # and its score is the cosine similarity
    semantic: bool = False

    def to_json(self) -> dict[str, Any]:
        """The operator's hit: upstream's fields, then its agent and the match offsets."""
        out = self.upstream_json()
        if self.agent_id is not None:
            out["agentId"] = self.agent_id
        if self.label is not None:
            out["label"] = self.label
        out["matches"] = [list(span) for span in self.highlights]
        if self.copies > 1:
            out["copies"] = self.copies
        if self.relaxed:
            out["relaxed"] = True
        if self.archived is not None:
            out["archived"] = self.archived
        if self.exchange:
            out["exchange"] = {"messageIds": list(self.exchange)}
        if self.semantic:
            out["semantic"] = True
        if self.context is not None:
            out["context"] = self.context.to_json()
        return out

    def upstream_json(self) -> dict[str, Any]:
        """The fields of upstream's result."""
        return {  # upstream's key order (its SessionsSearchHitSchema)
            "sessionKey": self.session_key,
            "timestamp": self.timestamp,
            "role": self.role,
            "snippet": self.snippet,
            "score": self.score,
            "sessionId": self.session_id,
            "messageId": self.message_id,
        }

    def agent_json(self) -> dict[str, Any]:
        """Upstream's fields and -C's context: the agent's view of a hit, and what the byte
        caps count (so --as returns as many hits as sessions_search would)."""
        out = self.upstream_json()
        if self.context is not None:
            out["context"] = self.context.to_json()
        return out


class HitContext(NamedTuple):
    """The active-branch messages before and after a hit, shaped, redacted and capped as
    `history` shows them (tool results left out)."""

    before: tuple[dict[str, Any], ...] = ()
    after: tuple[dict[str, Any], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"before": list(self.before), "after": list(self.after)}


class SessionHits(NamedTuple):
    """`search --count --by-session` and `--sessions`: one session's matches."""

    session_key: str
    agent_id: str
    matches: int

    def to_json(self) -> dict[str, Any]:
        return {"sessionKey": self.session_key, "agentId": self.agent_id, "count": self.matches}


# JSON keeps upstream's text byte for byte: it is sessions_search's contract, and agents and
# scripts acting as a session (--as) match on it. People get the CLI's own words (footer).
INDEXING_WARNING = (
    "Transcript indexing is in progress; results may be incomplete. Retry sessions_search shortly."
)
INDEXING_NOTE = (
    "indexing is in progress; results may be incomplete: run `openclaw-sessions reindex`,"
    " or add `--wait`"
)


class SearchResult(NamedTuple):
    hits: tuple[Hit, ...]
    indexing: bool = False
    truncated: bool = False
    explain: dict[str, Any] | None = None
    unindexed: int = 0  # sessions the caller may see whose indexing failed
    # Every match (hits mode): exact when cheap to know (TOTAL_CAP), else a lower bound.
    total: int = 0
    total_exact: bool = True
    # What cut the hits: limit, max-bytes, or the caps --as keeps (as-limit, as-bytes).
    cut_by: str | None = None
    match_count: int | None = None  # --count: the number of matching messages
    sessions: tuple[SessionHits, ...] | None = None  # --count --by-session, --sessions
    # Operator JSON only: why the answer is empty or partial, and the option that lifts it.
    absence: dict[str, Any] | None = None
    # (agent, why) of each store an operator's search of several agents could not read
    skipped: tuple[tuple[str, str], ...] = ()
    # The agent's view: cold-stored transcripts of its visible sessions it leaves out.
    archived_excluded: int = 0
    # Operator: the hits are the nearest in meaning (read/semantic.py): the model, and how
    # many of the stores' messages it has embedded.
    semantic: dict[str, Any] | None = None

    @property
    def found(self) -> bool:
        """Did anything match (exit 0, else 1)?"""
        if self.match_count is not None:
            return self.match_count > 0
        return bool(self.sessions) if self.sessions is not None else bool(self.hits)

    def warnings(self, *, human: bool = False) -> list[str]:
        """The JSON `warning`'s parts, or (``human``) the footer's lines."""
        out = [INDEXING_NOTE if human else INDEXING_WARNING] if self.indexing else []
        if self.unindexed:  # indexing failed (status lists them): missing, not pending
            n, s = self.unindexed, "s" if self.unindexed != 1 else ""
            out.append(
                f"{n} session{s} could not be indexed and {'are' if s else 'is'} missing from"
                " results; see `openclaw-sessions status`."
            )
        if self.archived_excluded:  # the agent's view only: upstream's words, plural and all
            out.append(
                f"Search excludes {self.archived_excluded} archived transcripts."
                " Restore a transcript to include it in search."
            )
        return out

    def agent_json(self) -> dict[str, Any]:
        """Upstream's `sessions_search` result and nothing else (`--as`, the MCP server):
        `results`, then `indexing`, `warning` and `truncated` only when upstream sets them.
        The operator's counts (`total`, `unindexed`) and per-hit `matches` stay out; a hit's
        -C context and `--explain` stay in, as the caller asked for them by name, and so do
        `--count` and `--sessions` (no hit list: the counts of the caller's visible hits)."""
        if self.match_count is not None or self.sessions is not None:
            return self.to_json()
        out: dict[str, Any] = {"results": [h.agent_json() for h in self.hits]}
        if self.indexing:
            out["indexing"] = True
        if self.archived_excluded:
            out["archivedTranscriptsExcluded"] = self.archived_excluded
        if self.indexing or self.archived_excluded:  # upstream's: without the operator's count
            out["warning"] = " ".join(self._replace(unindexed=0).warnings())
        if self.truncated:
            out["truncated"] = True
        if self.explain is not None:
            out["explain"] = self.explain
        return out

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.match_count is not None:
            out["count"] = self.match_count
        if self.sessions is not None:
            out["sessions"] = [s.to_json() for s in self.sessions]
        if not out:
            out["results"] = [h.to_json() for h in self.hits]
            out["total" if self.total_exact else "totalAtLeast"] = self.total
        if self.indexing:
            out["indexing"] = True
        if self.unindexed:
            out["unindexed"] = self.unindexed
        if self.indexing or self.unindexed:
            out["warning"] = " ".join(self.warnings())
        if self.truncated:
            out["truncated"] = True
        if self.absence:
            out["absence"] = self.absence
        if self.semantic is not None:
            out["semantic"] = self.semantic
        if self.skipped:
            out["skipped"] = [{"agentId": a, "error": why} for a, why in self.skipped]
        if self.explain is not None:
            out["explain"] = self.explain
        return out


# HistoryResult's fields, in order, as JSON names them.
_HISTORY_JSON = (
    "sessionKey sessionId messages truncated droppedMessages contentTruncated contentRedacted"
    " bytes offset nextOffset hasMore totalMessages"
).split()


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
    agent: bool = False  # an agent's view (--as): upstream's closed result shape
    paged: bool = False  # an offset was asked (upstream's paging fields only then)
    boundaries: tuple[dict[str, Any], ...] = ()  # the operator's view: resets, compactions
    texts_cut: bool = False  # a text was cut at the cap (--full lifts it; not in JSON)
    data_omitted: bool = False  # image data was left out (not in JSON)

    def to_json(self) -> dict[str, Any]:
        """The fields under their JSON names (the anchor is for tables only). An agent's view
        is upstream's ``sessions_history`` result exactly: no sessionId, ``pendingInputs``
        always, paging fields only when an offset was asked and no anchor (the real 2026.9.6
        answers an anchored call without any). The operator's keeps sessionId and every
        paging field that is set, and lists the boundaries shown when there are some."""
        out: dict[str, Any] = dict(zip(_HISTORY_JSON, self[: len(_HISTORY_JSON)], strict=True))
        out["messages"] = list(self.messages)
        if self.agent:
            return self._agent_json(out)
        for name in ("offset", "nextOffset", "hasMore", "totalMessages"):
            if out[name] is None:
                del out[name]
        if self.boundaries:
            out["boundaries"] = list(self.boundaries)
        return out

    def _agent_json(self, out: dict[str, Any]) -> dict[str, Any]:
        body = {k: out[k] for k in _HISTORY_JSON[:8] if k != "sessionId"}
        body["pendingInputs"] = {"items": [], "total": 0}
        if self.paged and self.anchor is None:  # an anchor's window has none (2026.9.6, run)
            body["offset"] = self.offset
            if self.has_more and self.next_offset is not None:
                body["nextOffset"] = self.next_offset
            if self.has_more is not None:
                body["hasMore"] = self.has_more
            if self.total_messages is not None:
                body["totalMessages"] = self.total_messages
        return body
