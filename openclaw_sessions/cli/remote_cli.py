"""The fleet's command line: `push` (its parameters and help, and how it runs) and the options
search declares for the fleet (`--remote`, `--host`, an `--agent` that knows whether it was
given); the fleet's search runs in remote_search.py (Typer-free, for the fast path). Only
these two modules reach openclaw_sessions.remote (and psycopg, through it)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from openclaw_sessions import settings
from openclaw_sessions.errors import ExitCode

from . import guard, output, remote_search
from .completion import complete_agent
from .options import JsonOpt, QuietOpt, StateDirOpt, examples


def agent_source(ctx: typer.Context, param: typer.CallbackParam, value: str) -> str:
    """search --agent's callback: remember whether the value is its default."""
    source = ctx.get_parameter_source(param.name or "agent")
    remote_search.AGENT_GIVEN[:] = [source is not None and source.name != "DEFAULT"]
    return value


# search's options for the fleet (read_commands.py declares the command with them)
REMOTE = "Fleet (a central database: see push)"
SearchAgentOpt = Annotated[
    str,
    typer.Option(
        "--agent",
        metavar="ID",
        help="Agent id (with --remote: only this agent's rows; default there: every agent).",
        envvar=settings.AGENT,
        autocompletion=complete_agent,
        callback=agent_source,
    ),
]
RemoteOpt = Annotated[
    str | None,
    typer.Option(
        "--remote",
        metavar="DSN",
        help="Search the central PostgreSQL database instead (- : $OPENCLAW_SESSIONS_REMOTE).",
        rich_help_panel=REMOTE,
    ),
]
HostsOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--host",
        metavar="NAME",
        help="With --remote: only this host (repeatable); with --as, the caller's host.",
        rich_help_panel=REMOTE,
    ),
]


PUSH_EPILOG = examples(
    "push postgresql://push@db.example/fleet",
    "push --host gw-eu-1 --json",
)


def push_cmd(
    dsn: Annotated[
        str | None,
        typer.Argument(
            metavar="DSN",
            help="The central PostgreSQL database (a libpq URI or key=value words); - or"
            " none: $OPENCLAW_SESSIONS_REMOTE.",
            show_default=False,
        ),
    ] = None,
    state_dir: StateDirOpt = None,
    host: Annotated[
        str | None,
        typer.Option("--host", metavar="NAME", help="This gateway's name (default: the hostname)."),
    ] = None,
    agent: Annotated[
        str | None,
        typer.Option(
            "--agent",
            metavar="ID",
            help="Push only this agent (default: every agent).",
            show_default=False,
            autocompletion=complete_agent,
        ),
    ] = None,
    all_agents: Annotated[
        bool, typer.Option("--all-agents", help="Every agent (the default; overrides --agent).")
    ] = False,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Send this host's redacted index rows and session metadata to a central PostgreSQL."""
    raise typer.Exit(run_push(locals()))


def run_push(params: dict[str, Any]) -> int:
    from openclaw_sessions.remote.push import PushOptions, PushReport, push

    from .run import split

    opts, out = split(PushOptions, params)
    report: PushReport = guard.guarded(out.as_json, lambda: push(opts))
    if out.as_json:
        output.echo_json(report.to_json())
    elif not out.quiet:
        from . import render

        render.info(
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


__all__ = ["push_cmd", "run_push"]
