"""--since/--until values: ISO dates and times, or relative spans like 7d, 12h (pure)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

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
