"""The MCP tools' arguments, batch rules and result caps, SDK-free: upstream's error texts, the
index's own folding for duplicate queries, and the shared 32 KiB cap of a batch."""

from __future__ import annotations

import json
import unicodedata
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openclaw_sessions.errors import UsageError
from openclaw_sessions.mcp import args, batch, schemas

CALLER_WORDS = ("as", "caller", "asKey", "visibility", "sandboxed", "agent", "agentId", "stateDir")


def test_input_schemas_are_closed_and_name_no_caller() -> None:
    for spec in schemas.TOOLS:
        schema = spec.input
        assert schema["type"] == "object"
        assert schema["additionalProperties"] is False
        assert not set(schema["properties"]) & set(CALLER_WORDS)
    assert set(schemas.SEARCH_INPUT["properties"]) == {
        "query", "queries", "sessionKey", "limit", "after", "before", "excludeSessionKeys"
    }  # fmt: skip
    assert set(schemas.HISTORY_INPUT["properties"]) == {
        "sessionKey", "limit", "offset", "includeTools", "messageId", "sessionId"
    }  # fmt: skip
    assert schemas.SEARCH_INPUT["properties"]["queries"]["maxItems"] == 8


@pytest.mark.parametrize(
    ("raw", "error"),
    [
        ({"query": "   "}, "query must not be empty"),
        ({}, "query must not be empty"),
        ({"query": "ok", "limit": 26}, "limit must be a positive integer"),
        ({"query": "ok", "limit": 0}, "limit must be a positive integer"),
        ({"query": "ok", "limit": "5x"}, "limit must be a positive integer"),
        ({"query": "ok", "limit": "0x10"}, "limit must be a positive integer"),
        ({"query": "ok", "limit": "2.5"}, "limit must be a positive integer"),
        ({"query": "ok", "limit": True}, "limit must be a positive integer"),
        ({"query": "ok", "limit": 2.5}, "limit must be a positive integer"),
        ({"query": "x" * 4097}, "query must not exceed 4096 characters"),
        ({"query": 7}, "query must be a string"),
        ({"query": "one", "queries": ["two"]}, "use query or queries, not both"),
        ({"queries": []}, "queries must contain 1-8 items"),
        ({"queries": ["angle"] * 9}, "queries must contain 1-8 items"),
        ({"queries": "angle"}, "queries must be an array"),
        ({"queries": ["valid", "   "]}, "queries[1] must not be empty"),
        ({"queries": ["valid", 3]}, "queries[1] must not be empty"),
        ({"queries": ["x" * 4097]}, "queries[0] must not exceed 4096 characters"),
        ({"query": "ok", "sessionKey": 1}, "sessionKey must be a string"),
        ({"query": "ok", "as": "agent:main:main"}, "unknown argument: 'as'"),
        ({"query": "ok", "agent_id": "ops"}, "unknown argument: 'agent_id'"),
        ({"query": "ok", "visibility": "all"}, "unknown argument: 'visibility'"),
        ({"query": "ok", "_meta": {}}, "unknown argument: '_meta'"),
    ],
)
def test_search_argument_errors(raw: dict[str, Any], error: str) -> None:
    with pytest.raises(UsageError) as exc:
        args.search_args(raw)
    assert exc.value.message.startswith(error)


def test_search_arguments() -> None:
    assert args.search_args({"query": " hi ", "limit": 3.0, "sessionKey": None}) == (
        args.SearchArgs(("hi",), False, None, 3)  # trimmed, as upstream reads it
    )
    got = args.search_args({"queries": [" first angle ", "second angle"], "sessionKey": "main"})
    assert got == args.SearchArgs(("first angle", "second angle"), True, "main", 10)
    assert args.search_args({"queries": ["one"]}).batch  # a batch of one keeps the batch shape


@pytest.mark.parametrize(
    "pair",
    [
        ("same normalized query", " same normalized query "),
        ("same spaced query", "same   spaced\nquery"),
        ("Deployment plan", "deployment plan"),
        ("café launch", "cafe launch"),
        ("release-plan", "release.plan"),
        ("ΟΣ", "οσ"),
        ("ος", "οσ"),
        ("résumé", unicodedata.normalize("NFD", "résumé")),
        ("数据库 迁移", "数据库  迁移"),
    ],
)
def test_duplicates_after_the_index_folding(pair: tuple[str, str]) -> None:
    with pytest.raises(UsageError, match=r"^queries\[1\] duplicates queries\[0\]$"):
        args.read_queries(list(pair))


@pytest.mark.parametrize(
    "pair",
    [
        ("release plan", "release-plan"),
        ("plan release", "release plan"),
        ("数据库", "数据"),
        ("ı", "i"),  # unicode61 keeps the dotless i apart, as upstream's test expects
    ],
)
def test_different_searches_are_not_duplicates(pair: tuple[str, str]) -> None:
    assert args.read_queries(list(pair)) == pair


def test_query_key_is_the_index_tokenization() -> None:
    assert batch.query_key("Café-Launch now") == batch.query_key("cafe.launch NOW")
    assert batch.query_key("cafe launch now") != batch.query_key("cafe-launch now")


@pytest.mark.parametrize(
    ("raw", "error"),
    [
        ({}, "sessionKey required"),
        ({"sessionKey": "main", "limit": 0}, "limit must be a positive integer"),
        ({"sessionKey": "main", "offset": -1}, "offset must be a non-negative integer"),
        ({"sessionKey": "main", "sessionId": "s"}, "sessionId requires messageId"),
        ({"sessionKey": "main", "messageId": " ", "sessionId": "s"}, "sessionId requires"),
        ({"sessionKey": "main", "includeTools": "yes"}, "includeTools must be a boolean"),
        ({"sessionKey": "main", "agent": "ops"}, "unknown argument: 'agent'"),
        ({"sessionKey": "main", "x" * 500: 1}, "unknown argument: '" + "x" * 64 + "…'"),
    ],
)
def test_history_argument_errors(raw: dict[str, Any], error: str) -> None:
    with pytest.raises(UsageError) as exc:
        args.history_args(raw)
    assert exc.value.message.startswith(error)


def _hit(i: int, size: int = 10, score: float = 1.0) -> dict[str, Any]:
    return {
        "sessionKey": "agent:main:main",
        "timestamp": 123,
        "role": "assistant",
        "snippet": "matching text é",
        "score": score,
        "sessionId": "s",
        "messageId": f"{i}-" + "x" * size,
    }


def _naive(states: list[batch.QueryState], limit: int, max_bytes: int) -> dict[str, Any]:
    """Upstream's capBatchSearchHits as written: re-measure the whole sizing payload."""
    every = set(range(len(states)))
    results: list[dict[str, Any]] = []
    cut: set[int] = set()
    for hit_index in range(limit):
        for qi, s in enumerate(states):
            cands = s.hits[:limit]
            if hit_index >= len(cands):
                continue
            results.append({**cands[hit_index], "queryIndex": qi})
            if batch.pretty_bytes(batch._payload(states, results, limit, every)) > max_bytes:
                results.pop()
                cut.add(qi)
    return batch._payload(states, results, limit, cut)


def test_a_large_batch_is_capped_fairly() -> None:
    hits = [_hit(i, 1200, 25 - i) for i in range(25)]
    states = [batch.QueryState(hits, False, False), batch.QueryState(hits, False, False)]
    got = batch.cap_batch(states, 25, 32 * 1024)
    assert batch.pretty_bytes(got) <= 32 * 1024
    assert got["truncatedQueries"] == [0, 1]
    assert got["truncated"] is True
    assert [h["queryIndex"] for h in got["results"][:4]] == [0, 1, 0, 1]
    assert got == _naive(states, 25, 32 * 1024)


def test_batch_markers_and_key_order() -> None:
    states = [
        batch.QueryState([_hit(0)], True, False),
        batch.QueryState([], False, True),
        batch.QueryState([_hit(1), _hit(2)], False, False),
    ]
    got = batch.cap_batch(states, 1, 32 * 1024)
    assert list(got) == [
        "results", "batch", "queryCount", "indexing", "indexingQueries", "warning",
        "truncated", "truncatedQueries",
    ]  # fmt: skip
    assert got["indexingQueries"] == [0]
    assert got["truncatedQueries"] == [1, 2]
    assert [h["queryIndex"] for h in got["results"]] == [0, 2]
    quiet = batch.cap_batch([batch.QueryState([_hit(0)], False, False)], 5, 32 * 1024)
    assert quiet == {"results": [{**_hit(0), "queryIndex": 0}], "batch": True, "queryCount": 1}


@settings(max_examples=60, deadline=None)
@given(
    sizes=st.lists(st.lists(st.integers(0, 3000), max_size=12), min_size=1, max_size=8),
    limit=st.integers(1, 25),
    cap=st.integers(300, 40_000),
    text=st.text(max_size=20),
)
def test_incremental_cap_is_upstreams(
    sizes: list[list[int]], limit: int, cap: int, text: str
) -> None:
    states = [
        batch.QueryState(
            [{**_hit(i, n), "snippet": text} for i, n in enumerate(q)], n % 2 == 0, False
        )
        for n, q in enumerate(sizes)
    ]
    got = batch.cap_batch(states, limit, cap)
    assert got == _naive(states, limit, cap)
    if got["results"]:
        assert batch.pretty_bytes(got) <= cap
    assert json.loads(json.dumps(got)) == got


def _explained(terms: list[str], why: list[dict[str, Any]], pending: int = 0) -> Any:
    from openclaw_sessions.read.models import SearchResult

    part = {"terms": [{"text": t} for t in terms], "pendingSessions": pending, "why": why}
    return SearchResult((), explain={"agents": {"main": part, "ops": {**part, "why": why}}})


def test_empty_notes_name_only_the_callers_terms_and_counts() -> None:
    from openclaw_sessions.mcp.reasons import empty_search

    only_marks = _explained(["--"], [{"term": "--", "reason": "no letters or digits: ignored"}])
    assert "no letters or digits to search for" in empty_search(only_marks)
    mixed = _explained(
        ["alpha", "--"],
        [{"term": "alpha", "indexedMatches": 0}, {"term": "--", "reason": "ignored"}],
        pending=1,
    )
    note = empty_search(mixed._replace(unindexed=2))
    assert '"alpha" occurs in no indexed message of the sessions this session may see.' in note
    assert 'Ignored (no letters or digits): "--".' in note
    assert "2 sessions this session may see are still being indexed" in note  # both stores
    assert "2 sessions this session may see could not be indexed and are not searched." in note
    # a term found in one store and not the other occurs: the counts are summed
    split = _explained(
        ["a", "b"], [{"term": "a", "indexedMatches": 1}, {"term": "b", "indexedMatches": 2}]
    )
    assert "never all in one message" in empty_search(split)
    assert "the session searched (sessionKey)" in empty_search(split, session_key="main")
