"""`search`'s output forms, one registry for the local and the remote answer and for `log`: its
Output (what the command line says of them) and show, which prints an answer in the form asked
for (a table, plain lines, JSON, JSON lines, counts, session keys, -0), local or --remote
(remote_search.py) alike, so that a form is written once."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from . import output
from .options import times

if TYPE_CHECKING:
    from openclaw_sessions.read.models import SearchResult


class Output(NamedTuple):
    """How `search` (and `log`) print, and where search looks with --remote: the core never
    sees it."""

    as_json: bool = False
    jsonl: bool = False
    layout: str = "auto"  # --format: auto | table | plain
    follow: bool = False  # then each new hit, until Ctrl-C
    null: bool = False  # -0: the names NUL-terminated (nul.py)
    no_pager: bool = False
    pick_list: bool = False  # the lines `pick` shows fzf (render.pick_line)
    utc: bool = False
    time: str = "absolute"  # absolute | relative
    color: str = "auto"  # auto | always | never
    remote: str | None = None  # --remote DSN: the central database
    hosts: list[str] | None = None  # --host NAME…, with --remote
    trusted_network: bool = False  # --remote: no TLS check (remote/dsn.py)
    given: frozenset[str] = frozenset()  # the parameters the caller gave (options.declare)


def show(
    out: Output,
    result: SearchResult,
    doc: dict[str, Any],
    people: SearchResult,
    *,
    caller: bool = False,
    notes: Callable[[SearchResult], None] | None = None,
) -> None:
    """One answer in the output form asked for, local or --remote (remote_search.py): ``doc``
    is the operator's JSON and ``people`` what tables and lines show (remote: each hit with
    its host); an agent (``caller``) gets upstream's JSON of ``result``. ``notes`` print what
    stands under the hits on stderr (`log`'s own); by default search's (render.search_footer)."""
    if out.as_json:
        output.echo_json(result.agent_json() if caller else doc)
        return
    from openclaw_sessions.cli import render, render_hits

    footer = notes or render.search_footer

    if out.null:
        from . import nul  # -0 only: a rare form

        nul.search(result)
        if result.sessions is None:  # --sessions: nothing to add; hits: the notes under them
            footer(result)
    elif result.match_count is not None or result.sessions is not None:
        lines = doc.get("sessions", [{"count": result.match_count}]) if out.jsonl else None
        render.search_counts(people, lines)
    elif out.jsonl:
        for h, item in zip(result.hits, doc["results"], strict=True):
            output.echo_json(h.agent_json() if caller else item)
        footer(result)
    elif out.layout == "table" or (out.layout == "auto" and sys.stdout.isatty()):
        render_hits.search_table(people, times(out), use_pager=not (out.no_pager or out.follow))
        footer(people)
    else:
        render.search_lines(people, times(out), pick=out.pick_list)
        if notes or not out.pick_list:  # search's fzf lines (pick) go bare; log's keep its notes
            footer(people)
