"""One corrupt agent store does not silence the others: `search --all-agents` answers from
the healthy agents, names the broken one on stderr and exits 3 (something was skipped), as
rg goes on past an unreadable file. An agent's answer (--as) and one named store still fail
whole."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import REPO, db_file, installed, run_cli


def _broken_ops(tmp_path: Path) -> Path:
    state = tmp_path / "state"
    r = run_cli("import", str(REPO / "sample" / "state"), "--reindex", "--state-dir", str(state))
    assert r.exit_code in (0, 4)
    db = db_file(state, "ops")
    for extra in ("-wal", "-shm"):
        Path(f"{db}{extra}").unlink(missing_ok=True)
    db.write_bytes(b"this is not a database" * 400)
    return state


def test_the_healthy_agents_answer_and_the_broken_one_is_named(tmp_path: Path) -> None:
    state = _broken_ops(tmp_path)
    proc = installed("search", "deploy", "--all-agents", "--format", "plain", state=state)
    assert proc.returncode == 3
    assert proc.stdout.startswith("agent:main:")  # main's hits
    assert "error: agent ops skipped:" in proc.stderr
    doc = json.loads(installed("search", "deploy", "--all-agents", "--json", state=state).stdout)
    assert doc["results"]
    assert [s["agentId"] for s in doc["skipped"]] == ["ops"]


def test_one_named_store_still_fails_whole(tmp_path: Path) -> None:
    state = _broken_ops(tmp_path)
    proc = installed("search", "deploy", "--agent", "ops", state=state)
    assert proc.returncode == 3
    assert proc.stdout == ""


def test_the_json_with_a_skipped_store_fits_the_schema(tmp_path: Path) -> None:
    import jsonschema

    from openclaw_sessions.cli.commands.schema import text

    state = _broken_ops(tmp_path)
    doc = json.loads(installed("search", "deploy", "--all-agents", "--json", state=state).stdout)
    jsonschema.validate(doc, json.loads(text("search")))
