"""The ``queries`` batch of ``sessions_search`` (upstream's proposal, issue #135679, and its
sessions-search-batch): when two queries are the same search, and how the hits of several
queries share one answer.

Two queries are duplicates when the index would run the same search for both: each
whitespace-separated term tokenised by the index's own tokenizer (SQLite FTS5
``unicode61 remove_diacritics 2``: case and accents folded, punctuation a separator; CJK runs
as they are routed, policy/fts_query.py), so the verdict is the index's, not an imitation.

The answer interleaves the queries (the first hit of each, then the second of each, ...),
each hit tagged with its ``queryIndex``, and keeps the whole pretty-printed payload within the
32 KiB cap, reserving room for every truncation marker so the final answer cannot outgrow it.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from openclaw_sessions.policy import fts_query
from openclaw_sessions.read.models import INDEXING_WARNING
from openclaw_sessions.read.tokens import tokens


class QueryState(NamedTuple):
    """One query's visible hits (upstream's JSON items, best first) and flags."""

    hits: list[dict[str, Any]]
    indexing: bool
    truncated: bool  # more hits than the limit, or cut by the search's own caps


def query_key(query: str) -> tuple[object, ...]:
    """What the index searches for ``query``: per whitespace term, its routed parts, the
    primary parts as the tokenizer folds them."""
    plan = fts_query.build(query)
    texts = [t.text for t in plan.terms if t.route == "primary"]
    folds = iter(tokens(texts))
    out: list[object] = []
    for raw in plan.query.split():
        parts: list[tuple[str, tuple[str, ...]]] = []
        for t in fts_query.build(raw).terms:
            folded = next(folds) if t.route == "primary" else (t.text,)
            parts.append((t.route, folded if t.route != "ignored" else ()))
        out.append(tuple(parts))
    return tuple(out)


def _payload(
    states: list[QueryState], results: list[dict[str, Any]], limit: int, cut: set[int]
) -> dict[str, Any]:
    """Upstream's batch result (its key order): results, batch, queryCount, then the
    indexing and truncation markers, each only when some query has it."""
    indexing = [i for i, s in enumerate(states) if s.indexing]
    truncated = [i for i, s in enumerate(states) if s.truncated or len(s.hits) > limit or i in cut]
    out: dict[str, Any] = {"results": results, "batch": True, "queryCount": len(states)}
    if indexing:
        out.update(indexing=True, indexingQueries=indexing, warning=INDEXING_WARNING)
    if truncated:
        out.update(truncated=True, truncatedQueries=truncated)
    return out


def pretty_bytes(obj: Any) -> int:
    """UTF-8 size of ``JSON.stringify(obj, null, 2)`` (what upstream caps)."""
    return len(json.dumps(obj, indent=2, ensure_ascii=False).encode("utf-8"))


def _item_bytes(item: dict[str, Any]) -> int:
    """An item's bytes inside the results array: its pretty text, each line indented by the
    array's depth in the payload (two levels of two spaces)."""
    text = json.dumps(item, indent=2, ensure_ascii=False)
    return len(text.encode("utf-8")) + 4 * (text.count("\n") + 1)


def cap_batch(states: list[QueryState], limit: int, max_bytes: int) -> dict[str, Any]:
    """Interleave the queries' first ``limit`` hits while the pretty-printed payload, with
    every query's truncation marker reserved, stays within ``max_bytes``; a hit that does not
    fit is left out and marks its query truncated (a later, smaller one may still fit)."""
    every = set(range(len(states)))
    # The payload's size is its size with no results plus the results array's growth:
    # "[]" becomes "[\n" + items joined by ",\n" + "\n  ]" (the array sits at depth 1).
    base = pretty_bytes(_payload(states, [], limit, every)) - 2
    results: list[dict[str, Any]] = []
    items = 0  # bytes of the kept items, with their separators
    cut: set[int] = set()
    for hit_index in range(limit):
        for qi, state in enumerate(states):
            if hit_index >= min(limit, len(state.hits)):
                continue
            item = {**state.hits[hit_index], "queryIndex": qi}
            grown = items + _item_bytes(item) + (2 if results else 0)
            if base + 2 + grown + 4 > max_bytes:
                cut.add(qi)
                continue
            results.append(item)
            items = grown
    return _payload(states, results, limit, cut)
