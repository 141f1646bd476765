"""`schema [COMMAND] [--jsonl]`: the JSON Schemas (draft 2020-12) of what `--json` and
`--jsonl` print, shipped as package data (schemas/*.schema.json, read with importlib.resources
so a pip or pipx install has them). Without COMMAND, one JSON object keyed by command name, as
jq reads it (`schema | jq -r 'keys[]'`); with one, that command's schema as shipped.
tests/test_schemas.py validates real output against each."""

import json
from importlib.resources import files
from typing import Any, NamedTuple

import typer

from openclaw_sessions.cli import output
from openclaw_sessions.cli.completion import words
from openclaw_sessions.cli.options import NoOutput, declare, examples, split
from openclaw_sessions.errors import ExitCode, UsageError

# command -> its schema's file stem: what `COMMAND --json` prints ...
JSON = {
    "delete": "delete",
    "export": "export",
    "history": "history",
    "import": "import",
    "log": "search",  # log prints search's forms
    "push": "push",
    "reindex": "reindex",
    "search": "search",
    "sessions": "sessions",
    "sql": "sql",
    "status": "status",
}
# ... and one line of `COMMAND --jsonl`
JSONL = {
    "history": "history-message",
    "log": "search-result",
    "search": "search-result",
    "sessions": "sessions-row",
    "sql": "sql-row",
}

EPILOG = examples(
    "schema | jq -r 'keys[]'",
    "schema sessions > sessions.schema.json",
    "schema search --jsonl | jq .oneOf[0].required",
)


class SchemaOptions(NamedTuple):
    """`schema`'s options; each field declares the CLI parameter of its name (type, default)."""

    command: str | None = None
    jsonl: bool = False


def text(stem: str) -> str:
    """The shipped schema file ``stem``.schema.json, as shipped."""
    return (
        files("openclaw_sessions.cli").joinpath("schemas", f"{stem}.schema.json").read_text("utf-8")
    )


def chosen(opts: SchemaOptions) -> str:
    """The schema(s) asked for, as JSON text; a command without one is a usage error."""
    names = JSONL if opts.jsonl else JSON
    if opts.command is None:
        every = {cmd: json.loads(text(stem)) for cmd, stem in names.items()}
        return json.dumps(every, indent=2, ensure_ascii=False) + "\n"
    if opts.command not in names:
        form = "--jsonl" if opts.jsonl else "--json"
        raise UsageError(
            f"no {form} schema for {opts.command!r}: one of {', '.join(names)}",
            hint=f"`openclaw-sessions schema{' --jsonl' if opts.jsonl else ''}` prints them all",
        )
    return text(names[opts.command])


def run(params: dict[str, Any]) -> int:
    """Print the JSON Schema of a command's --json (or --jsonl) output; field names are stable."""
    opts, _out = split(SchemaOptions, NoOutput, params)
    output.write_text(chosen(opts))
    return int(ExitCode.OK)


command = declare(
    run,
    SchemaOptions,
    NoOutput,
    command=typer.Argument(
        metavar="COMMAND",
        help="A command that prints JSON (default: every one, as one object keyed by command).",
        autocompletion=words(*JSON),
        show_default=False,
    ),
    jsonl=typer.Option("--jsonl", help="The schema of one line of COMMAND --jsonl instead."),
)
