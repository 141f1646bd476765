"""Typer app: parse options, call the core once, render, map errors to exit codes."""

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from openclaw_sessions import __version__, settings
from openclaw_sessions.errors import ExitCode
from openclaw_sessions.store import paths

from . import guard, output
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


@app.callback()
def _main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """Search, read and maintain OpenClaw session transcripts from the shell."""


def _ctx(state_dir: Path | None, agent: str, all_agents: bool = False) -> Any:
    from openclaw_sessions.store.context import Context

    return Context(paths.state_root(state_dir), agent, all_agents)


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
    agent: AgentOpt = paths.DEFAULT_AGENT,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Parse and count; write nothing.")
    ] = False,
    include_archives: Annotated[
        bool, typer.Option("--include-archives", help="Also import .deleted archives and backups.")
    ] = False,
    reindex: Annotated[
        bool, typer.Option("--reindex", help="Run the reconciliation right after.")
    ] = False,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Bulk-load legacy JSONL transcripts (idempotent, doctor-style)."""
    from openclaw_sessions.ingest.importer import ImportOptions, run_import

    from . import render

    ctx = _ctx(state_dir, agent)

    def work() -> Any:
        redactor = ctx.redactor()
        with render.progress("importing", enabled=not quiet and not as_json, unit="B") as bar:
            report = run_import(
                ctx.root,
                sources or [],
                agent=paths.check_agent_id(agent),
                redactor=redactor,
                options=ImportOptions(dry_run, include_archives),
                progress=bar,
            )
        reindexed = []
        if reindex and not dry_run:
            from openclaw_sessions.index.reindex import reindex_agent

            reindexed = [reindex_agent(ctx.root, a, redactor) for a in report.agents]
        return report, reindexed

    report, reindexed = guard.guarded(as_json, work)
    problems = report.problems + sum(r.problems for r in reindexed)
    if as_json:
        out = report.to_json()
        if reindexed:
            out["reindex"] = [r.to_json() for r in reindexed]
        output.echo_json(out)
    elif not quiet or problems:
        render.import_report(report, reindexed)
    raise typer.Exit(int(ExitCode.PROBLEMS if problems else ExitCode.OK))


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
    from openclaw_sessions.index import locks
    from openclaw_sessions.index.reindex import reindex_agent

    from . import render

    ctx = _ctx(state_dir, agent, all_agents)

    def work() -> list[Any]:
        redactor = ctx.redactor()
        out = []
        for a in ctx.agents():
            if background:
                with locks.background_slot(paths.agent_dir(ctx.root, a)) as mine:
                    if mine:
                        out.append(reindex_agent(ctx.root, a, redactor, full=full))
                continue
            with render.progress(f"indexing {a}", enabled=not quiet and not as_json) as bar:
                out.append(reindex_agent(ctx.root, a, redactor, full=full, progress=bar))
        return out

    reports = guard.guarded(as_json, work)
    problems = sum(r.problems for r in reports)
    if as_json:
        output.echo_json({"agents": [r.to_json() for r in reports]})
    elif not quiet or problems:
        render.reindex_reports(reports)
    raise typer.Exit(int(ExitCode.PROBLEMS if problems else ExitCode.OK))


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
    as_json: JsonOpt = False,
    jsonl: Annotated[bool, typer.Option("--jsonl", help="One result object per line.")] = False,
    utc: UtcOpt = False,
) -> None:
    """Full-text search of user and assistant text on the active branch."""
    from .run import search

    raise typer.Exit(
        search(
            query,
            state_dir=state_dir,
            agent=agent,
            all_agents=all_agents,
            limit=limit,
            session=session,
            role=role,
            since=since,
            until=until,
            order=order,
            prefix=prefix,
            as_key=as_key,
            visibility=visibility,
            sandboxed=sandboxed,
            wait=wait,
            max_bytes=max_bytes,
            explain=explain,
            as_json=as_json,
            jsonl=jsonl,
            utc=utc,
        )
    )


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
    from .run import history

    raise typer.Exit(
        history(
            key,
            state_dir=state_dir,
            agent=agent,
            limit=limit,
            offset=offset,
            around=around,
            session_id=session_id,
            include_tools=include_tools,
            as_key=as_key,
            visibility=visibility,
            sandboxed=sandboxed,
            as_json=as_json,
            utc=utc,
        )
    )


@app.command("status", cls=Command)
def status_cmd(
    state_dir: StateDirOpt = None,
    agent: AgentOpt = paths.DEFAULT_AGENT,
    all_agents: AllAgentsOpt = False,
    as_json: JsonOpt = False,
    utc: UtcOpt = False,
) -> None:
    """Show each agent's store and index state, with a health verdict."""
    from openclaw_sessions.read.status import agent_status

    from . import render

    ctx = _ctx(state_dir, agent, all_agents)

    def work() -> list[dict[str, Any]]:
        redactor = ctx.redactor()
        return [agent_status(ctx.root, a, redactor) for a in ctx.agents()]

    stats = guard.guarded(as_json, work)
    if as_json:
        output.echo_json(stats if all_agents else stats[0])
    else:
        render.status_table(stats, utc=utc)
    raise typer.Exit(max(s["exitCode"] for s in stats))


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
    from openclaw_sessions.errors import UsageError
    from openclaw_sessions.store.sessions import delete_session, preview_delete

    from .argcheck import text

    guard.guarded(as_json, lambda: text("TARGET", target))
    ctx = _ctx(state_dir, agent)
    if not yes:
        key = guard.guarded(as_json, lambda: preview_delete(ctx, target))
        if not sys.stdin.isatty():
            guard.guarded(
                as_json,
                _raise(
                    UsageError(
                        "refusing to prompt: stdin is not a terminal",
                        hint="pass --yes to delete without asking",
                    )
                ),
            )
        from .output import safe

        if not typer.confirm(f"Delete {safe(key)} and all its transcripts?"):
            raise typer.Exit(int(ExitCode.NOTHING))
    out = guard.guarded(as_json, lambda: delete_session(ctx, target))
    if as_json:
        output.echo_json(out)
    else:
        from . import render

        render.info(
            f"deleted {out['sessionKey']}: {out['transcripts']} transcript(s), "
            f"{out['events']} events, {out['indexRows']} index rows"
        )


def _raise(exc: Exception) -> Callable[[], NoReturn]:
    def go() -> NoReturn:
        raise exc

    return go


def main() -> None:
    """Console-script entry point; Ctrl-C anywhere exits 130 (Click alone would say 1)."""
    import signal

    signal.signal(signal.SIGINT, guard.interrupted)
    _app_for(sys.argv)(prog_name="openclaw-sessions")


def _app_for(argv: list[str]) -> typer.Typer:
    """The app with only the command being run: Typer builds the parameters of every command
    it holds before running one (~15 ms of start-up for the others). Help, completion and
    anything unusual get the whole app."""
    import copy

    if len(argv) < 2 or settings.completing():
        return app
    chosen = [c for c in app.registered_commands if c.name == argv[1]]
    if len(chosen) != 1:
        return app
    single = copy.copy(app)
    single.registered_commands = chosen
    return single
