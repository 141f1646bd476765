"""`status` health you can act on (issue #18 §4): `ok`, `attention` or `error` with the reasons
as a list, a compact row per agent, details with `--verbose`. Through the installed command."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO, Session, db_file, installed, write_sessions_json

SAMPLE = REPO / "sample" / "state"


def status(root: Path, *args: str) -> tuple[int, Any]:
    """`status --json` (and `--problems`), each checked against the shipped schema."""
    from importlib import resources

    from jsonschema import Draft202012Validator

    text = resources.files("openclaw_sessions.cli").joinpath("schemas/status.schema.json")
    schema = Draft202012Validator(json.loads(text.read_text()))
    for extra in ((), ("--problems",)):
        r = installed("status", "--json", *args, *extra, state=root)
        assert r.stderr == "" or r.returncode == 3, r.stderr
        doc = json.loads(r.stdout) if r.stdout else None
        errors = list(schema.iter_errors(doc)) if doc is not None else []
        assert not errors, errors[0]
    r = installed("status", "--json", *args, state=root)
    return r.returncode, json.loads(r.stdout) if r.stdout else None


@pytest.mark.slow
def test_a_state_whose_sessions_all_lack_transcripts_is_not_ok(tmp_path: Path) -> None:
    root = tmp_path / "state"
    write_sessions_json(root / "agents" / "main" / "sessions",
                {f"agent:main:k{i}": {"sessionId": f"gone-{i}"} for i in range(3)})  # fmt: skip
    assert installed("import", "--quiet", state=root).returncode == 4
    code, st = status(root)
    assert code == 4
    assert st["health"] == "attention"
    assert st["transcripts"] == 0
    assert any("none of the 3 sessions has a transcript" in why for why in st["reasons"])
    s = Session("gone-0")
    s.user("here after all")
    s.write(root / "agents" / "main" / "sessions" / "gone-0.jsonl")
    installed("import", "--reindex", "--quiet", state=root)
    code, st = status(root)
    assert not any("has a transcript" in why for why in st["reasons"])
    assert st["importProblems"] == 2  # the two still missing: known, listed, attention
    assert code == 4
    assert st["health"] == "attention"


def test_an_empty_store_needs_attention(tmp_path: Path) -> None:
    root = tmp_path / "state"
    (root / "agents" / "main" / "sessions").mkdir(parents=True)
    write_sessions_json(root / "agents" / "main" / "sessions", {})
    installed("import", "--quiet", state=root)
    code, st = status(root)
    assert (code, st["health"], st["reasons"]) == (4, "attention",
                                                   ["no sessions: run `openclaw-sessions import`"])


@pytest.mark.slow
def test_an_unusable_store_is_that_agents_error(tmp_path: Path) -> None:
    root = tmp_path / "state"
    shutil.copytree(SAMPLE, root)
    assert installed("import", "--reindex", "--quiet", state=root).returncode == 0
    db_file(root, "ops").write_bytes(b"this is not a database at all" * 100)
    code, stats = status(root, "--all-agents")
    assert code == 3
    assert stats["health"] == "error"
    assert stats["exitCode"] == 3
    main, ops = stats["agents"]
    assert (main["agentId"], main["health"], main["exitCode"]) == ("main", "ok", 0)
    assert (ops["agentId"], ops["health"], ops["exitCode"]) == ("ops", "error", 3)
    assert ops["reasons"][0].startswith("database is corrupt (")
    assert "restore a backup" in (ops["reasons"][0])
    r = installed("status", "--all-agents", state=root)
    assert r.returncode == 3
    rows = [line.split() for line in r.stdout.splitlines()]
    assert rows[1][0] == "main"
    assert rows[1][-1] == "ok"
    assert rows[2][0] == "ops"
    assert rows[2][-1] == "error"
    assert rows[2][1] == "-"
    assert any(line.startswith("ops: error: ") for line in r.stdout.splitlines())
    r = installed("status", "--agent", "ops", state=root)  # one agent: the error line, exit 3
    assert r.returncode == 3
    assert r.stderr.startswith("error: ")
    assert r.stdout == ""


@pytest.mark.slow
def test_compact_rows_verbose_details_and_json_health(tmp_path: Path) -> None:
    root = tmp_path / "state"
    shutil.copytree(SAMPLE, root)
    assert installed("import", "--quiet", "--no-reindex", state=root).returncode == 0
    r = installed("status", "--all-agents", state=root)
    assert r.returncode == 4
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["agent", "messages", "sessions", "pending", "quarantined",
                                "failed", "size", "health"]  # fmt: skip
    assert lines[1].split()[:4] == ["main", "0", "4", "4"]
    assert lines[1].endswith("attention")
    assert "main: attention: 4 sessions pending: run `openclaw-sessions reindex`" in lines
    assert "ops: attention: 1 session pending: run `openclaw-sessions reindex`" in lines
    v = installed("status", "--verbose", state=root)
    assert "redaction fingerprint" in v.stdout
    assert "transcripts" in v.stdout
    code, st = status(root)
    assert st["health"] in ("ok", "attention", "error")
    assert isinstance(st["reasons"], list)
    installed("reindex", "--all-agents", "--quiet", state=root)
    code, stats = status(root, "--all-agents")
    assert code == 0
    assert [(s["health"], s["reasons"]) for s in stats["agents"]] == [("ok", [])] * 2
    assert (stats["health"], stats["reasons"], stats["exitCode"]) == ("ok", [], 0)


@pytest.mark.slow
def test_status_json_is_json_whatever_the_store(tmp_path: Path) -> None:
    """A missing agent, a broken store, no store at all: stdout is still the verdict in JSON
    (checked against the schema), stderr the one error line, exit 3; reasons carry codes."""
    root = tmp_path / "state"
    shutil.copytree(SAMPLE, root)
    assert installed("import", "--quiet", "--no-reindex", state=root).returncode == 0
    code, st = status(root)
    assert code == 4
    assert [d["code"] for d in st["diagnostics"]] == ["sessions_pending"]
    assert [d["message"] for d in st["diagnostics"]] == st["reasons"]
    code, st = status(root, "--agent", "ghost")
    assert code == 3
    assert st["health"] == "error"
    assert st["agentId"] == "ghost"
    assert [d["code"] for d in st["diagnostics"]] == ["store_missing"]
    db_file(root, "ops").write_bytes(b"garbage" * 1000)
    code, st = status(root, "--agent", "ops")
    assert code == 3
    assert [d["code"] for d in st["diagnostics"]] == ["store_corrupt"]
    r = installed("status", "--json", "--agent", "ops", state=root)
    assert r.stderr.startswith("error: database is corrupt")
    assert len(r.stderr.splitlines()) == 1
    code, stats = status(tmp_path / "nothing", "--all-agents")
    assert code == 3
    assert [d["code"] for d in stats["diagnostics"]] == ["no_agents"]
    assert stats["agents"] == []
    assert stats["health"] == "error"
