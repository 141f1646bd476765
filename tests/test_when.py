"""Times wherever a command takes one (--since, --until): ISO, spans (`7d`), `now`, `today`,
`yesterday`, `"2 weeks ago"` and the other `N unit ago` forms (model/when.py)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from helpers import Session, json_out, run_cli, write_sessions_json

from openclaw_sessions.errors import UsageError
from openclaw_sessions.model.when import parse_when, parse_window

NOW = datetime(2026, 3, 31, 12, 0, tzinfo=UTC)  # a Tuesday; March 31: months clamp


def at(text: str) -> str:
    return datetime.fromtimestamp(parse_when(text, now=NOW) / 1000, UTC).isoformat()


@pytest.fixture
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("7d", "2026-03-24T12:00:00+00:00"),
        ("12h", "2026-03-31T00:00:00+00:00"),
        ("30m", "2026-03-31T11:30:00+00:00"),
        ("2 weeks ago", "2026-03-17T12:00:00+00:00"),
        ("3 days ago", "2026-03-28T12:00:00+00:00"),
        ("1 hour ago", "2026-03-31T11:00:00+00:00"),
        ("1 day ago", "2026-03-30T12:00:00+00:00"),
        ("90 seconds ago", "2026-03-31T11:58:30+00:00"),
        ("5 MIN AGO", "2026-03-31T11:55:00+00:00"),
        ("2w", "2026-03-17T12:00:00+00:00"),
        ("1 month ago", "2026-02-28T12:00:00+00:00"),  # calendar months, the day clamped
        ("3mo", "2025-12-31T12:00:00+00:00"),
        ("1 year ago", "2025-03-31T12:00:00+00:00"),
        ("2y", "2024-03-31T12:00:00+00:00"),
        ("now", "2026-03-31T12:00:00+00:00"),
        ("today", "2026-03-31T00:00:00+00:00"),
        ("  Yesterday ", "2026-03-30T00:00:00+00:00"),
        ("2026-05-01", "2026-05-01T00:00:00+00:00"),
        ("2026-05-01T12:00Z", "2026-05-01T12:00:00+00:00"),
        ("2026-05-01T12:00+02:00", "2026-05-01T10:00:00+00:00"),
    ],
)
def test_the_grammar(text: str, want: str, utc: None) -> None:
    assert at(text) == want


def test_today_and_yesterday_are_local_midnights(monkeypatch: pytest.MonkeyPatch) -> None:
    """Calendar days where the user is: in New York on the day DST starts (23 hours long),
    yesterday is the midnight before, not 24 hours before today's."""
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        now = datetime(2026, 3, 9, 3, 30, tzinfo=UTC)  # 2026-03-08 23:30 EDT
        today = parse_when("today", now=now)
        yesterday = parse_when("yesterday", now=now)
        assert datetime.fromtimestamp(today / 1000, UTC).isoformat() == "2026-03-08T05:00:00+00:00"
        assert today - yesterday == 24 * 3600 * 1000  # March 7 had 24 hours
        assert parse_when("today", now=datetime(2026, 3, 10, 3, 30, tzinfo=UTC)) - today == (
            23 * 3600 * 1000  # March 8 had 23
        )
    finally:
        monkeypatch.undo()
        time.tzset()


@pytest.mark.parametrize(
    "text", ["last week", "3 fortnights ago", "ago", "-1d", "2 weeks from now", "tomorrow", "1e20d"]
)
def test_what_is_not_a_time_is_a_usage_error(text: str) -> None:
    with pytest.raises(UsageError) as err:
        parse_when(text, now=NOW, option="--until")
    assert "--until" in err.value.args[0]
    assert "2 weeks ago" in str(err.value.hint)


def test_yesterday_until_today_is_yesterday() -> None:
    since, until = parse_window("yesterday", "today", now=NOW)
    assert since is not None
    assert until is not None
    assert until - since in (
        23 * 3600_000, 24 * 3600_000, 25 * 3600_000  # DST days where the test runs
    )  # fmt: skip
    with pytest.raises(UsageError):
        parse_window("today", "2 weeks ago", now=NOW)


def _three_sessions(tmp_path: Path) -> None:
    """One conversation 20 days ago, one 5 days ago, one now; each says walrus."""
    now_ms = int(time.time() * 1000)
    midnight = parse_when("today")  # "new" is today's even a second after midnight
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    entries = {}
    for name, age_ms in (("old", 20 * 86_400_000), ("mid", 5 * 86_400_000), ("new", 3000)):
        ts0 = max(now_ms - age_ms, midnight if name == "new" else 0)
        s = Session(f"{name}-1", ts0=ts0)
        s.user(f"{name} walrus")
        s.write(d / f"{name}-1.jsonl")
        entries[f"agent:main:{name}"] = {"sessionId": f"{name}-1", "updatedAt": ts0 + 2000}
    write_sessions_json(d, entries)
    assert run_cli("import", str(tmp_path / "src"), "--reindex").exit_code == 0


def test_every_form_works_where_a_time_is_taken(tmp_path: Path) -> None:
    _three_sessions(tmp_path)

    def found(*args: str) -> set[str]:
        r = run_cli("search", "walrus", "--json", *args)
        assert r.exit_code in (0, 1), r.stderr
        return {h["sessionKey"].rsplit(":", 1)[1] for h in json_out(r)["results"]}

    def listed(*args: str) -> set[str]:
        r = run_cli("sessions", "--json", *args)
        assert r.exit_code in (0, 1), r.stderr
        return {s["sessionKey"].rsplit(":", 1)[1] for s in json_out(r)["sessions"]}

    for since, want in [
        ("1 hour ago", {"new"}),
        ("today", {"new"}),
        ("yesterday", {"new"}),
        ("3 days ago", {"new"}),
        ("6 days ago", {"new", "mid"}),
        ("2 weeks ago", {"new", "mid"}),
        ("3 weeks ago", {"old", "mid", "new"}),
        ("1 month ago", {"old", "mid", "new"}),
    ]:
        assert found("--since", since) == want, since
        assert listed("--since", since) == want, since
    assert found("--until", "yesterday") == {"old", "mid"}
    assert listed("--since", "3 weeks ago", "--until", "2 weeks ago") == {"old"}
    r = run_cli("search", "walrus", "--since", "last week")
    assert r.exit_code == 2
    assert "invalid --since value" in r.stderr
