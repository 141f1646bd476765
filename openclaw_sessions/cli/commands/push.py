"""`push`: this host's redacted index rows and session metadata, sent to the fleet's central
PostgreSQL. Only this module and remote_search.py reach openclaw_sessions.remote (and
psycopg, through it)."""

from typing import Any, NamedTuple

import typer

from openclaw_sessions.cli import options, output
from openclaw_sessions.cli.completion import complete_agent
from openclaw_sessions.cli.options import declare, examples, split
from openclaw_sessions.errors import ExitCode
from openclaw_sessions.remote.push import PushOptions, push, retire


class Output(NamedTuple):
    """How `push` reports: the core never sees it."""

    as_json: bool = False
    quiet: bool = False


EPILOG = examples(
    "push 'postgresql://push@db.example/fleet?sslmode=verify-full&sslrootcert=/etc/ssl/fleet-ca.pem'",
    "push --host gw-eu-1 --json",
    "push --retire gw-eu-1-old",
)


def run(params: dict[str, Any]) -> int:
    """Send this host's redacted index rows and session metadata to a central PostgreSQL."""
    opts, out = split(PushOptions, Output, params)
    if opts.retire is not None:
        return _retire(opts, out)
    report = push(opts)
    for key in report.skipped:  # one bad session is its own problem: named, the rest pushed
        output.error(
            f"session {key} not pushed: its key or id holds a NUL or invalid"
            " UTF-8, which the central database cannot store",
            "rename the session in OpenClaw; the others were pushed",
        )
    if out.as_json:
        output.echo_json(report.to_json())
    elif not out.quiet:
        if opts.host is None:  # a container's hostname changes with every redeploy
            output.note(
                f"host name {output.field(report.host)} is this machine's hostname: pin it with"
                " --host NAME where that changes (containers), and retire an old one with"
                " `push --retire OLD`"
            )
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
    return int(ExitCode.PROBLEMS if report.skipped else ExitCode.OK)


def _retire(opts: PushOptions, out: Output) -> int:
    done = retire(opts)
    if out.as_json:
        output.echo_json(done.to_json())
    elif not out.quiet:
        output.note(
            f"retired {output.field(done.host)} from {done.remote}: {done.rows} rows,"
            f" {done.sessions} sessions, {done.transcripts} transcripts deleted"
            if done.known
            else f"{output.field(done.host)} has not pushed to {done.remote}: nothing to retire"
        )
    return int(ExitCode.OK if done.known else ExitCode.NOTHING)


command = declare(
    run,
    PushOptions,
    Output,
    dsn=typer.Argument(
        metavar="DSN",
        help="The central PostgreSQL database (a libpq URI or key=value words); - or"
        " none: $OPENCLAW_SESSIONS_REMOTE.",
        show_default=False,
    ),
    state_dir=options.STATE_DIR,
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
    trusted_network=options.TRUSTED_NETWORK,
    retire=typer.Option(
        "--retire",
        metavar="HOST",
        help="Instead of pushing: delete every central row of HOST (a redeployed"
        " container's old name).",
    ),
    as_json=options.JSON,
    quiet=options.QUIET,
)
