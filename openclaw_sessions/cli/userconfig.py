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
Typer app gets the values as Click's ``default_map`` (Click already applies that order). An
unknown key or a value of the wrong type is a usage error naming the file and the key.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NamedTuple

from openclaw_sessions import settings
from openclaw_sessions.errors import UsageError

# Options that say what to act on, or confirm an action, once: never defaults (mcp --operator
# exposes every session on purpose: it is said on the command line or not at all).
NOT_DEFAULTS = frozenset(
    {"as", "around", "session", "session-id", "offset", "output", "undelete", "yes", "force",
     "dry-run", "follow", "background", "help", "version", "operator", "remote", "host",
     "check", "print-config"}
)  # fmt: skip
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
    return UsageError(f"config file {path}: {key}: {why}", hint=hint)


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


def _table(path: Path, doc: dict[str, Any], command: str, top: bool) -> dict[str, Any]:
    """The parameters ``doc`` sets for ``command`` (top: only keys that command has)."""
    from .config_keys import KEYS

    options = KEYS[command]
    out: dict[str, Any] = {}
    for key, raw in doc.items():
        if key in KEYS and top:
            continue  # a [command] table
        where = f"{key} (as {command} --{key})" if top else f"{command}.{key}"
        if key not in options:
            continue  # the top level's other commands' options: checked by check()
        if top and key in NOT_FROM_TOP.get(command, ()):
            continue
        if key in NOT_DEFAULTS or (not top and key in NOT_FROM_TOP.get(command, ())):
            raise _bad(path, where, "not read from the config file (give it on the command line)")
        dest, kind, _envvar, choices = options[key]
        out[dest] = _value(path, where, kind, choices, raw)
    return out


def check(path: Path, doc: dict[str, Any]) -> Defaults:
    """Every key checked (unknown ones are errors), and the defaults of every command."""
    from .config_keys import KEYS

    every = {key for options in KEYS.values() for key in options}
    for key, raw in doc.items():
        if key in KEYS:
            if not isinstance(raw, dict):
                raise _bad(path, key, f"expected a [{key}] table")
            unknown = sorted(set(raw) - set(KEYS[key]))
            if unknown:
                raise _bad(path, f"{key}.{unknown[0]}", f"{key} has no --{unknown[0]} option")
        elif isinstance(raw, dict):
            raise _bad(path, key, "no such command")
        elif key not in every:
            raise _bad(path, key, "no command has this option")
        elif key in NOT_DEFAULTS:
            raise _bad(path, key, "not read from the config file (give it on the command line)")
    commands: dict[str, dict[str, Any]] = {}
    for command in KEYS:
        values = _table(path, doc, command, top=True)
        values.update(_table(path, doc.get(command, {}), command, top=False))
        if values:
            commands[command] = values
    return Defaults(path, commands)


def read(path: Path) -> Defaults:
    import tomllib

    try:
        with path.open("rb") as f:
            doc = tomllib.load(f)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"config file {path}: {exc}", hint="it is TOML") from None
    except OSError as exc:
        raise UsageError(f"config file {path}: {exc.strerror or exc}") from None
    return check(path, doc)


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


def lenient(command: str, params: dict[str, Any]) -> dict[str, Any]:
    """The file's values that give way: its `format` to --json/--jsonl on the command line
    (they would otherwise conflict: a config default must not make a plain option an error),
    and the operator's defaults to --as. A value equal to the file's is taken for the file's
    (the command line cannot be told apart once parsed), so under --as an operator option
    given again on the command line is dropped rather than refused."""
    mine = load().commands.get(command, {})
    if not mine:
        return params
    out = dict(params)
    layout = mine.get("layout")
    if layout is not None and out.get("layout") == layout:
        if out.get("as_json") or out.get("jsonl"):
            out["layout"] = "auto"
    if out.get("as_key") is not None:
        for dest in OPERATOR_ONLY.get(command, ()):
            if dest in mine and out.get(dest) == mine[dest]:
                del out[dest]  # the options object's own default: the built-in one
        if command == "search" and out.get("limit") == mine.get("limit"):
            from openclaw_sessions.policy.fts_query import AS_MAX_LIMIT

            out["limit"] = min(out["limit"], AS_MAX_LIMIT)
    return out
