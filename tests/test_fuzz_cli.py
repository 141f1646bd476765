"""Hostile queries and options through the real CLI: a clean answer or a clean exit 2, never a
traceback or an FTS error."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

NASTY = st.sampled_from([
    '"', '""', "*", "^", "(", ")", "NEAR(a b, 2)", "a OR b", "NOT", "col:x", "-x", "+", "@",
    "'; DROP TABLE events; --", "%", "_", "\\", "\x00", "\x1b[31m", "\ud800", "\udfff",
    "a" * 4096, "量子", "ก", "😀", "\u0301", "e\u0301", "\u200d", "AND AND", "{}", "[]",
])  # fmt: skip
QUERIES = st.one_of(st.text(max_size=80), NASTY, st.lists(NASTY, max_size=5).map(" ".join))


@pytest.fixture(scope="module")
def store(sample_store: Path) -> Path:
    return sample_store


def _clean(r: object, allowed: tuple[int, ...]) -> None:
    code = r.exit_code
    err = r.stderr
    assert code in allowed, (code, err)
    assert "Traceback" not in err and "fts5" not in err.lower(), err
    if code == 2:
        assert err.startswith("error:") or "Usage:" in err, err


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(q=QUERIES, prefix=st.booleans(), order=st.sampled_from(["relevance", "recent", "x"]),
       limit=st.sampled_from(["1", "10", "0", "-1", "abc", "25", "26"]),
       as_key=st.sampled_from([None, "agent:main:main", "main", "'; --", "\x00"]),
       role=st.sampled_from([None, "user", "assistant", "tool", "'"]),
       since=st.sampled_from([None, "7d", "2026-01-01", "nonsense", "9999999d"]))  # fmt: skip
def test_search_fuzz(store: Path, q: str, prefix: bool, order: str, limit: str,
                     as_key: str | None, role: str | None, since: str | None) -> None:  # fmt: skip
    args = ["search", "--json", "--state-dir", str(store), "--order", order, "--limit", limit]
    if prefix:
        args.append("--prefix")
    if as_key is not None:
        args += ["--as", as_key]
    if role is not None:
        args += ["--role", role]
    if since is not None:
        args += ["--since", since]
    _clean(run_cli(*args, "--", q), (0, 1, 2))


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(key=st.one_of(st.text(max_size=40), st.sampled_from(["main", "agent:main:main", "current",
                                                            "0b5c6f1e-1111-4a4a-9c9c-000000000001"])),
       around=st.one_of(st.none(), st.text(max_size=20), st.just("78dde6c6")),
       limit=st.sampled_from([None, "1", "0", "-5", "x", "100000"]),
       offset=st.sampled_from([None, "0", "3", "-1", "y"]))  # fmt: skip
def test_history_fuzz(store: Path, key: str, around: str | None, limit: str | None,
                      offset: str | None) -> None:  # fmt: skip
    args = ["history", "--json", "--state-dir", str(store)]
    if around is not None:
        args += ["--around", around]
    if limit is not None:
        args += ["--limit", limit]
    if offset is not None:
        args += ["--offset", offset]
    _clean(run_cli(*args, "--", key), (0, 1, 2))
