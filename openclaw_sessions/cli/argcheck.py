"""Option and argument values, checked where they enter the program (pure).

Both parsers end here: the Typer app (app.py) and the fast path (fastargs.py) hand their values
to run.py, which checks them with these before anything runs, so both refuse the same values
with the same message. Failures are UsageError (exit 2, one `error:` line).

- Counts (`--limit`, `--offset`, `--max-bytes`) are at most MAX_COUNT: SQLite binds 64-bit
  integers, and no store holds 2**31 messages. Lower bounds stay with the core, which words
  them as upstream does ("limit must be a positive integer").
- Text (keys, ids, `--since`, the query) must be UTF-8: a shell passes bytes, and bytes that are
  not UTF-8 arrive as lone surrogates (os.fsdecode), which no key, id or word can contain.
- An option's value is never empty (`--since ""` is refused, not read as "no --since").
"""

from __future__ import annotations

from collections.abc import Iterable

from openclaw_sessions.errors import UsageError
from openclaw_sessions.policy.wellformed import has_lone_surrogate

MAX_COUNT = 2**31 - 1
_UTF8_HINT = "the value's bytes are not UTF-8: check the calling shell's locale (LANG, LC_ALL)"


def count(name: str, value: int | None, *, least: int | None = None) -> None:
    """``value`` (None: not given) is at most MAX_COUNT, and at least ``least`` if given."""
    if value is None:
        return
    if least is not None and not least <= value <= MAX_COUNT:
        raise UsageError(f"{name} must be an integer from {least} to {MAX_COUNT}")
    if value > MAX_COUNT:
        raise UsageError(f"{name} must be at most {MAX_COUNT}")


def text(name: str, value: str | None, *, empty_ok: bool = False) -> None:
    """``value`` (None: not given) is UTF-8 text, and not empty unless ``empty_ok``."""
    if value is None:
        return
    if not empty_ok and not value.strip():
        raise UsageError(f"{name} must not be empty")
    if has_lone_surrogate(value):
        raise UsageError(f"{name} is not valid UTF-8 text", hint=_UTF8_HINT)


def texts(pairs: Iterable[tuple[str, str | None]]) -> None:
    for name, value in pairs:
        text(name, value)


def choice(name: str, value: str, choices: Iterable[str]) -> None:
    """``value`` is one of ``choices`` (an option that takes one of a few words)."""
    allowed = tuple(choices)
    if value not in allowed:
        raise UsageError(f"{name} must be one of {', '.join(allowed)}", hint=f"not {value!r}")
