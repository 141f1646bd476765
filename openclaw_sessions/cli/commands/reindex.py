"""`reindex`: the reconciliation in the foreground (cron-safe), and the progress bars that
import and reindex show on a terminal."""

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, NamedTuple

import typer

from openclaw_sessions.cli import options, output
from openclaw_sessions.cli.options import declare, examples, split
from openclaw_sessions.errors import ExitCode
from openclaw_sessions.index.reindex import ReindexOptions, reindex

if TYPE_CHECKING:
    from openclaw_sessions.reports import Progress


class Output(NamedTuple):
    """How `reindex` reports: the core never sees it."""

    as_json: bool = False
    quiet: bool = False
    color: str = "auto"  # auto | always | never


EPILOG = examples("reindex --quiet", "reindex --all-agents --full", "reindex --embed")


def bars(shown: bool) -> "Callable[[str, str], AbstractContextManager[Progress | None]]":
    """Progress bars on a terminal, unless ``shown`` is False (quiet, or JSON)."""
    from openclaw_sessions.cli import render

    return lambda label, unit: render.progress(label, enabled=shown, unit=unit)


def run(params: dict[str, Any]) -> int:
    """Run the reconciliation in the foreground (cron-safe)."""
    opts, out = split(ReindexOptions, Output, params)
    if opts.embed:
        from openclaw_sessions.index import embedder

        embedder.load()  # the extra is missing: say so before the reconciliation runs
    shown = not out.quiet and not out.as_json
    reports = reindex(opts, bars(shown))
    problems = sum(r.problems for r in reports)
    embedded = []
    if opts.embed and not opts.background:
        from openclaw_sessions.index.embed import embed_all

        embedded = embed_all(opts.state_dir, opts.agent, opts.all_agents, bars(shown))
    if out.as_json:
        extra = {"embedded": [e.to_json() for e in embedded]} if opts.embed else {}
        output.echo_json({"agents": [r.to_json() for r in reports], **extra})
    elif not out.quiet or problems:
        from openclaw_sessions.cli import render_reports

        render_reports.reindex_reports(reports)
        render_reports.embed_reports(embedded)
    return int(ExitCode.PROBLEMS if problems else ExitCode.OK)


command = declare(
    run,
    ReindexOptions,
    Output,
    state_dir=options.STATE_DIR,
    agent=options.AGENT,
    all_agents=options.ALL_AGENTS,
    full=typer.Option("--full", help="Rebuild every session's index."),
    embed=typer.Option(
        "--embed",
        help="Then embed the messages that have no vector yet, for the semantic fallback of"
        " search (needs the [semantic] extra; resumable).",
    ),
    as_json=options.JSON,
    quiet=options.QUIET,
    background=typer.Option("--background", hidden=True),
    color=options.COLOR,
)
