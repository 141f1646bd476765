"""`log`: the week at a glance: what the agents said lately, newest first, across sessions,
with no query, in the forms `search` prints (a table, plain lines, JSON, JSON lines)."""

from typing import Any

import typer

from openclaw_sessions.cli import options, output
from openclaw_sessions.cli.options import count, declare, examples, layout, split
from openclaw_sessions.cli.search_forms import Output, show
from openclaw_sessions.errors import ExitCode
from openclaw_sessions.read.activity import LogOptions, activity
from openclaw_sessions.read.models import INDEXING_NOTE, SearchResult

EPILOG = examples(
    "log",
    "log --since 1h --all-agents",
    "log --since today --role assistant --format plain | cut -f1 | sort | uniq -c",
    "log --since 7d --jsonl | jq -r .sessionKey",
)


def run(params: dict[str, Any]) -> int:
    """What the agents said lately, newest first, across sessions (no query)."""
    opts, out = split(LogOptions, Output, params)
    result = activity(opts)
    show(out, result, result.to_json(), result, notes=_footer)
    return int(ExitCode.OK if result.hits else ExitCode.NOTHING)


def _footer(result: SearchResult) -> None:
    """`log`'s notes: older messages exist, indexing is behind, or nothing in the window."""
    if result.indexing:
        output.note(f"warning: {INDEXING_NOTE}")
    if result.truncated:
        output.note("older messages exist: raise --limit, or narrow with --since")
    if not result.hits:
        output.note("no messages in that window")


command = declare(
    run,
    LogOptions,
    Output,
    state_dir=options.STATE_DIR,
    agent=options.AGENT,
    all_agents=options.ALL_AGENTS,
    limit=typer.Option(
        "--limit", "-n", metavar="N", help="Most messages to show.", callback=count()
    ),
    since=options.SINCE,
    until=options.UNTIL,
    role=options.ROLE,
    kind=options.KIND,
    not_kind=options.NOT_KIND,
    key=options.KEY_GLOB,
    as_json=options.JSON,
    jsonl=typer.Option(
        "--jsonl", help="One message object per line.", rich_help_panel=options.OUTPUT
    ),
    layout=layout("one message"),
    no_pager=options.NO_PAGER,
    pick_list=options.PICK_LIST,
    utc=options.UTC,
    time=options.TIME,
    color=options.COLOR,
)
