"""`export`: a session as Markdown, JSON, or its original JSONL lines byte for byte, to stdout,
a file (atomically) or a directory (export_bundle.py, export_out.py)."""

from typing import Annotated, Any

import typer

from openclaw_sessions.cli import output
from openclaw_sessions.cli.completion import words
from openclaw_sessions.cli.options import (
    FILTERS,
    OUTPUT,
    AgentOpt,
    AsOpt,
    ColorOpt,
    IncludeToolsOpt,
    KeyArg,
    SandboxOpt,
    StateDirOpt,
    TimeOpt,
    UtcOpt,
    VisOpt,
    examples,
    split,
)
from openclaw_sessions.errors import ExitCode
from openclaw_sessions.read.export import ExportOptions, export
from openclaw_sessions.store import paths

EPILOG = examples(
    "export agent:main:main -o conversation.md",
    "export agent:main:main --format json | jq '.generations[-1].messages | length'",
    "export agent:main:main --format jsonl --all-generations -o backup-dir/",
)
JSON_ERRORS = False  # --json is a format here: a refusal is an `error:` line only


def command(
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
) -> int:
    """Export a session: Markdown, JSON, or its original JSONL lines byte for byte."""
    return run(locals())


def run(params: dict[str, Any]) -> int:
    opts, out = split(ExportOptions, params)
    if out.as_json:
        opts = opts._replace(fmt="json")
    exp = export(opts)
    from openclaw_sessions.cli import export_bundle, export_out, render

    if not export_bundle.something(exp, out.output):
        render.info(f"no transcript stored for {output.field(exp.session_key)}: nothing to export")
        return int(ExitCode.NOTHING)
    written = export_bundle.place(exp, out.output, force=out.force, times=out.times())
    export_out.summary(written)
    return int(ExitCode.OK)
