"""How human output looks, Rich-free: colour (`--color`, `NO_COLOR`, a terminal or not) and times
(local with the zone shown, `--utc`, `--time relative`). JSON never changes with either.

The colour choice is the command's (`--color`, set once by options.split before it prints); `auto`
colours a stream only when it is a terminal and `NO_COLOR` is unset, `always` and `never` win
over both, as no-color.org asks of a command-line flag.
"""

from __future__ import annotations

import os
import time
from typing import Any, NamedTuple

from openclaw_sessions.model.when import MAX_MS, MIN_MS

COLORS = ("auto", "always", "never")
TIMES = ("absolute", "relative")

_color = "auto"


def use_color(choice: str) -> None:
    """The command's --color (checked where it is declared, options.py)."""
    global _color
    _color = choice


def colored(stream: Any) -> bool:
    """Whether to colour what goes to ``stream``."""
    if _color != "auto":
        return _color == "always"
    return not os.environ.get("NO_COLOR") and _isatty(stream)


def forced() -> bool:
    """--color always: colour even off a terminal."""
    return _color == "always"


def never() -> bool:
    """--color never: no escape sequence at all, bold included (NO_COLOR keeps bold)."""
    return _color == "never"


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


class Times(NamedTuple):
    """How a command shows times: local with the zone (default), UTC, or relative ("3h ago")."""

    utc: bool = False
    relative: bool = False

    def __call__(self, ms: Any, *, now_ms: int | None = None) -> str:
        return fmt_time(ms, utc=self.utc, relative=self.relative, now_ms=now_ms)


def fmt_time(
    ms: Any, *, utc: bool = False, relative: bool = False, now_ms: int | None = None
) -> str:
    """``2026-01-05 08:03 CET`` (local, with its zone), ``2026-01-05 07:03 UTC``, or with
    ``relative`` a span like ``3h ago`` (atuin's); ``-`` for no usable time."""
    if not isinstance(ms, int | float) or isinstance(ms, bool) or not MIN_MS < ms <= MAX_MS:
        return "-"  # none, or a time no calendar here holds (NaN too: it compares false)
    if relative:
        now = int(time.time() * 1000) if now_ms is None else now_ms
        return ago((now - ms) / 1000)
    try:  # the C library's calendar: the zone (and its summer time) of that instant
        tm = time.gmtime(ms / 1000) if utc else time.localtime(ms / 1000)
    except (OverflowError, OSError, ValueError):  # a time no calendar holds (old stores)
        return "-"
    zone = "UTC" if utc else tm.tm_zone or time.strftime("%z", tm)
    return time.strftime("%Y-%m-%d %H:%M ", tm) + zone


_SPANS = (("y", 365 * 86400), ("mo", 30 * 86400), ("d", 86400), ("h", 3600), ("m", 60))


def ago(seconds: float) -> str:
    """A span in its largest whole unit: ``45s ago``, ``3h ago``, ``2mo ago``; a time ahead
    (a clock off) reads ``in 5m``."""
    span = abs(seconds)
    text = f"{int(span)}s"
    for unit, size in _SPANS:
        if span >= size:
            text = f"{int(span // size)}{unit}"
            break
    return f"in {text}" if seconds < 0 else f"{text} ago"
