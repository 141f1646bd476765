"""`status`: fields, health verdict and exit codes cron and monitoring act on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import REPO, installed, json_out, run_cli

from openclaw_sessions.store.migrations import SCHEMA_VERSION

SAMPLE = REPO / "sample" / "state"


def test_pending_then_healthy() -> None:
    run_cli("import", str(SAMPLE), "--no-reindex")
    r = run_cli("status", "--json")
    st = json_out(r)
    assert r.exit_code == 4
    assert st["pendingSessions"] == 4
    assert st["health"] == "attention"
    assert st["reasons"] == ["4 sessions pending: run `openclaw-sessions reindex`"]
    assert st["oldestPendingAgeSeconds"] >= 0
    assert st["lastImportAt"]
    assert not st["lastReconcileAt"]
    run_cli("reindex", "--quiet")
    r = run_cli("status", "--json")
    st = json_out(r)
    assert r.exit_code == 0
    assert st["health"] == "ok"
    assert st["pendingSessions"] == 0
    assert st["reasons"] == []
    assert st["indexedMessages"] == 14
    assert st["events"] == 21
    assert st["schemaVersion"] == SCHEMA_VERSION
    assert st["indexes"]["bigram"]["rows"] == 2
    assert st["indexes"]["primary"]["rows"] == 14
    assert set(st["indexes"]) == {"primary", "bigram"}
    assert st["redactionCurrent"] is True
    assert len(st["redactionFingerprint"]) >= 8


def test_all_agents_and_table(tmp_path: Path) -> None:
    run_cli("import", str(SAMPLE), "--reindex")
    r = run_cli("status", "--all-agents", "--json")
    assert [a["agentId"] for a in json_out(r)["agents"]] == ["main", "ops"]
    t = run_cli("status", "--all-agents", "--utc", "--verbose")
    assert "agent main" in t.stdout
    assert "agent ops" in t.stdout
    assert "health" in t.stdout
    rows = [line.split() for line in run_cli("status", "--all-agents").stdout.splitlines()]
    assert rows[0] == ["agent", "messages", "sessions", "pending", "quarantined", "failed",
                       "size", "health"]  # fmt: skip
    assert [r[0] for r in rows[1:]] == ["main", "ops"]
    assert all(r[-1] == "ok" for r in rows[1:])
    assert rows[1][1:5] == ["14", "4", "0", "0"]
    assert rows[1][7] == "KiB"  # 544.0 KiB


@pytest.mark.slow
def test_new_redaction_rule_makes_the_index_stale(tmp_path: Path, state: Path) -> None:
    run_cli("import", str(SAMPLE), "--reindex")
    before = json_out(run_cli("status", "--json"))["redactionFingerprint"]
    (state / "openclaw.json").write_text(json.dumps({"logging": {"redactPatterns": ["Lyon"]}}))
    r = run_cli("status", "--json")
    st = json_out(r)
    assert r.exit_code == 4
    assert st["redactionFingerprint"] != before
    assert st["redactionCurrent"] is False
    assert "redaction rules changed" in st["reasons"][0]
    assert json_out(run_cli("search", "Lyon", "--json"))["results"] == []  # stale: excluded
    run_cli("reindex", "--quiet")
    assert json_out(run_cli("search", "Lyon", "--json"))["results"] == []  # redacted in index
    assert json_out(run_cli("search", "train", "--json"))["results"]


def test_quarantined_lines_need_attention(tmp_path: Path) -> None:
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    d.mkdir(parents=True)
    (d / "q-1.jsonl").write_text('{"type":"session","version":3,"id":"q-1"}\nnot json\n')
    run_cli("import", str(tmp_path / "src"), "--reindex")
    r = run_cli("status", "--json")
    assert r.exit_code == 4
    assert "malformed" in json_out(r)["reasons"][0]


def test_status_off_a_terminal_is_tab_separated(sample_store: Path) -> None:
    """Like `search` and `sessions`: a header line, then one line per agent, every column,
    tab-separated (cut -f and awk -F'\\t' read it)."""
    proc = installed("status", "--all-agents", state=sample_store)
    lines = proc.stdout.splitlines()
    assert lines[0].split("\t") == [
        "agent", "messages", "sessions", "pending", "quarantined", "failed", "size", "health"
    ]  # fmt: skip
    rows = [line.split("\t") for line in lines[1:3]]
    assert [r[0] for r in rows] == ["main", "ops"]
    assert all(len(r) == 8 for r in rows)
    assert [r[2] for r in rows] == ["4", "1"]
