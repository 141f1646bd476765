"""A term that a message waiting to be indexed holds is never "found nowhere": the answer
says indexing is behind instead (and --explain, which reads the stored lines, says where)."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import REPO, run_cli


def test_pending_messages_are_never_found_nowhere(state: Path) -> None:
    r = run_cli("import", str(REPO / "sample" / "state"), "--no-reindex")
    assert r.exit_code in (0, 4)
    plain = run_cli("search", "deploy", "--format", "plain")
    assert plain.exit_code == 1
    assert "found nowhere" not in plain.stderr
    assert "indexing is in progress" in plain.stderr
    doc = json.loads(run_cli("search", "deploy", "--json").stdout)
    assert "termsNotFound" not in doc.get("absence", {})
    assert doc["absence"]["pendingSessions"] >= 1
    explained = json.loads(run_cli("search", "deploy", "--json", "--explain").stdout)
    assert explained["absence"].get("termsNotFound", []) == []


def test_a_word_no_message_holds_is_found_nowhere(state: Path) -> None:
    r = run_cli("import", str(REPO / "sample" / "state"))
    assert r.exit_code in (0, 4)
    plain = run_cli("search", "zzqqxx", "--format", "plain")
    assert plain.exit_code == 1
    assert "found nowhere: zzqqxx" in plain.stderr
