"""The reading commands' parameters and help: search, history, export and sessions (app.py
registers them, with their examples, in their place in --help)."""

from collections.abc import Callable
from typing import Annotated, Any

import typer

from openclaw_sessions.policy.sanitize import MAX_BYTES
from openclaw_sessions.store import paths

from .completion import complete_session_key, words
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
    NullOpt,
    RoleOpt,
    SandboxOpt,
    SinceOpt,
    StateDirOpt,
    TimeOpt,
    UntilOpt,
    UtcOpt,
    VisOpt,
    examples,
    finish,
)
from .remote_cli import HostsOpt, RemoteOpt, SearchAgentOpt


def search_cmd(
    query: Annotated[
        str,
        typer.Argument(
            metavar="QUERY",
            help='Words to find, all of them; "exact phrase", a OR b, -word (leave out),'
            " word* (prefix), parentheses (--literal: every word as text).",
        ),
    ],
    state_dir: StateDirOpt = None,
    agent: SearchAgentOpt = paths.DEFAULT_AGENT,
    all_agents: AllAgentsOpt = False,
    limit: Annotated[
        int, typer.Option("--limit", "-n", metavar="N", help="Most results to return.")
    ] = 10,
    session: Annotated[
        str | None,
        typer.Option(
            "--session",
            metavar="KEY|ID",
            help="Only this session key or id (or a unique prefix of an id).",
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
            help="relevance (by session, near-duplicates folded, automation demoted), recent,"
            " or upstream (bm25 then time, as --as).",
            autocompletion=words("relevance", "recent", "upstream"),
        ),
    ] = "relevance",
    prefix: Annotated[
        bool, typer.Option("--prefix", help="The last term matches as a prefix.")
    ] = False,
    literal: Annotated[
        bool,
        typer.Option("--literal", help="No operators: every word is literal text, as with --as."),
    ] = False,
    relax: Annotated[
        bool,
        typer.Option(
            "--relax", help="When nothing matches every word, show (labelled) what matches most."
        ),
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
            help="Cap on the results' JSON size (default 0: none; fixed at 32768 with --as).",
        ),
    ] = 0,
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
    null: NullOpt = False,
    utc: UtcOpt = False,
    time: TimeOpt = "absolute",
    color: ColorOpt = "auto",
    remote: RemoteOpt = None,
    hosts: HostsOpt = None,
) -> None:
    """Full-text search of user and assistant text on the active branch."""
    finish("search", locals())


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
            help="Generation that owns the --around message (a hit's sessionId, or a prefix).",
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
    follow: Annotated[
        bool,
        typer.Option(
            "--follow",
            "-f",
            help="Then print new messages as the transcript grows, until Ctrl-C (no pager).",
            rich_help_panel=OUTPUT,
        ),
    ] = False,
    utc: UtcOpt = False,
    time: TimeOpt = "absolute",
    color: ColorOpt = "auto",
) -> None:
    """Read a session's conversation on its active branch, paged or around a message."""
    finish("history", locals())


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
        str | None,
        typer.Option(
            "--output",
            "-o",
            metavar="PATH",
            help="Write to this file (atomically), or into this directory (an existing one,"
            " or PATH/: created; jsonl writes a bundle import restores); - is stdout.",
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
            help="Every generation of the key (reset archives), oldest first; with jsonl,"
            " -o is a directory (one file per transcript).",
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
    finish("export", locals())


def sessions_cmd(
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
            rich_help_panel=FILTERS,
        ),
    ] = None,
    until: Annotated[
        str | None,
        typer.Option(
            "--until",
            metavar="WHEN",
            help="Updated before (ISO date/time, today, yesterday, or a span: 7d, '2 weeks ago').",
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
    null: NullOpt = False,
    utc: UtcOpt = False,
    time: TimeOpt = "absolute",
    color: ColorOpt = "auto",
) -> None:
    """List session keys, most recently updated first, with their index state."""
    finish("sessions", locals())


# (name, --help examples, function), in --help order.
COMMANDS: list[tuple[str, str, Callable[..., Any]]] = [
    (
        "search",
        examples(
            "search 'migration timeout' --since 7d",
            "search '\"rate limit\" OR throttl* -billing'",
            "search '(database OR postgres) timeout' --relax",
            "search deploy --role assistant --format plain | cut -f1 | sort -u",
            "search invoice --json | jq -r '.results[].sessionKey'",
        ),
        search_cmd,
    ),
    (
        "history",
        examples(
            "history agent:main:main --limit 20",
            "history agent:main:main --around 78dde6c6 --time relative",
            "history agent:main:main --full > conversation.txt",
            "history agent:main:main --follow --limit 5",
        ),
        history_cmd,
    ),
    (
        "export",
        examples(
            "export agent:main:main -o conversation.md",
            "export agent:main:main --format json | jq '.generations[-1].messages | length'",
            "export agent:main:main --format jsonl --all-generations -o backup-dir/",
        ),
        export_cmd,
    ),
    (
        "sessions",
        examples(
            "sessions --since 7d",
            "sessions --all-agents --json | jq -r '.sessions[] | select(.index != \"indexed\")'",
            "sessions --as agent:main:main --visibility tree",
        ),
        sessions_cmd,
    ),
]
