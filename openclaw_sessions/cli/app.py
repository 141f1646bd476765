"""The Typer app: the commands, their arguments and options, their help. Each command hands
its parameters, by name, to run.py, which does the rest (the fast path, fastargs.py, hands the
same parameters from argv it parses itself); completions, the man page and the fast path's
option table are generated from this app (scripts/gen_docs.py)."""

from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from openclaw_sessions import __version__, settings
from openclaw_sessions.policy.sanitize import MAX_BYTES
from openclaw_sessions.store import paths

from .completion import complete_agent, complete_session_key, words
from .options import (
    FILTERS,
    OUTPUT,
    AgentOpt,
    AllAgentsOpt,
    AsOpt,
    ColorOpt,
    IncludeToolsOpt,
    JsonOpt,
    KeyArg,
    QuietOpt,
    RoleOpt,
    SandboxOpt,
    SinceOpt,
    StateDirOpt,
    TimeOpt,
    UntilOpt,
    UtcOpt,
    VisOpt,
    examples,
)
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
            " default: every agent, a lone transcript to main).",
            envvar=settings.AGENT,
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
    color: ColorOpt = "auto",
) -> None:
    """Bulk-load legacy JSONL transcripts (idempotent, doctor-style)."""
    _finish("import", locals())


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
    _finish("reindex", locals())


@app.command(
    "search",
    cls=Command,
    epilog=examples(
        "search 'migration timeout' --since 7d",
        "search deploy --role assistant --format plain | cut -f1 | sort -u",
        "search invoice --json | jq -r '.results[].sessionKey'",
    ),
)
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
            rich_help_panel=FILTERS,
        ),
    ] = None,
    role: RoleOpt = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
    order: Annotated[
        str,
        typer.Option(
            "--order",
            metavar="ORDER",
            help="relevance or recent.",
            autocompletion=words("relevance", "recent"),
        ),
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
        typer.Option(
            "--count",
            "-c",
            help="Print the number of matching messages, no snippets.",
            rich_help_panel=OUTPUT,
        ),
    ] = False,
    by_session: Annotated[
        bool,
        typer.Option(
            "--by-session", help="With --count: one count per session.", rich_help_panel=OUTPUT
        ),
    ] = False,
    sessions: Annotated[
        bool,
        typer.Option(
            "--sessions",
            "-l",
            help="Print the session keys with a match (like rg -l).",
            rich_help_panel=OUTPUT,
        ),
    ] = False,
    context: Annotated[
        int,
        typer.Option(
            "--context",
            "-C",
            metavar="N",
            help="Show N active-branch messages before and after each hit.",
            rich_help_panel=OUTPUT,
        ),
    ] = 0,
    as_json: JsonOpt = False,
    jsonl: Annotated[
        bool,
        typer.Option("--jsonl", help="One result object per line.", rich_help_panel=OUTPUT),
    ] = False,
    layout: Annotated[
        str,
        typer.Option(
            "--format",
            metavar="FORMAT",
            help="table or plain (one hit per line, tab-separated); default: a table on a"
            " terminal, else plain.",
            autocompletion=words("auto", "table", "plain"),
            rich_help_panel=OUTPUT,
        ),
    ] = "auto",
    utc: UtcOpt = False,
    time: TimeOpt = "absolute",
    color: ColorOpt = "auto",
) -> None:
    """Full-text search of user and assistant text on the active branch."""
    _finish("search", locals())


@app.command(
    "history",
    cls=Command,
    epilog=examples(
        "history agent:main:main --limit 20",
        "history agent:main:main --around 78dde6c6 --time relative",
        "history agent:main:main --full > conversation.txt",
    ),
)
def history_cmd(
    key: KeyArg,
    state_dir: StateDirOpt = None,
    agent: AgentOpt = paths.DEFAULT_AGENT,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            "-n",
            metavar="N",
            help="Most messages per page or window (default 200; --full: all).",
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
    include_tools: IncludeToolsOpt = False,
    full: Annotated[
        bool,
        typer.Option(
            "--full",
            help="Every message, each whole (no text or page caps; still redacted; not with --as).",
        ),
    ] = False,
    max_bytes: Annotated[
        int,
        typer.Option(
            "--max-bytes",
            metavar="BYTES",
            help="Cap on the page's JSON size (0: none, as --full; not with --as).",
        ),
    ] = MAX_BYTES,
    as_key: AsOpt = None,
    visibility: VisOpt = None,
    sandboxed: SandboxOpt = False,
    as_json: JsonOpt = False,
    no_pager: Annotated[
        bool,
        typer.Option(
            "--no-pager",
            help="Never page (default: $PAGER, else less, on a terminal).",
            rich_help_panel=OUTPUT,
        ),
    ] = False,
    utc: UtcOpt = False,
    time: TimeOpt = "absolute",
    color: ColorOpt = "auto",
) -> None:
    """Read a session's conversation on its active branch, paged or around a message."""
    _finish("history", locals())


@app.command(
    "export",
    cls=Command,
    epilog=examples(
        "export agent:main:main -o conversation.md",
        "export agent:main:main --format json | jq '.generations[-1].messages | length'",
        "export agent:main:main --format jsonl --all-generations -o backup-dir/",
    ),
)
def export_cmd(
    key: KeyArg,
    state_dir: StateDirOpt = None,
    agent: AgentOpt = paths.DEFAULT_AGENT,
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            metavar="FORMAT",
            help="md (for people), json (the active branch, redacted) or jsonl (the"
            " transcript's lines as imported, raw: not with --as).",
            autocompletion=words("md", "json", "jsonl"),
            rich_help_panel=OUTPUT,
        ),
    ] = "md",
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            metavar="PATH",
            help="Write to this file (atomically), or into this directory; - is stdout.",
            rich_help_panel=OUTPUT,
        ),
    ] = None,
    force: Annotated[
        bool,
        typer.Option("--force", help="Replace an existing --output file.", rich_help_panel=OUTPUT),
    ] = False,
    all_generations: Annotated[
        bool,
        typer.Option(
            "--all-generations",
            help="Every generation of the key (reset archives), oldest first.",
            rich_help_panel=FILTERS,
        ),
    ] = False,
    include_tools: IncludeToolsOpt = False,
    as_key: AsOpt = None,
    visibility: VisOpt = None,
    sandboxed: SandboxOpt = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="The same as --format json.", rich_help_panel=OUTPUT)
    ] = False,
    utc: UtcOpt = False,
    time: TimeOpt = "absolute",
    color: ColorOpt = "auto",
) -> None:
    """Export a session: Markdown, JSON, or its original JSONL lines byte for byte."""
    _finish("export", locals())


@app.command(
    "sessions",
    cls=Command,
    epilog=examples(
        "sessions --since 7d",
        "sessions --all-agents --json | jq -r '.sessions[] | select(.index != \"indexed\")'",
        "sessions --as agent:main:main --visibility tree",
    ),
)
def sessions_cmd(
    state_dir: StateDirOpt = None,
    agent: AgentOpt = paths.DEFAULT_AGENT,
    all_agents: AllAgentsOpt = False,
    since: Annotated[
        str | None,
        typer.Option(
            "--since",
            metavar="WHEN",
            help="Updated at or after (ISO date/time or span: 7d, 12h).",
            rich_help_panel=FILTERS,
        ),
    ] = None,
    until: Annotated[
        str | None,
        typer.Option(
            "--until",
            metavar="WHEN",
            help="Updated before (ISO date/time or span: 7d, 12h).",
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
    utc: UtcOpt = False,
    time: TimeOpt = "absolute",
    color: ColorOpt = "auto",
) -> None:
    """List session keys, most recently updated first, with their index state."""
    _finish("sessions", locals())


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
    _finish("status", locals())


@app.command("delete", cls=Command, epilog=examples("delete agent:main:discord:direct:bob --yes"))
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
    color: ColorOpt = "auto",
) -> None:
    """Delete a session's transcripts and index rows in one transaction."""
    _finish("delete", locals())
