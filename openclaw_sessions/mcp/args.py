"""A tool call's arguments, checked against the tool's input schema with upstream's words.

The schema is the contract (schemas.py); this is its enforcement, so that nothing depends on a
client having validated: an argument the schema does not name is an error (never ignored), a
value of the wrong type is an error, and the texts are upstream's tool errors ("limit must be
a positive integer", "use query or queries, not both", "queries[1] duplicates queries[0]").
The readers accept what upstream's readers (readToolStringParam, readPositiveIntegerParam)
accept: an argument under its snake_case spelling (``session_key``, ``message_id``) when the
schema's own spelling is not given; a number as a numeric string (``"5"``, ``" 5.0 "``); a
blank string, or a JSON null (clients send them for unset fields), as an absent argument; a
string trimmed. A name the schema does not spell, in either case, is still refused: the
caller fields (``as``, ``agentId``, a visibility) are fixed when the server starts.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any, NamedTuple

from openclaw_sessions.errors import UsageError
from openclaw_sessions.model.when import MAX_MS
from openclaw_sessions.policy.limits import MAX_BATCH_QUERIES, MAX_EXCLUDED, MAX_QUERY_CHARS
from openclaw_sessions.read.history import HistoryOptions

from . import batch, schemas

_SHOWN = 64  # an unknown argument's name is quoted up to this many characters
# upstream's parseStrictFiniteNumber: a decimal number, nothing else ("0x10", "1_000", "Infinity")
_NUMERIC = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_SAFE = 2**53 - 1  # Number.MAX_SAFE_INTEGER


def snake_case(name: str) -> str:
    """Upstream's toSnakeCaseKey: ``sessionKey`` -> ``session_key``."""
    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


class SearchArgs(NamedTuple):
    queries: tuple[str, ...]
    batch: bool  # `queries` was given (the batch result shape), even with one query
    session_key: str | None
    limit: int
    after: str | None = None  # a time as `search --since` takes it
    before: str | None = None
    exclude: tuple[str, ...] = ()  # sessionKeys / sessionIds, "current" as given


def _present(raw: dict[str, Any] | None, schema: dict[str, Any]) -> dict[str, Any]:
    """The arguments given, under the schema's spelling (a snake_case one yields to it, as
    upstream's readSnakeCaseParamRaw has it), nulls and blank strings dropped; a name the
    schema spells in neither case is an error."""
    allowed = schema["properties"]
    aliases = {snake_case(name): name for name in allowed if snake_case(name) != name}
    given = dict(raw or {})
    args = {}
    for name, value in given.items():
        own = aliases.get(name, name)
        if own != name and own in given:
            continue  # the schema's own spelling wins
        if not _blank(value):
            args[own] = value
    unknown = sorted(k for k in args if k not in allowed)
    if unknown:
        name = unknown[0] if len(unknown[0]) <= _SHOWN else unknown[0][:_SHOWN] + "…"
        raise UsageError(f"unknown argument: {name!r} (accepted: {', '.join(allowed)})")
    return args


def _string(args: dict[str, Any], name: str, *, required: bool = False) -> str | None:
    value = args.get(name)
    if value is None:
        if required:
            raise UsageError(f"{name} required")
        return None
    if not isinstance(value, str):
        raise UsageError(f"{name} must be a string")
    return value.strip()


def _integer(value: Any) -> int | None:
    """A safe integer (5, 5.0, "5", " 5.0 "), else None; booleans are not numbers here."""
    if isinstance(value, str) and _NUMERIC.fullmatch(value.strip()):
        value = float(value.strip())
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and -_SAFE <= value <= _SAFE:
        return value
    return None


def _whole(
    args: dict[str, Any], name: str, least: int = 1, maximum: int | None = None
) -> int | None:
    """An integer argument of at least ``least`` (1: positive, 0: non-negative)."""
    if name not in args:
        return None
    n = _integer(args[name])
    if n is None or n < least or (maximum is not None and n > maximum):
        raise UsageError(f"{name} must be a {'positive' if least else 'non-negative'} integer")
    return n


def search_args(raw: dict[str, Any] | None) -> SearchArgs:
    args = _present(raw, schemas.SEARCH_INPUT)
    query = _string(args, "query")
    limit = _whole(args, "limit", maximum=schemas.SEARCH_INPUT["properties"]["limit"]["maximum"])
    session = _string(args, "sessionKey")
    if "queries" in args:
        if query is not None:
            raise UsageError("use query or queries, not both")
        queries = read_queries(args["queries"])
    else:
        if query is None or not query.strip():
            raise UsageError("query must not be empty")
        if len(query.strip()) > MAX_QUERY_CHARS:
            raise UsageError(f"query must not exceed {MAX_QUERY_CHARS} characters")
        queries = (query,)
    return SearchArgs(
        queries,
        "queries" in args,
        session,
        limit or schemas.DEFAULT_LIMIT,
        _time(args, "after"),
        _time(args, "before"),
        _excluded(args.get("excludeSessionKeys")),
    )


def _time(args: dict[str, Any], name: str) -> str | None:
    """A time as text for the core's window parser; a number (or numeric string) is epoch
    milliseconds, as a hit's timestamp."""
    if name not in args:
        return None
    value = args[name]
    ms = _integer(value)
    if ms is not None:
        if not 0 <= ms <= MAX_MS:
            raise UsageError(f"{name} must be a time")
        return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds")
    if not isinstance(value, str):
        raise UsageError(f"{name} must be a string")
    return value.strip()


def _excluded(raw: Any) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or len(raw) > MAX_EXCLUDED:
        raise UsageError(f"excludeSessionKeys must be an array of at most {MAX_EXCLUDED}")
    if not all(isinstance(k, str) for k in raw):
        raise UsageError("excludeSessionKeys must contain strings")
    return tuple(dict.fromkeys(k.strip() for k in raw if k.strip()))


def read_queries(raw: Any) -> tuple[str, ...]:
    """Upstream's batch rules: 1-8 non-empty strings, trimmed, none a duplicate of another
    once the index has folded it (case, accents, punctuation as a separator: batch.query_key)."""
    if not isinstance(raw, list):
        raise UsageError("queries must be an array")
    if not 1 <= len(raw) <= MAX_BATCH_QUERIES:
        raise UsageError(f"queries must contain 1-{MAX_BATCH_QUERIES} items")
    first: dict[tuple[object, ...], int] = {}
    out = []
    for i, value in enumerate(raw):
        if not isinstance(value, str) or not value.strip():
            raise UsageError(f"queries[{i}] must not be empty")
        text = value.strip()
        if len(text) > MAX_QUERY_CHARS:
            raise UsageError(f"queries[{i}] must not exceed {MAX_QUERY_CHARS} characters")
        key = batch.query_key(text)
        if key in first:
            raise UsageError(f"queries[{i}] duplicates queries[{first[key]}]")
        first[key] = i
        out.append(text)
    return tuple(out)


def history_args(raw: dict[str, Any] | None) -> HistoryOptions:
    """The call's options, as `history`'s (the caller's own are tools.py's to add)."""
    args = _present(raw, schemas.HISTORY_INPUT)
    key = _string(args, "sessionKey", required=True) or ""
    limit = _whole(args, "limit")
    offset = _whole(args, "offset", least=0)
    message_id = _string(args, "messageId")
    session_id = _string(args, "sessionId")
    if message_id is not None:
        offset = None  # upstream ignores offset whenever messageId is given (PR #141664)
    if session_id is not None and message_id is None:
        raise UsageError("sessionId requires messageId")
    tools = args.get("includeTools", False)
    if not isinstance(tools, bool):
        raise UsageError("includeTools must be a boolean")
    return HistoryOptions(
        key,
        limit=limit,
        offset=offset,
        around=message_id,
        session_id=session_id,
        include_tools=tools,
    )


class ListArgs(NamedTuple):
    limit: int
    offset: int
    search: str | None
    active_minutes: int | None


def list_args(raw: dict[str, Any] | None) -> ListArgs:
    """sessions_list's page and filters, read as upstream reads them."""
    args = _present(raw, schemas.LIST_INPUT)
    limit = _whole(args, "limit") or schemas.LIST_DEFAULT_LIMIT
    return ListArgs(
        min(limit, schemas.LIST_MAX_LIMIT),
        _whole(args, "offset", least=0) or 0,
        _string(args, "search"),
        _whole(args, "activeMinutes"),
    )
