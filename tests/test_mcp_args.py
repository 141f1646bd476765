"""The tool-argument readers accept what upstream's readers accept (readToolStringParam,
readPositiveIntegerParam: snake_case spellings, numeric strings, blanks as absent, trimmed
strings) and nothing that names a caller; the search extensions (after, before,
excludeSessionKeys) are read as the core's window and exclusion."""

from __future__ import annotations

from typing import Any

import pytest

from openclaw_sessions.errors import UsageError
from openclaw_sessions.mcp import args, schemas


@pytest.mark.parametrize(
    ("name", "snake"),
    [("sessionKey", "session_key"), ("messageId", "message_id"), ("includeTools", "include_tools"),
     ("excludeSessionKeys", "exclude_session_keys"), ("activeMinutes", "active_minutes")],
)  # fmt: skip
def test_snake_case_is_upstreams(name: str, snake: str) -> None:
    assert args.snake_case(name) == snake


def test_history_accepts_upstreams_spellings_and_numeric_strings() -> None:
    got = args.history_args(
        {"session_key": " agent:main:main ", "limit": " 5 ", "message_id": "m1", "session_id": ""}
    )
    assert (got.key, got.limit, got.around, got.session_id) == ("agent:main:main", 5, "m1", None)
    # the schema's own spelling wins over the snake_case one, as in readSnakeCaseParamRaw
    both = args.history_args({"sessionKey": "agent:main:a", "session_key": "agent:main:b"})
    assert both.key == "agent:main:a"
    assert args.history_args({"sessionKey": "k", "limit": "5.0", "offset": "0"}).limit == 5


@pytest.mark.parametrize("blank", ["", "   ", None])
def test_a_blank_value_is_an_absent_one(blank: Any) -> None:
    got = args.search_args({"query": "ok", "limit": blank, "sessionKey": blank, "after": blank})
    assert (got.limit, got.session_key, got.after) == (schemas.DEFAULT_LIMIT, None, None)
    with pytest.raises(UsageError, match="sessionKey required"):
        args.history_args({"sessionKey": blank})


def test_caller_fields_stay_refused_in_every_spelling() -> None:
    for name in ("as", "agentId", "agent_id", "visibility", "sandboxed", "state_dir"):
        with pytest.raises(UsageError, match="unknown argument"):
            args.search_args({"query": "ok", name: "x"})


def test_query_schema_refuses_a_blank_query_as_upstreams() -> None:
    import re

    pattern = schemas.SEARCH_INPUT["properties"]["query"]["pattern"]
    assert pattern == "\\S"
    assert re.search(pattern, "  a ")
    assert not re.search(pattern, " \t\n")


def test_search_extensions() -> None:
    got = args.search_args(
        {"query": "ok", "after": "2026-05-01", "before": 1777593600000,
         "excludeSessionKeys": ["current", " agent:main:x ", "agent:main:x", ""]}
    )  # fmt: skip
    assert got.after == "2026-05-01"
    assert got.before == "2026-05-01T00:00:00.000+00:00"
    assert got.exclude == ("current", "agent:main:x")
    with pytest.raises(UsageError, match="excludeSessionKeys"):
        args.search_args({"query": "ok", "excludeSessionKeys": "agent:main:x"})
    with pytest.raises(UsageError, match="excludeSessionKeys"):
        args.search_args({"query": "ok", "excludeSessionKeys": ["k"] * 201})
