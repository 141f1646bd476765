"""The two tools as an MCP client sees them: names, descriptions, input and output schemas.

The input schemas are upstream's (``sessions_search`` with the batch proposal's ``queries``,
``sessions_history`` with its anchor ``messageId``/``sessionId``) and name no caller,
visibility, agent or state dir: those are fixed when the server starts. Every schema says
``additionalProperties: false`` and args.py enforces it: an unknown argument is an error.
The output schemas are upstream's result contracts (a result, or ``{status, error}``).
"""

from __future__ import annotations

from typing import Any

from openclaw_sessions.policy.fts_query import AS_MAX_LIMIT, MAX_QUERY_CHARS

SEARCH = "sessions_search"
HISTORY = "sessions_history"
MAX_BATCH_QUERIES = 8  # upstream SESSIONS_SEARCH_MAX_BATCH_QUERIES
DEFAULT_LIMIT = 10

_ERROR: dict[str, Any] = {
    "type": "object",
    "properties": {
        "status": {"type": "string", "enum": ["error", "forbidden"]},
        "error": {"type": "string"},
    },
    "required": ["status", "error"],
    "additionalProperties": False,
}

SEARCH_INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "maxLength": MAX_QUERY_CHARS,
            "description": "One recall query; use query or queries, not both.",
        },
        "queries": {
            "type": "array",
            "items": {"type": "string", "maxLength": MAX_QUERY_CHARS},
            "minItems": 1,
            "maxItems": MAX_BATCH_QUERIES,
            "description": "One to eight distinct related recall queries; whitespace is trimmed.",
        },
        "sessionKey": {
            "type": "string",
            "description": "Search only this session (a key from an earlier result, a session"
            " id, or main/current).",
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": AS_MAX_LIMIT,
            "description": "Maximum results per query; complete batch output is capped at 32 KiB.",
        },
    },
    "additionalProperties": False,
}

_HIT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "sessionKey": {"type": "string"},
        "timestamp": {"type": "number"},
        "role": {"type": "string", "enum": ["assistant", "user"]},
        "snippet": {"type": "string"},
        "score": {"type": "number"},
        "sessionId": {"type": "string"},
        "messageId": {"type": "string"},
        "queryIndex": {"type": "integer", "minimum": 0},
    },
    "required": ["sessionKey", "timestamp", "role", "snippet", "score"],
    "additionalProperties": False,
}
_INDICES: dict[str, Any] = {"type": "array", "items": {"type": "integer", "minimum": 0}}

SEARCH_OUTPUT: dict[str, Any] = {
    "type": "object",
    "anyOf": [
        {
            "type": "object",
            "properties": {
                "results": {"type": "array", "items": _HIT},
                "batch": {"const": True},
                "queryCount": {"type": "integer", "minimum": 1},
                "indexing": {"const": True},
                "indexingQueries": _INDICES,
                "archivedTranscriptsExcluded": {"type": "integer", "minimum": 1},
                "warning": {"type": "string"},
                "truncated": {"const": True},
                "truncatedQueries": _INDICES,
            },
            "required": ["results"],
            "additionalProperties": False,
        },
        _ERROR,
    ],
}

HISTORY_INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "sessionKey": {
            "type": "string",
            "description": "The session to read: a key from a search result, a session id, or"
            " main/current.",
        },
        "limit": {"type": "integer", "minimum": 1, "description": "Most messages to return."},
        "offset": {
            "type": "integer",
            "minimum": 0,
            "description": "Plain-pagination offset, counted from the newest message (use"
            " nextOffset). Not with messageId.",
        },
        "messageId": {
            "type": "string",
            "minLength": 1,
            "description": "Return history around this message id (a search hit's messageId);"
            " limit bounds the window.",
        },
        "sessionId": {
            "type": "string",
            "minLength": 1,
            "description": "Transcript session id that owns messageId (a search hit's"
            " sessionId). Requires messageId.",
        },
        "includeTools": {"type": "boolean", "description": "Also return tool results."},
    },
    "required": ["sessionKey"],
    "additionalProperties": False,
}

HISTORY_OUTPUT: dict[str, Any] = {
    "type": "object",
    "anyOf": [
        {
            "type": "object",
            "properties": {
                "sessionKey": {"type": "string"},
                "messages": {"type": "array"},
                "truncated": {"type": "boolean"},
                "droppedMessages": {"type": "boolean"},
                "contentTruncated": {"type": "boolean"},
                "contentRedacted": {"type": "boolean"},
                "bytes": {"type": "number"},
                "offset": {"type": "number"},
                "nextOffset": {"type": "number"},
                "hasMore": {"type": "boolean"},
                "totalMessages": {"type": "number"},
            },
            "required": ["sessionKey", "messages"],
        },
        _ERROR,
    ],
}

SEARCH_DESCRIPTION = (
    "Full-text search of past session transcripts (user and assistant text on each session's"
    " active branch) that this session may see under OpenClaw's session visibility rules."
    " Each whitespace-separated word must match (as a phrase); operators are literal text."
    " Pass query, or queries (1-8 distinct angles on one question, searched together:"
    " results interleaved, each hit with its queryIndex). limit applies per query; the"
    " complete batch output is capped at 32 KiB. indexing: true means recent transcripts are"
    " still being indexed: retry shortly. An empty answer explains itself in a second text"
    " block. Open a hit with sessions_history (sessionKey, messageId, sessionId)."
)
HISTORY_DESCRIPTION = (
    "Read a session's conversation (active branch, redacted, capped at 80 KiB): the newest"
    " messages, pages further back with offset/nextOffset, or a window around a search hit"
    " with messageId (and its sessionId). Only sessions this session may see under OpenClaw's"
    " visibility rules can be read."
)


def tool_specs() -> list[dict[str, Any]]:
    """(name, description, input schema, output schema) of each tool, in list order."""
    return [
        {
            "name": SEARCH,
            "title": "Sessions Search",
            "description": SEARCH_DESCRIPTION,
            "input": SEARCH_INPUT,
            "output": SEARCH_OUTPUT,
        },
        {
            "name": HISTORY,
            "title": "Session History",
            "description": HISTORY_DESCRIPTION,
            "input": HISTORY_INPUT,
            "output": HISTORY_OUTPUT,
        },
    ]
