"""What `search` and `history` do once their options are parsed: build the core's options, call
it once, print, return the exit code. Typer-free, so the Typer app (cli.py) and the fast path
(fastpath.py) run the very same code.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from openclaw_sessions.errors import ExitCode
from openclaw_sessions.store import paths

from . import argcheck, guard, output

if TYPE_CHECKING:
    from openclaw_sessions.read.models import SearchResult


def search(
    query: str,
    *,
    state_dir: Path | None = None,
    agent: str = paths.DEFAULT_AGENT,
    all_agents: bool = False,
    limit: int = 10,
    session: str | None = None,
    role: str | None = None,
    since: str | None = None,
    until: str | None = None,
    order: str = "relevance",
    prefix: bool = False,
    as_key: str | None = None,
    visibility: str | None = None,
    sandboxed: bool = False,
    wait: bool = False,
    max_bytes: int = 32768,
    explain: bool = False,
    as_json: bool = False,
    jsonl: bool = False,
    utc: bool = False,
) -> int:
    from openclaw_sessions.policy.when import parse_when
    from openclaw_sessions.read.search import SearchOptions, run_search
    from openclaw_sessions.store.context import Context

    ctx = Context(paths.state_root(state_dir), agent, all_agents)

    def work() -> SearchResult:
        argcheck.text("QUERY", query, empty_ok=True)  # empty: the core's own message
        argcheck.count("--limit", limit)
        argcheck.count("--max-bytes", max_bytes, least=0)
        argcheck.texts(
            [("--session", session), ("--since", since), ("--until", until), ("--as", as_key)]
        )
        opts = SearchOptions(
            query=query,
            limit=limit,
            session=session,
            role=role,
            since_ms=parse_when(since, option="--since") if since is not None else None,
            until_ms=parse_when(until, option="--until") if until is not None else None,
            order=order,
            prefix=prefix,
            as_key=as_key,
            visibility=visibility,
            sandboxed=sandboxed,
            wait=wait,
            max_bytes=max_bytes or None,
            explain=explain,
        )
        return run_search(ctx, opts)

    result = guard.guarded(as_json or jsonl, work)
    code = int(ExitCode.OK if result.hits else ExitCode.NOTHING)
    if as_json:
        output.echo_json(result.to_json())
        return code
    from . import render

    if jsonl:
        for h in result.hits:
            output.echo_json(h.to_json())
        render.search_footer(result)
    else:
        render.search_table(result, utc=utc)
    return code


def history(
    key: str,
    *,
    state_dir: Path | None = None,
    agent: str = paths.DEFAULT_AGENT,
    limit: int | None = None,
    offset: int | None = None,
    around: str | None = None,
    session_id: str | None = None,
    include_tools: bool = False,
    as_key: str | None = None,
    visibility: str | None = None,
    sandboxed: bool = False,
    as_json: bool = False,
    utc: bool = False,
) -> int:
    from openclaw_sessions.read.history import HistoryOptions, HistoryResult, read_history
    from openclaw_sessions.store.context import Context

    ctx = Context(paths.state_root(state_dir), agent)
    opts = HistoryOptions(
        target=key,
        limit=limit,
        offset=offset,
        around=around,
        session_id=session_id,
        include_tools=include_tools,
        as_key=as_key,
        visibility=visibility,
        sandboxed=sandboxed,
    )

    def work() -> HistoryResult:
        argcheck.text("KEY", key, empty_ok=True)  # empty, --around empty: the core's messages
        argcheck.text("--around", around, empty_ok=True)
        argcheck.count("--limit", limit)
        argcheck.count("--offset", offset)
        argcheck.texts([("--session-id", session_id), ("--as", as_key)])
        return read_history(ctx, opts)

    result = guard.guarded(as_json, work)
    if as_json:
        output.echo_json(result.to_json())
    else:
        from . import render

        render.history_view(result, utc=utc)
    return int(ExitCode.OK if result.messages else ExitCode.NOTHING)
