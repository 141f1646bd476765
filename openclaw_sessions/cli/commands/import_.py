"""`import`: bulk-load legacy JSONL transcripts and upstream agent databases (idempotent,
doctor-style), then the reconciliation when the import was small or someone waits on a
terminal (--reindex / --no-reindex say it outright)."""

import sys
from typing import Any, NamedTuple

import typer

from openclaw_sessions.cli import options, output
from openclaw_sessions.cli.completion import complete_agent
from openclaw_sessions.cli.options import declare, examples, split, text
from openclaw_sessions.errors import ExitCode
from openclaw_sessions.ingest.importer import ImportOptions, import_sources

from .reindex import bars


class Output(NamedTuple):
    """How `import` reports: the core never sees it."""

    as_json: bool = False
    quiet: bool = False
    verbose: bool = False  # every problem, not only the new ones
    color: str = "auto"  # auto | always | never


EPILOG = examples(
    "import",
    "import --no-reindex --quiet; openclaw-sessions reindex --all-agents --quiet",
    "import ~/backup/.openclaw --dry-run --json",
)


def run(params: dict[str, Any]) -> int:
    """Bulk-load legacy JSONL transcripts (idempotent, doctor-style)."""
    opts, out = split(ImportOptions, Output, params)
    if opts.reindex is None and sys.stderr.isatty():  # someone waits to search: index now
        opts = opts._replace(reindex=True)
    done = import_sources(opts, bars(not out.quiet and not out.as_json))
    if out.as_json:
        report = done.report.to_json()
        if done.reindexed:
            report["reindex"] = [r.to_json() for r in done.reindexed]
        output.echo_json(report)
    else:
        from openclaw_sessions.cli import render_reports

        if out.quiet:  # only what is new since the last run (cron)
            render_reports.new_problems(done.report, done.reindexed, every=out.verbose)
        else:
            render_reports.import_report(done.report, done.reindexed, every=out.verbose)
    return int(ExitCode.PROBLEMS if done.problems else ExitCode.OK)


command = declare(
    run,
    ImportOptions,
    Output,
    sources=typer.Argument(
        metavar="SOURCES",
        help="State roots, sessions dirs, .jsonl(.zst) files or upstream agent databases"
        " (default: every <root>/agents/*/sessions).",
        show_default=False,
    ),
    state_dir=options.STATE_DIR,
    agent=typer.Option(
        "--agent",
        metavar="ID",
        help="Import only this agent (a lone transcript or sessions dir goes to it;"
        " default: every agent, a lone transcript to main; $OPENCLAW_AGENT is not read:"
        " a cron shell that exports it still imports every agent).",
        show_default=False,
        autocompletion=complete_agent,
    ),
    all_agents=typer.Option("--all-agents", help="Every agent (the default; overrides --agent)."),
    dry_run=typer.Option("--dry-run", help="Parse and count; write nothing."),
    include_archives=typer.Option(
        "--include-archives", help="Also import .deleted archives and backups."
    ),
    reindex=typer.Option(
        "--reindex/--no-reindex",
        help="Index right after (default: on a terminal, or when the import stored at most"
        " 100,000 events; --no-reindex leaves it to the next search or `reindex`).",
        show_default=False,
    ),
    undelete=typer.Option(
        "--undelete",
        metavar="KEY",
        help="Bring back a session `delete` removed (repeatable; else it stays deleted).",
        callback=text(named=True),
    ),
    as_json=options.JSON,
    quiet=options.QUIET,
    verbose=typer.Option(
        "--verbose", "-v", help="Every issue on its own line (default: one line per kind)."
    ),
    color=options.COLOR,
)
