"""`delete`: a session's transcripts and index rows, in one transaction, after asking on a
terminal (a script passes --yes)."""

import sys
from typing import Any, NamedTuple

import typer

from openclaw_sessions.cli import options, output
from openclaw_sessions.cli.completion import complete_session_key
from openclaw_sessions.cli.options import declare, examples, split, text
from openclaw_sessions.errors import ExitCode, UsageError
from openclaw_sessions.store.delete import DeleteOptions, delete_session, preview_delete


class Output(NamedTuple):
    """How `delete` asks and reports: the core never sees it."""

    yes: bool = False  # do not ask
    as_json: bool = False
    color: str = "auto"  # auto | always | never


EPILOG = examples("delete agent:main:discord:direct:bob --yes")


def run(params: dict[str, Any]) -> int:
    """Delete a session's transcripts and index rows in one transaction."""
    opts, out = split(DeleteOptions, Output, params)
    if not out.yes and not _confirmed(opts, out):
        return int(ExitCode.NOTHING)
    done = delete_session(opts)
    if out.as_json:
        output.echo_json(done)
    else:
        key = output.field(str(done["sessionKey"]))
        output.note(
            f"deleted {key}: {done['transcripts']} transcript(s), "
            f"{done['events']} events, {done['indexRows']} index rows; import leaves it"
            " deleted while its files are unchanged (`import --undelete KEY` brings it back)"
        )
    return int(ExitCode.OK)


def _confirmed(opts: DeleteOptions, out: Output) -> bool:
    """Ask on the terminal; refuse to ask anything else (a script must pass --yes)."""
    what = preview_delete(opts)
    if not sys.stdin.isatty():
        raise UsageError(
            "refusing to prompt: stdin is not a terminal",
            hint="pass --yes to delete without asking",
        )
    return bool(typer.confirm(f"Delete {output.field(what)}?"))


command = declare(
    run,
    DeleteOptions,
    Output,
    target=typer.Argument(
        metavar="TARGET",
        help="Session key (the session, every generation) or session id (that generation;"
        " a unique prefix works).",
        autocompletion=complete_session_key,
        callback=text(named=True),
    ),
    state_dir=options.STATE_DIR,
    agent=options.AGENT,
    yes=typer.Option("--yes", "-y", help="Do not ask for confirmation."),
    as_json=options.JSON,
    color=options.COLOR,
)
