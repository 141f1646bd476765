"""Why a search found nothing, in words the caller may know, so that an agent does not take
"no results" for "never discussed".

Built from the search core's caller-safe explanation (read/search/why.py, asked with the caller's
policy: it counts only what the caller may see, never abandoned branches or hidden sessions)
and the answer's own flags. It names the caller's own query terms and counts of sessions the
caller can see, and never says whether anything else exists: the same sentence comes back
whether a term occurs only in hidden sessions or nowhere at all.
"""

from __future__ import annotations

from typing import Any

from openclaw_sessions.read.models import SearchResult

_SCOPE = (
    "Searched: user and assistant text on the active branch of the sessions this session may"
    " see; tool output, thinking and abandoned branches are not searched."
)


def _terms(explain: dict[str, Any] | None) -> tuple[list[str], list[str], list[str], int]:
    """(the query's terms, those found nowhere visible, those ignored, visible sessions
    pending) over every agent store searched."""
    every: list[str] = []
    counts: dict[str, int] = {}
    ignored: list[str] = []
    pending = 0
    for part in ((explain or {}).get("agents") or {}).values():
        every = every or [str(t.get("text", "")) for t in part.get("terms") or ()]
        pending += int(part.get("pendingSessions") or 0)
        for why in part.get("why") or ():
            term = str(why.get("term", ""))
            if "indexedMatches" in why:
                counts[term] = counts.get(term, 0) + int(why["indexedMatches"])
            elif term not in ignored:
                ignored.append(term)
    return every, [t for t, n in counts.items() if n == 0], ignored, pending


def _quoted(terms: list[str]) -> str:
    return ", ".join(f'"{t}"' for t in terms)


def empty_search(result: SearchResult, *, session_key: str | None = None) -> str:
    """The note of an answer without hits."""
    every, absent, ignored, pending = _terms(result.explain)
    lines = ["No results."]
    if not every:
        lines.append("No indexed message of the sessions this session may see matches.")
    elif absent:
        where = "the sessions" if session_key is None else "any session"
        lines.append(
            f"{_quoted(absent)} {'occurs' if len(absent) == 1 else 'occur'} in no indexed"
            f" message of {where} this session may see."
        )
    elif ignored and len(ignored) == len(every):
        lines.append("The query has no letters or digits to search for.")
    elif session_key is not None:
        lines.append(
            "Each term occurs in sessions this session may see, but no message of the session"
            " searched (sessionKey) matches all of them."
        )
    else:
        lines.append(
            "Each term occurs in sessions this session may see, but never all in one message:"
            " every whitespace-separated word must match in the same message. Try fewer"
            " words, or several shorter queries (queries)."
        )
    if ignored and len(ignored) < len(every):
        lines.append(f"Ignored (no letters or digits): {_quoted(ignored)}.")
    if pending or result.indexing:
        what = (
            f"{pending} session{'s' if pending != 1 else ''} this session may see"
            f" {'are' if pending != 1 else 'is'} still being indexed"
            if pending
            else "Indexing is in progress"
        )
        lines.append(f"{what}: retry shortly; this answer may change.")
    if result.unindexed:
        n = result.unindexed
        lines.append(
            f"{n} session{'s' if n != 1 else ''} this session may see could not be indexed"
            " and {} not searched.".format("are" if n != 1 else "is")
        )
    lines.append(_SCOPE)
    return " ".join(lines)
