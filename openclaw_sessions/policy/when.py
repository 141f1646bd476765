"""Times (pure): transcript and store timestamps to epoch ms, and --since/--until values (ISO
dates and times, or relative spans like 7d, 12h)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from openclaw_sessions.errors import UsageError

from . import recache

_REL = recache.compile(r"^(\d+)\s*(s|m|min|h|d|w)$", re.IGNORECASE)
_UNITS = {"s": 1, "m": 60, "min": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_when(value: str, *, now: datetime | None = None, option: str = "--since") -> int:
    """→ epoch ms. Naive ISO values are local time; 'Z' or offsets are honoured."""
    text = value.strip()
    now = now or datetime.now(UTC)
    try:
        if m := _REL.match(text):
            seconds = int(m[1]) * _UNITS[m[2].lower()]
            return int((now - timedelta(seconds=seconds)).timestamp() * 1000)
        dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
        if dt.tzinfo is None:
            dt = dt.astimezone()  # local time, like `date`
        return int(dt.timestamp() * 1000)
    except (ValueError, OverflowError, OSError):  # OverflowError: a span past year 1 (fuzzing)
        raise UsageError(
            f"invalid {option} value {value!r}",
            hint="use an ISO date/time (2026-05-01, 2026-05-01T12:00) or a span like 7d, 12h",
        ) from None


def parse_window(
    since: str | None, until: str | None, *, now: datetime | None = None
) -> tuple[int | None, int | None]:
    """--since and --until → (since_ms, until_ms), each None when not given; a window that
    ends before it starts is a usage error, not an empty answer."""
    now = now or datetime.now(UTC)  # one "now" for both: `--since 2d --until 1d`
    since_ms = None if since is None else parse_when(since, now=now, option="--since")
    until_ms = None if until is None else parse_when(until, now=now, option="--until")
    if since_ms is not None and until_ms is not None and since_ms > until_ms:
        raise UsageError(
            f"--since {since!r} is after --until {until!r}",
            hint="--since is the start of the window and --until its end",
        )
    return since_ms, until_ms


# Usable times: 1970-01-01 to 9999-12-31 (epoch ms). Anything else (NaN, ±Infinity, 1e20, a
# 20-digit integer, year 1) is treated as missing: SQLite holds at most 64-bit integers and
# datetime only years 1 to 9999.
MIN_MS, MAX_MS = 0, 253_402_300_799_999


def to_epoch_ms(value: Any) -> int | None:
    """ISO-8601 string or epoch (s or ms) → epoch ms; None when unusable or out of range."""
    if value.__class__ is str:  # the common case first: this runs for every imported line
        if not value:
            return None
        try:
            ms = int(datetime.fromisoformat(value).timestamp() * 1000)  # 3.11 reads "Z"
        except (ValueError, OverflowError, OSError):
            return None
        return ms if MIN_MS <= ms <= MAX_MS else None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        v = float(value)
    except OverflowError:  # an integer beyond any float
        return None
    f = v if v > 1e11 else v * 1000
    return int(f) if MIN_MS <= f <= MAX_MS else None  # NaN compares false: None


def valid_updated_at(value: Any) -> int | None:
    """A store entry's updatedAt (epoch ms) when it is a number in range, else None (NaN,
    1e20, a 20-digit integer: SQLite stores 64-bit integers only)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value) if MIN_MS <= value <= MAX_MS else None
