"""`import` plans its sources once (ingest/targets.plan): each source is walked once for its
sessions dirs and its upstream databases together, and a single file is asked once whether
it is a database."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO, run_cli

from openclaw_sessions.ingest import discover, targets, upstream_db


def _counting(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[Any]:
    calls: list[Any] = []
    real = getattr(module, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_a_state_root_is_walked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    walks = _counting(monkeypatch, discover, "walk")
    r = run_cli("import", str(REPO / "sample" / "state"), "--no-reindex")
    assert r.exit_code == 0, r.stderr
    assert walks == [REPO / "sample" / "state"]


def test_a_single_file_is_asked_once_whether_it_is_a_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sessions = REPO / "sample" / "state" / "agents" / "main" / "sessions"
    one = tmp_path / "one.jsonl"
    shutil.copy(next(p for p in sorted(sessions.glob("*.jsonl"))), one)
    asked = _counting(monkeypatch, upstream_db, "is_database_file")
    r = run_cli("import", str(one), "--no-reindex")
    assert r.exit_code == 0, r.stderr
    assert asked == [one]


def test_the_plan_holds_each_kind_in_walk_order(tmp_path: Path) -> None:
    root = tmp_path / "src"
    shutil.copytree(REPO / "sample" / "state", root)
    (root / "agents" / "main" / "agent").mkdir()
    (root / "agents" / "main" / "agent" / upstream_db.DB_NAME).write_bytes(b"SQLite format 3\0")
    (root / "agents" / "zz").mkdir()
    (root / "agents" / "zz" / "sessions").symlink_to(root / "agents" / "main" / "sessions")
    (src,) = targets.plan(tmp_path, [root], "main")
    kinds = [(f.kind, f.agent) for f in src.found if f.kind != "problem"]
    assert kinds == [("database", "main"), ("sessions", "main"), ("sessions", "ops")]
    (issue,) = [f.issue for f in src.found if f.issue is not None]
    assert issue.code == "link_dir"
    assert issue.path == str(root / "agents" / "zz" / "sessions")
