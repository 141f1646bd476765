"""`sql STATEMENT`: ad-hoc reports over the read-only, redacted `sessions` and `messages`
views (read/sqldoor.py), printed as sqlite-utils prints them: tab-separated with a header
line off a terminal, a table on one, `--json` an array of objects, `--jsonl` one per line."""

import sys
from collections.abc import Sequence
from typing import Any, NamedTuple

import typer

from openclaw_sessions.cli import options, output
from openclaw_sessions.cli.options import declare, examples, split, text
from openclaw_sessions.errors import ExitCode
from openclaw_sessions.read.sqldoor import SqlOptions, door


class Output(NamedTuple):
    """How `sql` prints: the core never sees it."""

    as_json: bool = False
    jsonl: bool = False
    color: str = "auto"  # auto | always | never


EPILOG = examples(
    "sql 'SELECT role, count(*) FROM messages GROUP BY role'",
    "sql 'SELECT s.label, count(*) AS n FROM messages m JOIN sessions s USING (session_key)"
    " GROUP BY 1 ORDER BY n DESC' --all-agents",
    "sql \"SELECT date(timestamp / 1000, 'unixepoch') AS day, count(*) FROM messages"
    ' GROUP BY day" --json | jq .',
)


def _cell(value: Any) -> Any:
    return value.hex() if isinstance(value, bytes) else value


def run(params: dict[str, Any]) -> int:
    """Read-only SQL over two redacted views: sessions (agent_id, session_key, session_id,
    label, updated_at, spawned_by, parent_session_key) and messages (agent_id, session_key,
    session_id, message_id, role, timestamp, text: the indexed user and assistant text)."""
    opts, out = split(SqlOptions, Output, params)
    answer = door(opts)
    rows = ([_cell(v) for v in row] for row in answer.rows)
    if out.as_json or out.jsonl:
        objects = (dict(zip(answer.columns, row, strict=True)) for row in rows)
        if out.jsonl:
            for obj in objects:
                output.echo_json(obj)
        else:
            output.echo_json(list(objects))
        return int(ExitCode.OK)
    if sys.stdout.isatty():
        _table(answer.columns, list(rows))
        return int(ExitCode.OK)
    output.write_text("\t".join(map(output.field, answer.columns)) + "\n")
    for row in rows:
        line = "\t".join("" if v is None else output.field(str(v)) for v in row)
        output.write_text(line + "\n")
    return int(ExitCode.OK)


def _table(columns: Sequence[str], rows: list[list[Any]]) -> None:
    """`sql`'s rows on a terminal: every cell escaped as plain output escapes it."""
    from rich.table import Table

    from openclaw_sessions.cli.render import console

    table = Table(show_header=True, header_style="bold", expand=False)
    for name in columns:
        table.add_column(output.field(name), overflow="fold")
    for row in rows:
        table.add_row(*("" if v is None else output.field(str(v)) for v in row))
    console(False).print(table)


command = declare(
    run,
    SqlOptions,
    Output,
    statement=typer.Argument(
        metavar="STATEMENT",
        help="One SELECT over the views sessions and messages.",
        callback=text(),
        show_default=False,
    ),
    state_dir=options.STATE_DIR,
    agent=options.AGENT,
    all_agents=options.ALL_AGENTS,
    as_json=options.JSON,
    jsonl=typer.Option("--jsonl", help="One row object per line.", rich_help_panel=options.OUTPUT),
    color=options.COLOR,
)
