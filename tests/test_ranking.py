"""Relevance order without joining every match (fts._relevant): FTS5 ranks the matches,
the best k candidates are joined and filtered, and k grows until the answer is exact. Whatever
the filters leave of the first candidates, the answer is the one of ranking every match at
once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import Session, run_cli

from openclaw_sessions.read.search import fts


def _corpus(root: Path) -> None:
    """Many rows with the word 'alpha', repeated and padded so bm25 scores spread and tie."""
    for i in range(8):
        s = Session(f"rf-{i}", ts0=1_767_225_600_000 + i * 10_000_000)
        for j in range(90):
            words = "alpha " * (1 + (i * j) % 4) + "pad " * ((i + 3 * j) % 11)
            s.user(f"{words} beta{j % 3} 数据库" if j % 5 == 0 else words + f" beta{j % 3}")
            s.assistant(f"alpha reply {j} " + "more " * (j % 7))
        s.write(root / "agents" / "main" / "sessions" / f"rf-{i}.jsonl")


@pytest.fixture
def store(tmp_path: Path, state: Path) -> Path:
    _corpus(tmp_path / "src")
    r = run_cli("import", str(tmp_path / "src"), "--reindex", "--quiet")
    assert r.exit_code == 0, r.stderr
    return state


def _search(*args: str) -> tuple[int, str]:
    r = run_cli("search", *args, "--json")
    return r.exit_code, r.stdout


CASES = [
    ("alpha",),
    ("alpha", "--limit", "25"),
    ("alpha", "--limit", "1"),
    ("alpha beta1",),
    ("alpha", "--role", "user"),
    ("alpha", "--session", "rf-3"),  # filters most candidates out
    ("alpha", "--session", "rf-0", "--limit", "30"),  # its rows only: one try
    ("alpha", "--since", "2026-01-01T17:00:00Z", "--limit", "40"),  # few left: k grows
    ("alpha", "--since", "2026-01-01T05:00:00Z", "--limit", "5"),
    ("数据库",),
    ("数据库", "--limit", "60", "--role", "user"),
    ("alpha 数据库", "--limit", "3"),
    ("alp", "--prefix"),
    ("nomatchword",),
]


@pytest.mark.slow
@pytest.mark.parametrize("args", CASES, ids=[" ".join(c) for c in CASES])
def test_growing_candidates_rank_like_ranking_every_match(
    store: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]
) -> None:
    tries: list[int] = []
    best = fts.best

    def counted(*a: Any) -> Any:
        tries.append(a[4])  # k
        return best(*a)

    monkeypatch.setattr(fts, "best", counted)
    grown = _search(*args)
    if "40" in args:  # the filter leaves too few of the first candidates: k grew
        assert len(tries) >= 2
        assert tries[1] > tries[0]
    if "--session" in args:  # the full-text query keeps to the session's rows: exact at once
        assert len(tries) == 1
    monkeypatch.setattr(fts, "first_k", lambda limit: 10**9)  # every match, one try
    assert grown == _search(*args)
    if args[0] != "nomatchword":
        assert grown[0] == 0
        assert json.loads(grown[1])["results"]
