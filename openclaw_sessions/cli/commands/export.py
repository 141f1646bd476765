"""`export`: a session as Markdown, JSON, or its original JSONL lines byte for byte, to stdout,
a file (atomically) or a directory (export_bundle.py, export_out.py)."""

from pathlib import Path
from typing import Any, NamedTuple

import typer

from openclaw_sessions.cli import options, output
from openclaw_sessions.cli.completion import complete_session_key, words
from openclaw_sessions.cli.options import declare, examples, split, text, times
from openclaw_sessions.errors import ExitCode, UsageError
from openclaw_sessions.read.export import ExportOptions, export, whole


class Output(NamedTuple):
    """Where `export` writes: the core never sees it."""

    output: str | None = None  # --output (a str: a trailing "/" says "a directory")
    force: bool = False
    as_json: bool = False
    utc: bool = False
    time: str = "absolute"  # absolute | relative
    color: str = "auto"  # auto | always | never


EPILOG = examples(
    "export agent:main:main -o conversation.md",
    "export agent:main:main --format json | jq '.generations[-1].messages | length'",
    "export agent:main:main --format jsonl --all-generations -o backup-dir/",
    "export --all-agents -o migrate/ && openclaw-sessions import migrate/ --state-dir new-state",
)
JSON_ERRORS = False  # --json is a format here: a refusal is an `error:` line only


def run(params: dict[str, Any]) -> int:
    """Export a session: Markdown, JSON, or its original JSONL lines byte for byte; without a
    KEY, every session of the agent (or of every agent) as a bundle."""
    opts, out = split(ExportOptions, Output, params)
    if out.as_json:
        opts = opts._replace(fmt="json")
    if opts.key is None:
        return _whole(opts, out)
    exp = export(opts)
    from openclaw_sessions.cli import export_bundle, export_out

    if not export_bundle.something(exp, out.output):
        output.note(f"no transcript stored for {output.field(exp.session_key)}: nothing to export")
        return int(ExitCode.NOTHING)
    written = export_bundle.place(exp, out.output, force=out.force, times=times(out))
    export_out.summary(written)
    return int(ExitCode.OK)


def _whole(opts: ExportOptions, out: Output) -> int:
    """Every session (incognito ones too: the operator's data), every generation, raw, into
    a directory laid out as a state root: what a migration carries, in one process."""
    if out.output is None or out.output == "-":
        raise UsageError(
            "without a KEY, export writes every session into a directory",
            hint="add -o DIR/ (import DIR restores it), or give a KEY",
        )
    from openclaw_sessions.cli import export_bundle, export_out

    written = export_bundle.write_whole(whole(opts), Path(out.output), force=out.force)
    export_out.summary(written)
    return int(ExitCode.OK if written else ExitCode.NOTHING)


command = declare(
    run,
    ExportOptions,
    Output,
    key=typer.Argument(
        metavar="[KEY]",
        help="Session key, session id (or a unique prefix of one), or main/current; none:"
        " every session of --agent (or --all-agents), as a bundle into -o DIR/.",
        autocompletion=complete_session_key,
        callback=text(empty_ok=True, named=True),  # empty: the core's own message
        show_default=False,
    ),
    state_dir=options.STATE_DIR,
    agent=options.AGENT,
    all_agents=typer.Option(
        "--all-agents", help="Without a KEY: every agent's sessions, into -o DIR/."
    ),
    fmt=typer.Option(
        "--format",
        metavar="FORMAT",
        help="md (for people), json (the active branch, redacted) or jsonl (the"
        " transcript's lines as imported, raw: not with --as).",
        autocompletion=words("md", "json", "jsonl"),
        rich_help_panel=options.OUTPUT,
    ),
    output=typer.Option(
        "--output",
        "-o",
        metavar="PATH",
        help="Write to this file (atomically), or into this directory (an existing one,"
        " or PATH/: created; jsonl writes a bundle import restores); - is stdout.",
        rich_help_panel=options.OUTPUT,
    ),
    force=typer.Option(
        "--force", help="Replace an existing --output file.", rich_help_panel=options.OUTPUT
    ),
    all_generations=typer.Option(
        "--all-generations",
        help="Every generation of the key (reset archives), oldest first; with jsonl,"
        " -o is a directory (one file per transcript).",
        rich_help_panel=options.FILTERS,
    ),
    include_tools=options.INCLUDE_TOOLS,
    as_key=options.AS,
    visibility=options.VISIBILITY_MODE,
    sandboxed=options.SANDBOXED,
    as_json=typer.Option(
        "--json", help="The same as --format json.", rich_help_panel=options.OUTPUT
    ),
    utc=options.UTC,
    time=options.TIME,
    color=options.COLOR,
)
