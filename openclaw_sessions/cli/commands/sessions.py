"""`sessions`: the session keys, most recently updated first, with their index state."""

from typing import Annotated, Any

import typer

from openclaw_sessions.cli import nul, output
from openclaw_sessions.cli.options import (
    FILTERS,
    OUTPUT,
    AgentOpt,
    AllAgentsOpt,
    AsOpt,
    ColorOpt,
    JsonOpt,
    NullOpt,
    SandboxOpt,
    StateDirOpt,
    TimeOpt,
    UtcOpt,
    VisOpt,
    count,
    examples,
    split,
    text,
)
from openclaw_sessions.errors import ExitCode
from openclaw_sessions.read.listing import SessionsOptions, list_sessions
from openclaw_sessions.store import paths

EPILOG = examples(
    "sessions --since 7d",
    "sessions --all-agents --json | jq -r '.sessions[] | select(.index != \"indexed\")'",
    "sessions --as agent:main:main --visibility tree",
)


def command(
    state_dir: StateDirOpt = None,
    agent: AgentOpt = paths.DEFAULT_AGENT,
    all_agents: AllAgentsOpt = False,
    since: Annotated[
        str | None,
        typer.Option(
            "--since",
            metavar="WHEN",
            help="Updated at or after (ISO date/time, today, yesterday, or a span: 7d,"
            " '2 weeks ago').",
            callback=text(),
            rich_help_panel=FILTERS,
        ),
    ] = None,
    until: Annotated[
        str | None,
        typer.Option(
            "--until",
            metavar="WHEN",
            help="Updated before (ISO date/time, today, yesterday, or a span: 7d, '2 weeks ago').",
            callback=text(),
            rich_help_panel=FILTERS,
        ),
    ] = None,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            "-n",
            metavar="N",
            help="Most sessions to list, newest first (default: all).",
            callback=count(),
            show_default=False,
        ),
    ] = None,
    as_key: AsOpt = None,
    visibility: VisOpt = None,
    sandboxed: SandboxOpt = False,
    as_json: JsonOpt = False,
    jsonl: Annotated[
        bool,
        typer.Option("--jsonl", help="One session object per line.", rich_help_panel=OUTPUT),
    ] = False,
    null: NullOpt = False,
    utc: UtcOpt = False,
    time: TimeOpt = "absolute",
    color: ColorOpt = "auto",
) -> int:
    """List session keys, most recently updated first, with their index state."""
    return run(locals())


def run(params: dict[str, Any]) -> int:
    opts, out = split(SessionsOptions, params)
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

        render_sessions.sessions_list(listed, out.times())
    if listed.truncated and not out.as_json:
        from openclaw_sessions.cli import render

        render.info("more sessions exist: raise --limit")
    return int(ExitCode.OK if listed.rows else ExitCode.NOTHING)
