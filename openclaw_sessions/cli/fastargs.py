"""The reading commands without Typer: `search`, `history` and `export`, in every output form.

Importing Typer (and Click under it) is most of a Python CLI's start-up: about 45 ms here,
several times the rest of a search. Scripts and pipelines call these three over and over
(`search --json | jq`, `search | fzf` with a `history --around` preview, `export` in a loop),
so they are parsed here by a strict parser that accepts only argv it fully understands: the
commands' own options, each at most once, values in their plain form. Anything else (help,
completion, `-n5`, `--limit +3`, a repeated option, an unknown word) returns None and the Typer
app runs as usual, with its canonical errors. Both paths then run the same code (run.py);
tests check that they print the same bytes and exit alike. The option table is generated from
the Typer commands (fastargs_table.py, by scripts/gen_docs.py; a test fails when it drifts).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from openclaw_sessions import settings

from .fastargs_table import COMMANDS

# the kinds in fastargs_table.py; a LIST option (repeatable) is left to Typer
FLAG, TEXT, INT, PATH, LIST = "flag", "text", "int", "path", "list"

# command -> (its argument, its options), from the Typer app's own declarations
# (fastargs_table.py is generated from them: a new option needs no edit)
SPECS = {
    command: (argument, options) for command, (argument, options, _envvars) in COMMANDS.items()
}


def _value(kind: str, raw: str) -> Any:
    if not raw or raw.startswith("-"):
        return None  # empty, or option-like: Click's reading of it is left to Click
    if kind == INT:
        return int(raw) if raw.isascii() and raw.isdigit() else None
    return Path(raw) if kind == PATH else raw


def parse(argv: list[str]) -> tuple[str, dict[str, Any]] | None:
    """(command, keyword arguments) when the fast path serves ``argv`` (no program name)."""
    if not argv or argv[0] not in SPECS:
        return None
    command, args = argv[0], argv[1:]
    arg_name, options = SPECS[command]
    kw: dict[str, Any] = {}
    positional: list[str] = []
    i = 0
    while i < len(args):
        tok = args[i]
        if tok == "--":  # the end of the options, as Click reads it
            positional += args[i + 1 :]
            break
        if tok[:1] != "-":
            positional.append(tok)
        else:
            name, eq, raw = tok.partition("=")
            spec = options.get(name)
            if spec is None or spec[0] in kw or spec[1] == LIST:
                return None
            if eq and (spec[1] == FLAG or name[:2] != "--"):
                return None
            dest, kind = spec
            if kind == FLAG:
                kw[dest] = True
            else:
                if not eq:
                    i += 1
                    if i == len(args):
                        return None
                    raw = args[i]
                value = _value(kind, raw)
                if value is None:
                    return None
                kw[dest] = value
        i += 1
    if len(positional) != 1:
        return None
    if "state_dir" not in kw and settings.state_dir_set_empty():
        return None  # set but empty: how Click reads that is Click's business
    if "agent" not in kw and (agent := settings.agent()) is not None:
        if not agent:
            return None
        kw["agent"] = agent
    kw[arg_name] = positional[0]
    return command, kw


def run_fast(argv: list[str], ready: Callable[[], None] = lambda: None) -> int | None:
    """Run ``argv`` here and return its exit code, or None: the Typer app must run it.
    ``ready`` is called once the command's modules are imported, before it runs."""
    if settings.completing():
        return None
    parsed = parse(argv)
    if parsed is None:
        return None
    import signal

    from . import guard, run

    signal.signal(signal.SIGINT, guard.interrupted)
    command, kw = parsed
    from . import userconfig

    guard.guarded(False, lambda: userconfig.fill(command, kw))
    run.load(command)
    ready()
    return run.run_command(command, kw)
