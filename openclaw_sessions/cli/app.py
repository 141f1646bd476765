"""The Typer app: the commands, their arguments and options, their help (the reading commands'
in read_commands.py). Each command hands its parameters, by name, to run.py, which does the
rest (the fast path, fastargs.py, hands the same parameters from argv it parses itself);
completions, the man page and the fast path's option table are generated from this app
(scripts/gen_docs.py)."""

from pathlib import Path
from typing import Annotated

import typer

from openclaw_sessions import __version__
from openclaw_sessions.store import paths

from . import daily_commands, mcp_command, read_commands, remote_cli, schema_command
from .completion import complete_agent, complete_session_key
from .options import (
    OUTPUT,
    AgentOpt,
    AllAgentsOpt,
    ColorOpt,
    JsonOpt,
    QuietOpt,
    StateDirOpt,
    TimeOpt,
    UtcOpt,
    examples,
    finish,
)
from .parsing import Command, Group

app = typer.Typer(
    cls=Group,
    name="openclaw-sessions",
    help="Search, read and maintain OpenClaw session transcripts (per-agent SQLite + FTS5).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    pretty_exceptions_show_locals=False,
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"openclaw-sessions {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """Search, read and maintain OpenClaw session transcripts from the shell."""


@app.command(
    "import",
    cls=Command,
    epilog=examples(
        "import --reindex",
        "import ~/backup/.openclaw --dry-run --json",
        "import --quiet; openclaw-sessions reindex --all-agents --quiet",
    ),
)
def import_cmd(
    sources: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="SOURCES",
            help="State roots, sessions dirs, .jsonl(.zst) files or upstream agent databases"
            " (default: every <root>/agents/*/sessions).",
            show_default=False,
        ),
    ] = None,
    state_dir: StateDirOpt = None,
    agent: Annotated[
        str | None,
        typer.Option(
            "--agent",
            metavar="ID",
            help="Import only this agent (a lone transcript or sessions dir goes to it;"
            " default: every agent, a lone transcript to main; $OPENCLAW_AGENT is not read:"
            " a cron shell that exports it still imports every agent).",
            show_default=False,
            autocompletion=complete_agent,
        ),
    ] = None,
    all_agents: Annotated[
        bool, typer.Option("--all-agents", help="Every agent (the default; overrides --agent).")
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Parse and count; write nothing.")
    ] = False,
    include_archives: Annotated[
        bool, typer.Option("--include-archives", help="Also import .deleted archives and backups.")
    ] = False,
    reindex: Annotated[
        bool, typer.Option("--reindex", help="Run the reconciliation right after.")
    ] = False,
    undelete: Annotated[
        list[str] | None,
        typer.Option(
            "--undelete",
            metavar="KEY",
            help="Bring back a session `delete` removed (repeatable; else it stays deleted).",
        ),
    ] = None,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose", "-v", help="Every issue on its own line (default: one line per kind)."
        ),
    ] = False,
    color: ColorOpt = "auto",
) -> None:
    """Bulk-load legacy JSONL transcripts (idempotent, doctor-style)."""
    finish("import", locals())


@app.command(
    "reindex", cls=Command, epilog=examples("reindex --quiet", "reindex --all-agents --full")
)
def reindex_cmd(
    state_dir: StateDirOpt = None,
    agent: AgentOpt = paths.DEFAULT_AGENT,
    all_agents: AllAgentsOpt = False,
    full: Annotated[bool, typer.Option("--full", help="Rebuild every session's index.")] = False,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
    background: Annotated[bool, typer.Option("--background", hidden=True)] = False,
    color: ColorOpt = "auto",
) -> None:
    """Run the reconciliation in the foreground (cron-safe)."""
    finish("reindex", locals())


# The reading commands, declared in read_commands.py, in their place in --help.
for _name, _epilog, _command in read_commands.COMMANDS:
    app.command(_name, cls=Command, epilog=_epilog)(_command)

# The MCP server (the [mcp] extra; imported only when it runs), after the reading commands.
app.command("mcp", cls=Command, epilog=mcp_command.EPILOG)(mcp_command.mcp_cmd)


app.command("push", cls=Command, epilog=remote_cli.PUSH_EPILOG)(remote_cli.push_cmd)


@app.command(
    "status",
    cls=Command,
    epilog=examples("status --all-agents", "status --problems", "status --json | jq .health"),
)
def status_cmd(
    state_dir: StateDirOpt = None,
    agent: AgentOpt = paths.DEFAULT_AGENT,
    all_agents: AllAgentsOpt = False,
    problems: Annotated[
        bool,
        typer.Option(
            "--problems",
            help="List quarantined lines and known import problems (file:line).",
            rich_help_panel=OUTPUT,
        ),
    ] = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose", "-v", help="Every detail of each agent's store.", rich_help_panel=OUTPUT
        ),
    ] = False,
    as_json: JsonOpt = False,
    utc: UtcOpt = False,
    time: TimeOpt = "absolute",
    color: ColorOpt = "auto",
) -> None:
    """Show each agent's store and index state, with a health verdict (ok, attention, error)."""
    finish("status", locals())


@app.command("delete", cls=Command, epilog=examples("delete agent:main:discord:direct:bob --yes"))
def delete_cmd(
    target: Annotated[
        str,
        typer.Argument(
            metavar="TARGET",
            help="Session key (the session, every generation) or session id (that generation;"
            " a unique prefix works).",
            autocompletion=complete_session_key,
        ),
    ],
    state_dir: StateDirOpt = None,
    agent: AgentOpt = paths.DEFAULT_AGENT,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    as_json: JsonOpt = False,
    color: ColorOpt = "auto",
) -> None:
    """Delete a session's transcripts and index rows in one transaction."""
    finish("delete", locals())


# pick and completions, declared in daily_commands.py, last in --help.
for _name, _epilog, _command in daily_commands.COMMANDS:
    app.command(_name, cls=Command, epilog=_epilog)(_command)

app.command("schema", cls=Command, epilog=schema_command.EPILOG)(schema_command.schema_cmd)
