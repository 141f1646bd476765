"""`log`: the week at a glance: what the agents said lately, newest first, across sessions,
with no query, in the forms `search` prints (a table, plain lines, JSON, JSON lines)."""

import sys
from typing import Any

import typer

from openclaw_sessions.cli import output
from openclaw_sessions.cli.options import (
    AGENT,
    ALL_AGENTS,
    COLOR,
    JSON,
    KEY_GLOB,
    KIND,
    NO_PAGER,
    NOT_KIND,
    OUTPUT,
    PICK_LIST,
    ROLE,
    SINCE,
    STATE_DIR,
    TIME,
    UNTIL,
    UTC,
    count,
    declare,
    examples,
    layout,
    split,
)
from openclaw_sessions.errors import ExitCode
from openclaw_sessions.read.activity import LogOptions, activity
from openclaw_sessions.read.models import SearchResult

EPILOG = examples(
    "log",
    "log --since 1h --all-agents",
    "log --since today --role assistant --format plain | cut -f1 | sort | uniq -c",
    "log --since 7d --jsonl | jq -r .sessionKey",
)


def run(params: dict[str, Any]) -> int:
    """What the agents said lately, newest first, across sessions (no query)."""
    opts, out = split(LogOptions, params)
    result = activity(opts)
    code = int(ExitCode.OK if result.hits else ExitCode.NOTHING)
    if out.as_json:
        output.echo_json(result.to_json())
        return code
    from openclaw_sessions.cli import render

    if out.jsonl:
        for h in result.hits:
            output.echo_json(h.to_json())
    elif out.layout == "table" or (out.layout == "auto" and sys.stdout.isatty()):
        render.search_table(result, out.times(), footer=False, use_pager=not out.no_pager)
    else:
        render.search_lines(result, out.times(), footer=False, pick=out.pick_list)
    _footer(result)
    return code


def _footer(result: SearchResult) -> None:
    """`log`'s notes: older messages exist, indexing is behind, or nothing in the window."""
    if result.indexing:
        from openclaw_sessions.read.models import INDEXING_NOTE

        output.note(f"warning: {INDEXING_NOTE}")
    if result.truncated:
        output.note("older messages exist: raise --limit, or narrow with --since")
    if not result.hits:
        output.note("no messages in that window")


command = declare(
    run,
    LogOptions,
    state_dir=STATE_DIR,
    agent=AGENT,
    all_agents=ALL_AGENTS,
    limit=typer.Option(
        "--limit", "-n", metavar="N", help="Most messages to show.", callback=count()
    ),
    since=SINCE,
    until=UNTIL,
    role=ROLE,
    kind=KIND,
    not_kind=NOT_KIND,
    key=KEY_GLOB,
    as_json=JSON,
    jsonl=typer.Option("--jsonl", help="One message object per line.", rich_help_panel=OUTPUT),
    layout=layout("one message"),
    no_pager=NO_PAGER,
    pick_list=PICK_LIST,
    utc=UTC,
    time=TIME,
    color=COLOR,
)
