"""`sessions`: the session keys, most recently updated first, with their index state."""

from typing import Any, NamedTuple

import typer

from openclaw_sessions.cli import nul, options, output
from openclaw_sessions.cli.options import count, declare, examples, null, split, text, times
from openclaw_sessions.errors import ExitCode
from openclaw_sessions.read.listing import SessionsOptions, list_sessions


class Output(NamedTuple):
    """How `sessions` prints: the core never sees it."""

    as_json: bool = False
    jsonl: bool = False
    null: bool = False  # -0: the keys NUL-terminated (nul.py)
    no_pager: bool = False
    utc: bool = False
    time: str = "absolute"  # absolute | relative
    color: str = "auto"  # auto | always | never


EPILOG = examples(
    "sessions --since 7d",
    "sessions --all-agents --json | jq -r '.sessions[] | select(.index != \"indexed\")'",
    "sessions --as agent:main:main --visibility tree",
)


def run(params: dict[str, Any]) -> int:
    """List session keys, most recently updated first, with their index state."""
    opts, out = split(SessionsOptions, Output, params)
    if out.null:
        nul.check(params)
    listed = list_sessions(opts)
    if out.as_json:
        doc: dict[str, Any] = {"sessions": [r.to_json() for r in listed.rows]}
        if listed.truncated:
            doc["truncated"] = True
        output.echo_json(doc)
    elif out.jsonl:
        for r in listed.rows:
            output.echo_json(r.to_json())
    elif out.null:
        nul.sessions(listed)
    else:
        from openclaw_sessions.cli import render_sessions

        render_sessions.sessions_list(listed, times(out), use_pager=not out.no_pager)
    if listed.truncated and not out.as_json:
        output.note("more sessions exist: raise --limit")
    return int(ExitCode.OK if listed.rows else ExitCode.NOTHING)


command = declare(
    run,
    SessionsOptions,
    Output,
    state_dir=options.STATE_DIR,
    agent=options.AGENT,
    all_agents=options.ALL_AGENTS,
    since=typer.Option(
        "--since",
        metavar="WHEN",
        help="Updated at or after (ISO date/time, today, yesterday, or a span: 7d, '2 weeks ago').",
        callback=text(),
        rich_help_panel=options.FILTERS,
    ),
    until=typer.Option(
        "--until",
        metavar="WHEN",
        help="Updated before (ISO date/time, today, yesterday, or a span: 7d, '2 weeks ago').",
        callback=text(),
        rich_help_panel=options.FILTERS,
    ),
    kind=options.KIND,
    not_kind=options.NOT_KIND,
    key=options.KEY_GLOB,
    limit=typer.Option(
        "--limit",
        "-n",
        metavar="N",
        help="Most sessions to list, newest first (default: all).",
        callback=count(),
        show_default=False,
    ),
    as_key=options.AS,
    visibility=options.VISIBILITY_MODE,
    sandboxed=options.SANDBOXED,
    as_json=options.JSON,
    jsonl=typer.Option(
        "--jsonl", help="One session object per line.", rich_help_panel=options.OUTPUT
    ),
    null=null("each session key"),
    no_pager=options.NO_PAGER,
    utc=options.UTC,
    time=options.TIME,
    color=options.COLOR,
)
