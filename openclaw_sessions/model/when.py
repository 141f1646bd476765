"""Times (pure): transcript and store timestamps to epoch ms, and --since/--until values.

The grammar of a WHEN (case and spaces around it do not matter):

- an ISO date or date and time: ``2026-05-01``, ``2026-05-01T12:00``, ``…Z`` or ``…+02:00``
  (naive values are local time, as ``date`` shows it);
- ``now``, ``today`` (local midnight) and ``yesterday`` (the local midnight before);
- a span back from now, ``N unit`` with an optional ``ago``: ``7d``, ``12h``, ``2 weeks ago``,
  ``3 days ago``, ``1 hour ago``; units ``s`` ``sec`` ``second``, ``m`` ``min`` ``minute``,
  ``h`` ``hr`` ``hour``, ``d`` ``day``, ``w`` ``wk`` ``week``, ``mo`` ``month``, ``y`` ``yr``
  ``year`` (each also plural). Months and years are calendar ones (``1 month ago`` on
  March 31 is February 28 or 29, same time of day); the others are fixed lengths.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from openclaw_sessions.errors import UsageError

_REL = re.compile(r"^(\d{1,9})\s*([a-z]+)(?:\s+ago)?$", re.IGNORECASE)
_UNITS = {  # unit → seconds, or "mo"/"y": calendar months and years
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), 1),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes"), 60),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), 3600),
    **dict.fromkeys(("d", "day", "days"), 86400),
    **dict.fromkeys(("w", "wk", "wks", "week", "weeks"), 604800),
}
_CALENDAR = {
    **dict.fromkeys(("mo", "mos", "month", "months"), 1),
    **dict.fromkeys(("y", "yr", "yrs", "year", "years"), 12),
}
HINT = (
    "use an ISO date/time (2026-05-01, 2026-05-01T12:00), today, yesterday, or a span:"
    " 7d, 12h, '2 weeks ago', '3 days ago'"
)


def parse_when(value: str, *, now: datetime | None = None, option: str = "--since") -> int:
    """→ epoch ms (the grammar above)."""
    now = now or datetime.now(UTC)
    try:
        return int(_when(value.strip(), now).timestamp() * 1000)
    except (ValueError, OverflowError, OSError):  # OverflowError: a span past year 1 (fuzzing)
        raise UsageError(f"invalid {option} value {value!r}", hint=HINT) from None


def _when(value: str, now: datetime) -> datetime:
    text = " ".join(value.split()).lower()
    if text == "now":
        return now
    if text in ("today", "yesterday"):  # local midnight, as `date` says; the calendar day
        day = now.astimezone().date() - timedelta(days=text == "yesterday")  # (DST: 23h, 25h)
        return datetime(day.year, day.month, day.day).astimezone()
    if m := _REL.match(text):
        n, unit = int(m[1]), m[2]
        if unit in _UNITS:
            return now - timedelta(seconds=n * _UNITS[unit])
        if unit in _CALENDAR:
            return _months_before(now.astimezone(), n * _CALENDAR[unit])
        raise ValueError(unit)
    dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return dt if dt.tzinfo is not None else dt.astimezone()  # naive: local time, like `date`


def _months_before(local: datetime, months: int) -> datetime:
    """The same local time ``months`` calendar months earlier, the day clamped to the
    month's last."""
    import calendar

    total = local.year * 12 + local.month - 1 - months
    year, month = divmod(total, 12)
    day = min(local.day, calendar.monthrange(year, month + 1)[1])
    naive = local.replace(tzinfo=None, year=year, month=month + 1, day=day)
    return naive.astimezone()


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
