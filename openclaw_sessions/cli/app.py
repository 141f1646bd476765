"""The Typer app: the commands, their arguments and options, their help. Each command hands
its parameters, by name, to run.py, which does the rest (the fast path, fastargs.py, hands the
same parameters from argv it parses itself); completions, the man page and the fast path's
option table are generated from this app (scripts/gen_docs.py)."""

from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from openclaw_sessions import __version__, settings
from openclaw_sessions.store import paths

from .completion import complete_session_key
from .parsing import Command, Group

app = typer.Typer(
    cls=Group,
    name="openclaw-sessions",
    help="Search, read and maintain OpenClaw session transcripts (per-agent SQLite + FTS5).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    pretty_exceptions_show_locals=False,
    add_completion=True,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

StateDirOpt = Annotated[
    Path | None,
    typer.Option(
        "--state-dir",
        metavar="PATH",
        help="State root (default: $OPENCLAW_STATE_DIR, else ~/.openclaw).",
        envvar=settings.STATE_DIR,
        show_envvar=True,
    ),
]
AgentOpt = Annotated[
    str, typer.Option("--agent", metavar="ID", help="Agent id.", envvar=settings.AGENT)
]
AllAgentsOpt = Annotated[bool, typer.Option("--all-agents", help="Every agent with a store.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable JSON on stdout.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing on success.")]
UtcOpt = Annotated[bool, typer.Option("--utc", help="Show times in UTC instead of local time.")]
AsOpt = Annotated[
    str | None,
    typer.Option("--as", metavar="KEY", help="Act as this session key (visibility rules apply)."),
]
VisOpt = Annotated[
    str | None,
    typer.Option(
        "--visibility",
        metavar="MODE",
        help="self|tree|agent|all (with --as; default: config, else tree).",
    ),
]
SandboxOpt = Annotated[bool, typer.Option("--sandboxed", help="Caller is sandboxed (with --as).")]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"openclaw-sessions {__version__}")
        raise typer.Exit()


def _finish(command: str, params: dict[str, Any]) -> NoReturn:
    """Run a parsed command; its exit code ends the process. ``params`` is the command
    function's locals() at its first line: exactly its parameters."""
    from . import run

    raise typer.Exit(run.run_command(command, params))


@app.callback()
def _main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """Search, read and maintain OpenClaw session transcripts from the shell."""


@app.command("import", cls=Command)
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
            " default: every agent, a lone transcript to main).",
            envvar=settings.AGENT,
            show_default=False,
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
) -> None:
    """Bulk-load legacy JSONL transcripts (idempotent, doctor-style)."""
    _finish("import", locals())


@app.command("reindex", cls=Command)
def reindex_cmd(
    state_dir: StateDirOpt = None,
    agent: AgentOpt = paths.DEFAULT_AGENT,
    all_agents: AllAgentsOpt = False,
    full: Annotated[bool, typer.Option("--full", help="Rebuild every session's index.")] = False,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
    background: Annotated[bool, typer.Option("--background", hidden=True)] = False,
) -> None:
    """Run the reconciliation in the foreground (cron-safe)."""
    _finish("reindex", locals())


@app.command("search", cls=Command)
def search_cmd(
    query: Annotated[
        str,
        typer.Argument(
            metavar="QUERY", help="Words to find (each is matched as a phrase; all must match)."
        ),
    ],
    state_dir: StateDirOpt = None,
    agent: AgentOpt = paths.DEFAULT_AGENT,
    all_agents: AllAgentsOpt = False,
    limit: Annotated[
        int, typer.Option("--limit", "-n", metavar="N", help="Most results to return.")
    ] = 10,
    session: Annotated[
        str | None,
        typer.Option(
            "--session",
            metavar="KEY|ID",
            help="Only this session key or id.",
            autocompletion=complete_session_key,
        ),
    ] = None,
    role: Annotated[
        str | None, typer.Option("--role", metavar="ROLE", help="user or assistant.")
    ] = None,
    since: Annotated[
        str | None, typer.Option("--since", metavar="WHEN", help="ISO date/time or span (7d, 12h).")
    ] = None,
    until: Annotated[
        str | None, typer.Option("--until", metavar="WHEN", help="ISO date/time or span (7d, 12h).")
    ] = None,
    order: Annotated[
        str, typer.Option("--order", metavar="ORDER", help="relevance or recent.")
    ] = "relevance",
    prefix: Annotated[
        bool, typer.Option("--prefix", help="The last term matches as a prefix.")
    ] = False,
    as_key: AsOpt = None,
    visibility: VisOpt = None,
    sandboxed: SandboxOpt = False,
    wait: Annotated[bool, typer.Option("--wait", help="Finish pending indexing first.")] = False,
    max_bytes: Annotated[
        int,
        typer.Option(
            "--max-bytes",
            metavar="BYTES",
            help="Cap on the results' JSON size (0: none; fixed at 32768 with --as).",
        ),
    ] = 32768,
    explain: Annotated[
        bool,
        typer.Option("--explain", help="Say how the query was routed and why nothing matched."),
    ] = False,
    counts: Annotated[
        bool,
        typer.Option("--count", "-c", help="Print the number of matching messages, no snippets."),
    ] = False,
    by_session: Annotated[
        bool, typer.Option("--by-session", help="With --count: one count per session.")
    ] = False,
    sessions: Annotated[
        bool,
        typer.Option("--sessions", "-l", help="Print the session keys with a match (like rg -l)."),
    ] = False,
    context: Annotated[
        int,
        typer.Option(
            "--context",
            "-C",
            metavar="N",
            help="Show N active-branch messages before and after each hit.",
        ),
    ] = 0,
    as_json: JsonOpt = False,
    jsonl: Annotated[bool, typer.Option("--jsonl", help="One result object per line.")] = False,
    utc: UtcOpt = False,
) -> None:
    """Full-text search of user and assistant text on the active branch."""
    _finish("search", locals())


@app.command("history", cls=Command)
def history_cmd(
    key: Annotated[
        str,
        typer.Argument(
            metavar="KEY",
            help="Session key, session id, or main/current.",
            autocompletion=complete_session_key,
        ),
    ],
    state_dir: StateDirOpt = None,
    agent: AgentOpt = paths.DEFAULT_AGENT,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            "-n",
            metavar="N",
            help="Most messages per page or window (default 200).",
            show_default=False,
        ),
    ] = None,
    offset: Annotated[
        int | None,
        typer.Option(
            "--offset",
            metavar="N",
            help="Skip this many newest messages (page back with nextOffset).",
            show_default=False,
        ),
    ] = None,
    around: Annotated[
        str | None,
        typer.Option(
            "--around",
            metavar="MESSAGE_ID",
            help="Window centred on this message id (a search hit's messageId).",
        ),
    ] = None,
    session_id: Annotated[
        str | None,
        typer.Option(
            "--session-id",
            metavar="ID",
            help="Generation that owns the --around message (a hit's sessionId).",
        ),
    ] = None,
    include_tools: Annotated[
        bool, typer.Option("--include-tools", help="Also show tool results (redacted, capped).")
    ] = False,
    as_key: AsOpt = None,
    visibility: VisOpt = None,
    sandboxed: SandboxOpt = False,
    as_json: JsonOpt = False,
    utc: UtcOpt = False,
) -> None:
    """Read a session's conversation on its active branch, paged or around a message."""
    _finish("history", locals())


@app.command("sessions", cls=Command)
def sessions_cmd(
    state_dir: StateDirOpt = None,
    agent: AgentOpt = paths.DEFAULT_AGENT,
    all_agents: AllAgentsOpt = False,
    since: Annotated[
        str | None,
        typer.Option("--since", metavar="WHEN", help="Updated at or after (ISO or 7d, 12h)."),
    ] = None,
    until: Annotated[
        str | None,
        typer.Option("--until", metavar="WHEN", help="Updated before (ISO or 7d, 12h)."),
    ] = None,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            "-n",
            metavar="N",
            help="Most sessions to list, newest first (default: all).",
            show_default=False,
        ),
    ] = None,
    as_key: AsOpt = None,
    visibility: VisOpt = None,
    sandboxed: SandboxOpt = False,
    as_json: JsonOpt = False,
    jsonl: Annotated[bool, typer.Option("--jsonl", help="One session object per line.")] = False,
    utc: UtcOpt = False,
) -> None:
    """List session keys, most recently updated first, with their index state."""
    _finish("sessions", locals())


@app.command("status", cls=Command)
def status_cmd(
    state_dir: StateDirOpt = None,
    agent: AgentOpt = paths.DEFAULT_AGENT,
    all_agents: AllAgentsOpt = False,
    problems: Annotated[
        bool,
        typer.Option(
            "--problems", help="List quarantined lines and known import problems (file:line)."
        ),
    ] = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Every detail of each agent's store.")
    ] = False,
    as_json: JsonOpt = False,
    utc: UtcOpt = False,
) -> None:
    """Show each agent's store and index state, with a health verdict (ok, attention, error)."""
    _finish("status", locals())


@app.command("delete", cls=Command)
def delete_cmd(
    target: Annotated[
        str,
        typer.Argument(
            metavar="TARGET", help="Session key or session id.", autocompletion=complete_session_key
        ),
    ],
    state_dir: StateDirOpt = None,
    agent: AgentOpt = paths.DEFAULT_AGENT,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Delete a session's transcripts and index rows in one transaction."""
    _finish("delete", locals())
