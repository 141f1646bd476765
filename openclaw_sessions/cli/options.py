"""The options several commands share, declared once (with their --help group and their
completion), the help epilog of examples, and the hand-over of a parsed command to run.py."""

from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from openclaw_sessions import settings

from . import style
from .completion import complete_agent, complete_session_key, words

# The groups of --help (Typer's rich_help_panel; parsing.Command prints them as sections).
FILTERS, OUTPUT, VISIBILITY = "Filters", "Output", "Visibility (with --as)"
PROG = "openclaw-sessions"


def examples(*lines: str) -> str:
    """A command's help epilog: example command lines, printed as written."""
    return "Examples:\n\n\b\n" + "\n".join(f"  {PROG} {line}" for line in lines)


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
    str,
    typer.Option(
        "--agent",
        metavar="ID",
        help="Agent id.",
        envvar=settings.AGENT,
        autocompletion=complete_agent,
    ),
]
AllAgentsOpt = Annotated[bool, typer.Option("--all-agents", help="Every agent with a store.")]
JsonOpt = Annotated[
    bool, typer.Option("--json", help="Machine-readable JSON on stdout.", rich_help_panel=OUTPUT)
]
QuietOpt = Annotated[
    bool, typer.Option("--quiet", "-q", help="Print nothing on success.", rich_help_panel=OUTPUT)
]
UtcOpt = Annotated[
    bool,
    typer.Option("--utc", help="Show times in UTC instead of local time.", rich_help_panel=OUTPUT),
]
TimeOpt = Annotated[
    str,
    typer.Option(
        "--time",
        metavar="STYLE",
        help="absolute (local, with the zone) or relative (3h ago).",
        autocompletion=words(*style.TIMES),
        rich_help_panel=OUTPUT,
    ),
]
ColorOpt = Annotated[
    str,
    typer.Option(
        "--color",
        metavar="WHEN",
        help="auto (on a terminal, unless NO_COLOR is set), always or never.",
        autocompletion=words(*style.COLORS),
        rich_help_panel=OUTPUT,
    ),
]
AsOpt = Annotated[
    str | None,
    typer.Option(
        "--as",
        metavar="KEY",
        help="Act as this session key (visibility rules apply).",
        rich_help_panel=VISIBILITY,
    ),
]
VisOpt = Annotated[
    str | None,
    typer.Option(
        "--visibility",
        metavar="MODE",
        help="self|tree|agent|all (with --as; default: config, else tree).",
        autocompletion=words("self", "tree", "agent", "all"),
        rich_help_panel=VISIBILITY,
    ),
]
SandboxOpt = Annotated[
    bool,
    typer.Option(
        "--sandboxed", help="Caller is sandboxed (with --as).", rich_help_panel=VISIBILITY
    ),
]
KeyArg = Annotated[
    str,
    typer.Argument(
        metavar="KEY",
        help="Session key, session id (or a unique prefix of one), or main/current.",
        autocompletion=complete_session_key,
    ),
]
IncludeToolsOpt = Annotated[
    bool,
    typer.Option(
        "--include-tools", help="Also show tool results (redacted).", rich_help_panel=FILTERS
    ),
]
NullOpt = Annotated[
    bool,
    typer.Option(
        "--null",
        "-0",
        help="Print each session key (search: each hit's key and message id; with --sessions"
        " each key) NUL-terminated, unescaped off a terminal, for xargs -0 (nul.py).",
        rich_help_panel=OUTPUT,
    ),
]
RoleOpt = Annotated[
    str | None,
    typer.Option(
        "--role",
        metavar="ROLE",
        help="user or assistant.",
        autocompletion=words("user", "assistant"),
        rich_help_panel=FILTERS,
    ),
]
SinceOpt = Annotated[
    str | None,
    typer.Option(
        "--since",
        metavar="WHEN",
        help="ISO date/time, today, yesterday, or a span: 7d, 12h, '2 weeks ago'.",
        rich_help_panel=FILTERS,
    ),
]
UntilOpt = Annotated[
    str | None,
    typer.Option(
        "--until",
        metavar="WHEN",
        help="ISO date/time, today, yesterday, or a span: 7d, 12h, '2 weeks ago'.",
        rich_help_panel=FILTERS,
    ),
]


def finish(command: str, params: dict[str, Any]) -> NoReturn:
    """Run a parsed command; its exit code ends the process. ``params`` is the command
    function's locals() at its first line: exactly its parameters."""
    from . import run

    raise typer.Exit(run.run_command(command, params))
