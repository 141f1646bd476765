"""The Typer app: its commands, each in its own module under commands/ (loaded only when that
command runs, or when help, completion or scripts/gen_docs.py lists them all), and how argv is
parsed beyond Click's defaults.

Every error ends as one `error:` line with a hint and a documented exit code, also Click's own
usage errors (unknown option, a value that is not an integer, a missing argument); an empty
option value is refused instead of being read as "not given" or as the current directory; and
`--help` lists a command's options in the groups their declarations name (Typer's
`rich_help_panel`), as plain text. A command's function returns its exit code; Command runs
it inside guard.failing, the one place where failures become exit codes.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from importlib import import_module
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

from openclaw_sessions import __version__
from openclaw_sessions.errors import ExitCode, OpenClawError, UsageError

from . import guard, output

# command -> its module under commands/, in --help order (a new command is one line here)
COMMANDS = {
    "import": "import_",
    "reindex": "reindex",
    "search": "search",
    "log": "log",
    "history": "history",
    "export": "export",
    "sessions": "sessions",
    "mcp": "mcp",
    "push": "push",
    "status": "status",
    "sql": "sql",
    "delete": "delete",
    "pick": "pick",
    "completions": "completions",
    "schema": "schema",
}

# Click's usage errors (Typer vendors Click; it is not imported by name).
_CLICK_USAGE_ERROR: type[Exception] = typer.BadParameter.__mro__[1]


def command_module(name: str) -> Any:
    """The module that declares and runs command ``name``."""
    return import_module(f"openclaw_sessions.cli.commands.{COMMANDS[name]}")


class _Commands(Mapping[str, Any]):
    """The group's commands, each built from its module the first time it is asked for."""

    def __init__(self) -> None:
        self._built: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in COMMANDS:
            raise KeyError(name)
        if name not in self._built:
            from typer.main import get_command_from_info
            from typer.models import CommandInfo

            module = command_module(name)
            info = CommandInfo(name, cls=Command, epilog=module.EPILOG, callback=module.command)
            cmd = get_command_from_info(info, pretty_exceptions_short=True, rich_markup_mode=None)
            cmd.json_errors = getattr(module, "JSON_ERRORS", True)  # type: ignore[attr-defined]
            cmd.words = getattr(module, "WORDS", None)  # type: ignore[attr-defined]
            self._built[name] = cmd
        return self._built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(COMMANDS)

    def __len__(self) -> int:
        return len(COMMANDS)


@contextmanager
def _one_line_errors() -> Iterator[None]:
    """Click's usage errors (unknown option, bad int, missing argument) end like every other
    error: one `error:` line with a hint, exit 2, instead of Click's usage block."""
    with guard.failing(False):  # raised while parsing (an option's check, Command)
        try:
            yield
        except _CLICK_USAGE_ERROR as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # a bare command: its help, as Click
                raise
            ctx = getattr(exc, "ctx", None)
            message = " ".join(str(getattr(exc, "format_message", exc.__str__)()).split())
            hint = f"see `{ctx.command_path} --help`" if ctx is not None else None
            output.error(message[:1].lower() + message[1:], hint)
            raise SystemExit(int(ExitCode.USAGE)) from None


class Group(TyperGroup):
    """The app: commands loaded as they are asked for; usage errors as one line; the config
    file's values as Click's default_map (Click then applies argv > environment > config file
    > built-in default)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.commands = _Commands()  # type: ignore[assignment]

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def make_context(self, info_name: Any, args: list[str], *rest: Any, **kwargs: Any) -> Any:
        args = self._command_first(list(args))
        with _one_line_errors():
            if "default_map" not in kwargs:
                kwargs["default_map"] = _defaults(args)
            return super().make_context(info_name, args, *rest, **kwargs)

    def invoke(self, ctx: Any) -> Any:
        with _one_line_errors():
            return super().invoke(ctx)

    def _command_first(self, args: list[str]) -> list[str]:
        """`openclaw-sessions --state-dir X status` as git and docker users type it: options
        typed before the command that the command itself takes (each with its value) move
        after the command's name. Anything else is left for Click to refuse."""
        for i, arg in enumerate(args):
            if i == 0 or arg not in COMMANDS:
                continue
            takes = _takes_value(self.commands[arg].params)
            j = 0
            while j < i and (name := args[j].partition("="))[0] in takes:
                j += 2 if takes[name[0]] and not name[1] else 1  # `--x=v` holds its value
            if j == i:
                return [arg, *args[:i], *args[i + 1 :]]
        return args

    def _main_shell_completion(
        self, ctx_args: Any, prog_name: str, complete_var: Any = None
    ) -> None:
        """A shell asking for completions: Typer's own shell classes answer, as they did when
        Typer added --install-completion (removed, add_completion=False: its scripts do not
        complete session keys; `completions SHELL` prints ours)."""
        from openclaw_sessions import settings

        if settings.completing():
            from typer._completion_classes import completion_init  # pinned Typer: 0.28

            completion_init()
        super()._main_shell_completion(ctx_args, prog_name, complete_var)


def _defaults(args: list[str]) -> dict[str, Any]:
    """The config file's defaults; a broken file is an error, except for a shell asking for
    completions and for --help/--version (which must still say how to fix it)."""
    from openclaw_sessions import settings

    from . import userconfig

    try:
        return userconfig.load().commands
    except OpenClawError:
        if settings.completing() or {"-h", "--help", "--version"} & set(args):
            return {}
        raise


class Command(TyperCommand):
    """Runs the command function inside guard.failing (its failures become exit codes; JSON
    refusals on stdout when the caller reads JSON) and exits with the code it returns.

    Refuses an empty option value (and an empty path argument) before Click converts it:
    `--state-dir ""` or `import ""` would otherwise mean the current directory, and
    `--since ""` no filter at all. A path must be one the OS can name (argv's bytes always
    are; a caller in process may pass any string)."""

    json_errors = True  # export: its --json is a format, and its errors are never JSON

    def invoke(self, ctx: Any) -> Any:
        from . import userconfig

        from_file = frozenset(
            n for n in ctx.params if _source(ctx, n) == "DEFAULT_MAP"  # the config file's
        )
        ctx.params = userconfig.lenient(ctx.info_name, ctx.params, from_file)
        as_json = bool(ctx.params.get("as_json") or ctx.params.get("jsonl"))
        with guard.failing(as_json and self.json_errors):
            code = super().invoke(ctx)
        raise typer.Exit(int(code))

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        """A required argument as Click writes it (`QUERY`), not as Typer does (`{QUERY}`)."""
        pieces = super().collect_usage_pieces(ctx)
        return [p[1:-1] if p[:1] == "{" and p[-1:] == "}" else p for p in pieces]

    def format_options(self, ctx: Any, formatter: Any) -> None:
        """Arguments, then the options without a group, then each group in the order its
        first option is declared."""
        groups: dict[str, list[tuple[str, str]]] = {"Arguments": [], "Options": []}
        for p in self.get_params(ctx):
            record = p.get_help_record(ctx)
            if record is None:
                continue
            kind = "Arguments" if p.param_type_name == "argument" else "Options"
            groups.setdefault(getattr(p, "rich_help_panel", None) or kind, []).append(record)
        for name, records in groups.items():
            if records:
                with formatter.section(name):
                    formatter.write_dl(records)

    words: str | None = None  # search: its query argument takes the words (_words_last)

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if self.words is not None and not ctx.resilient_parsing:
            args = _words_last(self, ctx, args)
        if not ctx.resilient_parsing:
            given, _, _ = self.make_parser(ctx).parse_args(args=list(args))
            for p in self.get_params(ctx):
                value = given.get(p.name or "")
                values = value if isinstance(value, list | tuple) else [value]
                _check(p, [v for v in values if isinstance(v, str)])
        return list(super().parse_args(ctx, args))


def _words_last(command: Any, ctx: Any, args: list[str]) -> list[str]:
    """Search's words in the shape atuin and rg users type them: `search replication lag`,
    `search kubernetes -staging`. Click would read `-staging` as a cluster of short options,
    so a `-word` that is none of ours (nor a cluster of our short flags: `-cl`, `-n5`) is a
    word; the words, in their order, go behind a `--` that ends the options. A `--name` stays
    an option, for Click to refuse when it is unknown."""
    takes = _takes_value(command.get_params(ctx))
    options: list[str] = []
    words: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            words += args[i + 1 :]
            break
        if arg[:2] == "--" or arg in takes or _cluster(arg, takes):  # Click says what is unknown
            take = 2 if takes.get(arg) else 1  # `--limit 5`: the value is the next argument
            options += args[i : i + take]
            i += take
            continue
        words.append(arg)
        i += 1
    return [*options, "--", *words]


def _takes_value(params: Any) -> dict[str, bool]:
    """Each option name of ``params`` (Click's parameters) -> whether it takes a value."""
    takes: dict[str, bool] = {}
    for p in params:
        if p.param_type_name == "option":
            takes |= dict.fromkeys((*p.opts, *p.secondary_opts), not (p.is_flag or p.count))
    return takes


def _cluster(arg: str, takes: dict[str, bool]) -> bool:
    """`-cl`, `-n5`: short flags of ours, the last perhaps with a count glued to it."""
    if arg[:1] != "-" or arg[:2] == "--" or len(arg) < 2:
        return False
    for i, ch in enumerate(arg[1:], start=2):
        if f"-{ch}" not in takes:
            return False
        if takes[f"-{ch}"]:
            return arg[i:].isdigit() or i == len(arg)
    return True


def _source(ctx: Any, name: str) -> str | None:
    """Where Click took a parameter's value from: COMMANDLINE, ENVIRONMENT, DEFAULT_MAP (the
    config file) or DEFAULT."""
    source = ctx.get_parameter_source(name)
    return None if source is None else str(source.name)


def _check(param: Any, values: list[str]) -> None:
    option = param.param_type_name == "option"
    path = param.type.name == "path"
    name = param.opts[0] if option else str(param.metavar or param.name).upper()
    if "" in values and (option or path):
        raise UsageError(f"{name} must not be empty")
    for v in values if path else ():
        try:
            os.fsencode(v)
        except UnicodeError:
            raise UsageError(f"{name} is not a path this system can name: {v!r}") from None


app = typer.Typer(
    cls=Group,
    name="openclaw-sessions",
    help="Search, read and maintain OpenClaw session transcripts (per-agent SQLite + FTS5).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    pretty_exceptions_show_locals=False,
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


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
