"""How a command's parameters are declared, once (declare): a field of the core's options
object, or of the command's Output, gives each its name, type and default, and the command line
adds its flags, help, --help group, completion and check; what several commands share of the
latter; the checks themselves; the parameters split back into the options object and Output;
and the help epilog of examples.

A value is checked once, where Click reads it (the option's callback), before anything runs;
a failure is a UsageError (exit 2, one `error:` line):

- Counts (`--limit`, `--offset`, `--max-bytes`) are at most MAX_COUNT: SQLite binds 64-bit
  integers, and no store holds 2**31 messages. Lower bounds stay with the core, which words
  them as upstream does ("limit must be a positive integer").
- Text (keys, ids, `--since`, the query) must be UTF-8: a shell passes bytes, and bytes that are
  not UTF-8 arrive as lone surrogates (os.fsdecode), which no key, id or word can contain.
- A value that names a session or message is read in the escaped form plain output prints it
  (cli/output.py), so a printed key can be passed on.
"""

import inspect
from collections.abc import Callable
from typing import Annotated, Any, NamedTuple, Protocol, TypeVar, get_type_hints

import typer

from openclaw_sessions import settings
from openclaw_sessions.errors import UsageError
from openclaw_sessions.model.wellformed import has_lone_surrogate

from . import style
from .completion import complete_agent, complete_session_key, words
from .output import unescape

# The groups of --help (Typer's rich_help_panel; app.Command prints them as sections).
FILTERS, OUTPUT, VISIBILITY = "Filters", "Output", "Visibility (with --as)"
PROG = "openclaw-sessions"
MAX_COUNT = 2**31 - 1
_UTF8_HINT = "the value's bytes are not UTF-8: check the calling shell's locale (LANG, LC_ALL)"


def examples(*lines: str) -> str:
    """A command's help epilog: example command lines, printed as written."""
    return "Examples:\n\n\b\n" + "\n".join(f"  {PROG} {line}" for line in lines)


def _name(param: typer.CallbackParam) -> str:
    if param.param_type_name == "option":
        return str(param.opts[0])
    return str(param.metavar or param.name).upper()


def count(least: int | None = None) -> Callable[..., Any]:
    """The check of a count: at most MAX_COUNT, and at least ``least`` if given."""

    def check(ctx: typer.Context, param: typer.CallbackParam, value: int | None) -> int | None:
        if value is None or ctx.resilient_parsing:
            return value
        if least is not None and not least <= value <= MAX_COUNT:
            raise UsageError(f"{_name(param)} must be an integer from {least} to {MAX_COUNT}")
        if value > MAX_COUNT:
            raise UsageError(f"{_name(param)} must be at most {MAX_COUNT}")
        return value

    return check


def text(*, empty_ok: bool = False, named: bool = False) -> Callable[..., Any]:
    """The check of text: UTF-8, and not empty unless ``empty_ok``; ``named``: a key or an id,
    read back from its escaped form first."""

    def one(name: str, value: str) -> str:
        if named:
            value = unescape(value)
        if not empty_ok and not value.strip():
            raise UsageError(f"{name} must not be empty")
        if has_lone_surrogate(value):
            raise UsageError(f"{name} is not valid UTF-8 text", hint=_UTF8_HINT)
        return value

    def check(ctx: typer.Context, param: typer.CallbackParam, value: Any) -> Any:
        if value is None or ctx.resilient_parsing:
            return value
        if isinstance(value, list | tuple):
            return [one(_name(param), v) for v in value]
        return one(_name(param), value)

    return check


def choice(*allowed: str) -> Callable[..., Any]:
    """The check of an option that takes one of a few words."""

    def check(ctx: typer.Context, param: typer.CallbackParam, value: str) -> str:
        if value not in allowed and not ctx.resilient_parsing:
            raise UsageError(
                f"{_name(param)} must be one of {', '.join(allowed)}", hint=f"not {value!r}"
            )
        return value

    return check


# What the command line adds to a field (declare), for the options several commands share.
STATE_DIR = typer.Option(
    "--state-dir",
    metavar="PATH",
    help="State root (default: $OPENCLAW_STATE_DIR, else ~/.openclaw).",
    envvar=settings.STATE_DIR,
    show_envvar=True,
)
AGENT = typer.Option(
    "--agent",
    metavar="ID",
    help="Agent id.",
    envvar=settings.AGENT,
    autocompletion=complete_agent,
)
ALL_AGENTS = typer.Option("--all-agents", help="Every agent with a store.")
JSON = typer.Option("--json", help="Machine-readable JSON on stdout.", rich_help_panel=OUTPUT)
QUIET = typer.Option("--quiet", "-q", help="Print nothing on success.", rich_help_panel=OUTPUT)
UTC = typer.Option("--utc", help="Show times in UTC instead of local time.", rich_help_panel=OUTPUT)
TIME = typer.Option(
    "--time",
    metavar="STYLE",
    help="absolute (local, with the zone) or relative (3h ago).",
    autocompletion=words(*style.TIMES),
    callback=choice(*style.TIMES),
    rich_help_panel=OUTPUT,
)
COLOR = typer.Option(
    "--color",
    metavar="WHEN",
    help="auto (on a terminal, unless NO_COLOR is set), always or never.",
    autocompletion=words(*style.COLORS),
    callback=choice(*style.COLORS),
    rich_help_panel=OUTPUT,
)
AS = typer.Option(
    "--as",
    metavar="KEY",
    help="Act as this session key (visibility rules apply).",
    callback=text(named=True),
    rich_help_panel=VISIBILITY,
)
VISIBILITY_MODE = typer.Option(
    "--visibility",
    metavar="MODE",
    help="self|tree|agent|all (with --as; default: openclaw.json, else all; never config.toml).",
    autocompletion=words("self", "tree", "agent", "all"),
    rich_help_panel=VISIBILITY,
)
TRUSTED_NETWORK = typer.Option(
    "--trusted-network",
    help="The central database's network is private: allow a DSN without"
    " sslmode=verify-full or verify-ca to another machine.",
)
SANDBOXED = typer.Option(
    "--sandboxed", help="Caller is sandboxed (with --as).", rich_help_panel=VISIBILITY
)
KEY = typer.Argument(
    metavar="KEY",
    help="Session key, session id (or a unique prefix of one), or main/current.",
    autocompletion=complete_session_key,
    callback=text(empty_ok=True, named=True),  # empty: the core's own message
)
INCLUDE_TOOLS = typer.Option(
    "--include-tools", help="Also show tool results (redacted).", rich_help_panel=FILTERS
)
def null(what: str) -> Any:
    """-0: the names NUL-terminated (nul.py); ``what`` says which, for the command's help."""
    return typer.Option(
        "--null",
        "-0",
        help=f"Print {what} NUL-terminated, unescaped off a terminal, for xargs -0.",
        rich_help_panel=OUTPUT,
    )
ROLE = typer.Option(
    "--role",
    metavar="ROLE",
    help="user or assistant.",
    autocompletion=words("user", "assistant"),
    rich_help_panel=FILTERS,
)
LAYOUTS = ("auto", "table", "plain")
# pick's list (commands/pick.py): key<TAB>id<TAB>one line for people; not for scripts (hidden)
PICK_LIST = typer.Option("--pick-list", hidden=True)


def layout(one: str) -> Any:
    """--format of a command that prints a table or plain lines (``one``: what a line is)."""
    return typer.Option(
        "--format",
        metavar="FORMAT",
        help=f"table or plain ({one} per line, tab-separated); default: a table on a"
        " terminal, else plain.",
        autocompletion=words(*LAYOUTS),
        callback=choice(*LAYOUTS),
        rich_help_panel=OUTPUT,
    )


NO_PAGER = typer.Option(
    "--no-pager",
    help="Never page (default: $PAGER, else less, when a table is taller than the terminal).",
    rich_help_panel=OUTPUT,
)
_KINDS = ("main", "direct", "group", "channel", "thread", "subagent", "cron")
KIND = typer.Option(
    "--kind",
    metavar="KIND",
    help=f"Only sessions of this kind (repeatable): {', '.join(_KINDS[:-1])} or cron.",
    autocompletion=words(*_KINDS),
    rich_help_panel=FILTERS,
)
NOT_KIND = typer.Option(
    "--not-kind",
    metavar="KIND",
    help="Leave out sessions of this kind (repeatable): --not-kind cron.",
    autocompletion=words(*_KINDS),
    rich_help_panel=FILTERS,
)
KEY_GLOB = typer.Option(
    "--key",
    metavar="GLOB",
    help="Only session keys matching this pattern (repeatable): 'agent:*:telegram:*'.",
    callback=text(),
    rich_help_panel=FILTERS,
)
_WHEN = "ISO date/time, today, yesterday, or a span: 7d, 12h, '2 weeks ago'."
SINCE = typer.Option(
    "--since", metavar="WHEN", help=_WHEN, callback=text(), rich_help_panel=FILTERS
)
UNTIL = typer.Option(
    "--until", metavar="WHEN", help=_WHEN, callback=text(), rich_help_panel=FILTERS
)


class NoOutput(NamedTuple):
    """The output options of a command that has none (each command declares its own Output:
    how it talks to its caller, which the core never sees)."""


class Timed(Protocol):
    """An Output that shows times: its --utc and --time."""

    @property
    def utc(self) -> bool: ...
    @property
    def time(self) -> str: ...


def times(out: Timed) -> style.Times:
    """How ``out`` shows times (style.Times)."""
    return style.Times(utc=out.utc, relative=out.time == "relative")


T = TypeVar("T", bound=tuple[Any, ...])
S = TypeVar("S", bound=tuple[Any, ...])


def declare(
    run: Callable[[dict[str, Any]], int], kind: Any, shown: Any, /, **cli: Any
) -> Callable[..., int]:
    """The command function Typer reads: it calls ``run`` (whose docstring is the help) with
    its parameters by name, and, when ``shown`` has a ``given`` field, the names of those the
    caller gave (command line, environment or config file: Click's parameter sources). Each
    parameter is a field of ``kind`` (the core's options, a NamedTuple class) or of ``shown``
    (the command's Output), which alone declares its name, type and default; ``cli``
    adds, in --help order, what only the command line has: its typer.Option or typer.Argument
    (flags, metavar, help, group, completion, check), or a (type, info) pair when the command
    line reads the field in another shape (search's words, joined into its query). Typer reads
    the parameters with inspect.signature, which honours ``__signature__``, and takes the type
    and the typer info from the Annotated."""
    hints = get_type_hints(shown) | get_type_hints(kind)  # a field of both is kind's
    empty = inspect.Parameter.empty
    defaults = shown._field_defaults | {
        f: kind._field_defaults.get(f, empty) for f in kind._fields
    }
    context = inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=typer.Context)
    declared = [context]
    for name, info in cli.items():
        if name not in hints:
            raise TypeError(f"{kind.__name__} has no field {name!r}")
        field_type = hints[name]
        if isinstance(info, tuple):  # the command line reads the field in another shape
            field_type, info = info
        declared.append(
            inspect.Parameter(
                name,
                inspect.Parameter.KEYWORD_ONLY,
                default=defaults[name],
                annotation=Annotated[field_type, info],
            )
        )

    def command(ctx: typer.Context, **params: Any) -> int:
        if "given" in shown._fields:
            params["given"] = frozenset(n for n in params if given(ctx, n))
        return run(params)

    command.__doc__ = run.__doc__
    signature = inspect.Signature(declared, return_annotation=int)
    command.__signature__ = signature  # type: ignore[attr-defined]
    return command


def given(ctx: typer.Context, name: str) -> bool:
    """Did the caller give parameter ``name`` (command line, environment or config file)?"""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name != "DEFAULT"


def split(kind: type[T], shown: type[S], params: dict[str, Any]) -> tuple[T, S]:
    """The command's options object (the core's) and its Output, from its parameters by name;
    the colour choice is made here, once, before anything prints."""
    opts = kind(**_fields_of(kind, params))
    out = shown(**_fields_of(shown, params))
    style.use_color(getattr(out, "color", "auto"))
    return opts, out


def _fields_of(kind: type[tuple[Any, ...]], params: dict[str, Any]) -> dict[str, Any]:
    fields: tuple[str, ...] = getattr(kind, "_fields")  # noqa: B009 - a NamedTuple class
    return {k: v for k, v in params.items() if k in fields}
