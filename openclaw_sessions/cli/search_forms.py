"""Every output form of a `search` answer, written once for local search and --remote: JSON,
JSON lines, counts, session names (-0), a table or plain lines. The two differ only in the
operator's JSON (--remote adds each hit's host) and in the key people read (host/key)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from . import nul, output

if TYPE_CHECKING:
    from openclaw_sessions.read.models import SearchResult

    from .options import Output


class Answer(NamedTuple):
    result: SearchResult  # the agent's JSON, the counts, the footer
    operator: Callable[[], dict[str, Any]]  # the operator's JSON document
    human: SearchResult  # what the table and the lines show
    local: bool = True  # -0 and the pager are local search's


def local(result: SearchResult) -> Answer:
    return Answer(result, result.to_json, result)


def emit(answer: Answer, out: Output, *, caller: bool) -> None:
    """Print ``answer`` in the form ``out`` asks for; ``caller``: --as (the agent's JSON)."""
    result = answer.result
    if out.as_json:
        output.echo_json(result.agent_json() if caller else answer.operator())
        return
    from . import render

    counted = result.match_count is not None or result.sessions is not None
    if out.null and answer.local:
        nul.search(result)
        if result.sessions is None:  # --sessions: nothing to add; hits: the notes under them
            render.search_footer(result)
    elif counted and out.jsonl and not caller and not answer.local:
        for item in answer.operator().get("sessions", []):
            output.echo_json(item)
    elif counted:
        render.search_counts(answer.human, jsonl=out.jsonl)
    elif out.jsonl:
        items = answer.operator()["results"] if not caller else None
        for i, h in enumerate(result.hits):
            output.echo_json(h.agent_json() if items is None else items[i])
        render.search_footer(result)
    elif out.layout == "table" or (out.layout == "auto" and sys.stdout.isatty()):
        pager = answer.local and not (out.no_pager or out.follow)
        render.search_table(answer.human, out.times(), use_pager=pager)
    else:
        render.search_lines(answer.human, out.times())
