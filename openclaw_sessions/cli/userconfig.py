"""The user's config file of option defaults: ``config.toml`` (settings.defaults_file() says
where), read with the standard library's tomllib, checked whole, and turned into the default
values of each command's parameters.

    limit = 20            # every command that has --limit
    time = "relative"
    [search]              # one command
    format = "plain"

Keys are the long option names (without ``--``); the top level applies to every command that has
the option, a ``[command]`` table to that command only and wins over the top level. The command
line beats environment variables, which beat this file, which beats the built-in defaults: the
Typer app gets the values as Click's ``default_map`` (Click already applies that order), and
lenient() makes the file's values give way where two parameters exclude each other (Click's
parameter sources say which came from the file). An
unknown key or a value of the wrong type is a usage error naming the file and the key.
"""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from openclaw_sessions import settings
from openclaw_sessions.errors import UsageError

# Options that say what to act on, or confirm an action, once: never defaults (mcp --operator
# exposes every session on purpose: it is said on the command line or not at all). Nor is
# --visibility: an agent's view (--as, mcp) comes from openclaw.json alone, as in OpenClaw; a
# file of defaults that every --as caller and the MCP server read must not widen it (#34).
NOT_DEFAULTS = frozenset(
    {"as", "around", "session", "session-id", "offset", "output", "undelete", "yes", "force",
     "dry-run", "follow", "background", "help", "version", "operator", "remote", "host",
     "retire", "trusted-network", "visibility", "check", "print-config"}
)  # fmt: skip
_NOT_READ = "not read from the config file (give it on the command line)"
_WHY_NOT = {
    "visibility": "not read from the config file: an agent's view is openclaw.json's"
    " tools.sessions.visibility (give --visibility on the command line to try another)"
}
# `import` takes its agent only from --agent (the contract): a cron shell imports every agent.
NOT_FROM_TOP = {"import": frozenset({"agent", "all-agents"})}


class Defaults(NamedTuple):
    """A config file read and checked: its path and, per command, {parameter: value}."""

    path: Path | None
    commands: dict[str, dict[str, Any]]


NONE = Defaults(None, {})
# (what was read: the path and its stat, its defaults)
_loaded: tuple[tuple[object, ...], Defaults] | None = None


def _bad(path: Path, key: str, why: str) -> UsageError:
    hint = "fix or remove that key"
    if " (as " in key:  # a top-level key, wrong for one of the commands it applies to
        hint += ", or move it into the table of the command it is for ([search], ...)"
    return UsageError(f"config file {path}: {_short(key)}: {_short(why)}", hint=hint)


def _value(path: Path, where: str, kind: str, choices: tuple[str, ...], raw: object) -> Any:
    """The value as the parameter takes it, or a UsageError naming the key."""
    if kind == "flag":
        if not isinstance(raw, bool):
            raise _bad(path, where, "expected true or false")
        return raw
    if kind == "int":
        if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0:
            raise _bad(path, where, "expected a whole number")
        return raw
    if not isinstance(raw, str) or not raw or "\x00" in raw:
        raise _bad(path, where, "expected a non-empty string")
    if choices and raw not in choices:
        raise _bad(path, where, f"expected one of {', '.join(choices)}, not {raw!r}")
    return Path(os.path.expanduser(raw)) if kind == "path" else raw


# command: {key: (parameter, kind, environment variable or "", allowed words or ())}
Keys = dict[str, dict[str, tuple[str, str, str, tuple[str, ...]]]]


@functools.cache
def keys() -> Keys:
    """The keys of the file: each command's long options as the Typer app declares them
    (config_keys.json, package data written by scripts/gen_docs.py; a test fails on drift)."""
    import json
    from importlib.resources import files

    raw = json.loads(files(__package__).joinpath("config_keys.json").read_text("utf-8"))
    return {
        command: {key: (dest, kind, env, tuple(words)) for key, (dest, kind, env, words) in opts}
        for command, opts in ((c, o.items()) for c, o in raw.items())
    }


def _table(path: Path, doc: dict[str, Any], command: str, top: bool) -> dict[str, Any]:
    """The parameters ``doc`` sets for ``command`` (top: only keys that command has)."""
    known = keys()
    options = known[command]
    out: dict[str, Any] = {}
    for key, raw in doc.items():
        if key in known and top:
            continue  # a [command] table
        where = f"{key} (as {command} --{key})" if top else f"{command}.{key}"
        if key not in options:
            continue  # the top level's other commands' options: checked by check()
        if top and key in NOT_FROM_TOP.get(command, ()):
            continue
        if key in NOT_DEFAULTS or (not top and key in NOT_FROM_TOP.get(command, ())):
            raise _bad(path, where, _WHY_NOT.get(key, _NOT_READ))
        dest, kind, _envvar, choices = options[key]
        out[dest] = _value(path, where, kind, choices, raw)
    return out


def check(path: Path, doc: dict[str, Any]) -> Defaults:
    """Every key checked (unknown ones are errors), and the defaults of every command."""
    known = keys()

    every = {key for options in known.values() for key in options}
    for key, raw in doc.items():
        if key in known:
            if not isinstance(raw, dict):
                raise _bad(path, key, f"expected a [{key}] table")
            unknown = sorted(set(raw) - set(known[key]))
            if unknown:
                raise _bad(path, f"{key}.{unknown[0]}", f"{key} has no --{unknown[0]} option")
        elif isinstance(raw, dict):
            raise _bad(path, key, "no such command")
        elif key not in every:
            raise _bad(path, key, "no command has this option")
        elif key in NOT_DEFAULTS:
            raise _bad(path, key, _WHY_NOT.get(key, _NOT_READ))
    commands: dict[str, dict[str, Any]] = {}
    for command in known:
        values = _table(path, doc, command, top=True)
        values.update(_table(path, doc.get(command, {}), command, top=False))
        if values:
            commands[command] = values
    return Defaults(path, commands)


MAX_BYTES = 1 << 20  # a file of option defaults is a few lines; more is not one


def read(path: Path) -> Defaults:
    import tomllib

    if str(path) == os.devnull:  # "no config file", as GIT_CONFIG=/dev/null says (pick does)
        return Defaults(path, {})
    text = _text(path)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"config file {path}: {_short(str(exc))}", hint="it is TOML") from None
    except RecursionError:  # inline tables or arrays nested thousands deep
        raise UsageError(f"config file {path}: nested too deeply", hint="it is TOML") from None
    return check(path, doc)


def _text(path: Path) -> str:
    """The file's text: a regular file (a FIFO or a device would hang or never end: opened
    without blocking, refused), at most MAX_BYTES, UTF-8 (as TOML is)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise UsageError(f"config file {path}: {exc.strerror or exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UsageError(f"config file {path}: not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as exc:
        raise UsageError(f"config file {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(data) > MAX_BYTES:
        raise UsageError(f"config file {path}: larger than {MAX_BYTES >> 20} MiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        why = f"not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        raise UsageError(f"config file {path}: {why}", hint="TOML files are UTF-8") from None


def _short(text: str, limit: int = 200) -> str:
    """A value or message quoted in an error: one line, cut (a bad value may be megabytes)."""
    text = text.replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def load() -> Defaults:
    """The config file's defaults, NONE without one (read again only when it changed)."""
    global _loaded
    path, named = settings.defaults_file()
    try:
        st = path.stat()
        seen: tuple[object, ...] = (path, st.st_mtime_ns, st.st_size)
    except OSError:
        seen = (path, None)
    if _loaded is None or _loaded[0] != seen:
        _loaded = (seen, read(path) if named or seen[1:] != (None,) else NONE)
    return _loaded[1]


# The agent view (--as) is upstream's answer exactly: of the file's defaults it takes what
# upstream's tool takes (search's limit, at most the tool's maximum; history's limit and
# include-tools) and what says where to look, who asks and how to print. These are the
# operator's (an order, --relax, --full, a mode, a filter): under --as they give way to the
# built-in defaults, never making the agent's answer differ or fail.
OPERATOR_ONLY = {
    "search": frozenset({"all_agents", "role", "since", "until", "order", "prefix", "literal",
                         "relax", "wait", "max_bytes", "explain", "counts", "by_session",
                         "sessions", "context"}),
    "history": frozenset({"full", "max_bytes"}),
}  # fmt: skip


# Output forms that exclude each other: one given on the command line makes the file's give way.
OUTPUT_FORMS = frozenset({"as_json", "jsonl", "layout"})


def lenient(
    command: str, params: dict[str, Any], sources: Mapping[str, str | None]
) -> dict[str, Any]:
    """The command line always wins: the file's values (the parameters whose source, as
    Click says, is DEFAULT_MAP) give way to an output form given on the command line
    (`json = true` in the file and `--jsonl` or `--format plain` typed), and, under --as,
    the operator's defaults give way to the built-in ones (the agent's answer is upstream's)."""
    from_file = frozenset(n for n, source in sources.items() if source == "DEFAULT_MAP")
    if not from_file:
        return params
    out = dict(params)
    if any(sources.get(n) == "COMMANDLINE" for n in OUTPUT_FORMS):
        for dest in OUTPUT_FORMS & from_file:
            del out[dest]  # the built-in default
    if out.get("as_key") is not None:
        for dest in OPERATOR_ONLY.get(command, frozenset()) & from_file:
            del out[dest]
        if command == "search" and "limit" in from_file:
            from openclaw_sessions.policy.limits import AS_MAX_LIMIT

            out["limit"] = min(out["limit"], AS_MAX_LIMIT)
    return out
