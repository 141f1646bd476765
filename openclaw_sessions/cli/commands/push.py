"""`push`: this host's redacted index rows and session metadata, sent to the fleet's central
PostgreSQL. Only this module and remote_search.py reach openclaw_sessions.remote (and
psycopg, through it)."""

from typing import Any

import typer

from openclaw_sessions.cli import output
from openclaw_sessions.cli.completion import complete_agent
from openclaw_sessions.cli.options import JSON, QUIET, STATE_DIR, declare, examples, split
from openclaw_sessions.errors import ExitCode
from openclaw_sessions.remote.push import PushOptions, push

EPILOG = examples(
    "push postgresql://push@db.example/fleet",
    "push --host gw-eu-1 --json",
)


def run(params: dict[str, Any]) -> int:
    """Send this host's redacted index rows and session metadata to a central PostgreSQL."""
    opts, out = split(PushOptions, params)
    report = push(opts)
    if out.as_json:
        output.echo_json(report.to_json())
    elif not out.quiet:
        output.note(
            f"pushed {report.host} ({', '.join(report.agents)}) to {report.remote}:"
            f" {report.upserted} rows upserted, {report.deleted} deleted,"
            f" {report.unchanged} unchanged; sessions {report.sessions_upserted} upserted,"
            f" {report.sessions_deleted} deleted"
            + (
                f"; {report.stale} transcript(s) not indexed yet, not pushed (run"
                " `openclaw-sessions reindex`)"
                if report.stale
                else ""
            )  # fmt: skip
        )
    return int(ExitCode.OK)


command = declare(
    run,
    PushOptions,
    dsn=typer.Argument(
        metavar="DSN",
        help="The central PostgreSQL database (a libpq URI or key=value words); - or"
        " none: $OPENCLAW_SESSIONS_REMOTE.",
        show_default=False,
    ),
    state_dir=STATE_DIR,
    host=typer.Option(
        "--host", metavar="NAME", help="This gateway's name (default: the hostname)."
    ),
    agent=typer.Option(
        "--agent",
        metavar="ID",
        help="Push only this agent (default: every agent).",
        show_default=False,
        autocompletion=complete_agent,
    ),
    all_agents=typer.Option("--all-agents", help="Every agent (the default; overrides --agent)."),
    as_json=JSON,
    quiet=QUIET,
)
