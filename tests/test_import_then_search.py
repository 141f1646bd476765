"""After `import` the store is searchable when the command returns, when someone waits on a
terminal or the import was small; a big import in a cron line leaves the indexing to the
next search or `reindex` (--reindex / --no-reindex say it outright)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import REPO, installed, json_out, query, run_cli

from openclaw_sessions.ingest import importer

SAMPLE = REPO / "sample" / "state"


def _pending(state: Path) -> int:
    return query(state, "SELECT count(*) FROM index_pending")[0][0]


def test_a_small_import_is_searchable_when_it_returns(state: Path) -> None:
    proc = installed("import", str(SAMPLE), "--quiet", state=state)  # no terminal: cron's shape
    assert proc.returncode in (0, 4), proc.stderr
    assert proc.stdout == ""
    assert _pending(state) == 0
    found = installed("search", "deploy", "--json", state=state)
    assert found.returncode == 0
    body = json.loads(found.stdout)
    assert body["results"]
    assert "indexing" not in body


def test_no_reindex_leaves_it_pending(state: Path) -> None:
    assert run_cli("import", str(SAMPLE), "--no-reindex").exit_code in (0, 4)
    assert _pending(state) > 0


def test_a_big_import_off_a_terminal_leaves_it_to_the_next_search(
    state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(importer, "SMALL_IMPORT", 3)  # the sample stores more events than 3
    report = json_out(run_cli("import", str(SAMPLE), "--json"))
    assert report["eventsStored"] > 3
    assert "reindex" not in report
    assert _pending(state) > 0
    forced = json_out(run_cli("import", str(SAMPLE), "--json", "--reindex"))
    assert forced["reindex"]
    assert _pending(state) == 0


def test_dry_run_never_indexes(state: Path) -> None:
    assert run_cli("import", str(SAMPLE), "--dry-run", "--reindex").exit_code in (0, 4)
    assert not (state / "agents" / "main" / "openclaw-sessions.sqlite").exists()
