"""The shipped JSON Schemas validate real output of every command that prints JSON."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, json_out, run_cli
from jsonschema import Draft202012Validator

SAMPLE = REPO / "sample" / "state"


def schema(name: str) -> Draft202012Validator:
    text = resources.files("openclaw_sessions").joinpath(f"schemas/{name}.schema.json").read_text()
    s = json.loads(text)
    Draft202012Validator.check_schema(s)
    return Draft202012Validator(s)


def valid(name: str, obj: Any) -> None:
    errors = sorted(schema(name).iter_errors(obj), key=str)
    assert not errors, errors[0]


@pytest.fixture
def imported() -> Any:
    r = run_cli("import", str(SAMPLE), "--json", "--reindex")
    assert r.exit_code == 0
    return json_out(r)


def test_import_schema(imported: Any) -> None:
    valid("import", imported)
    valid("import", json_out(run_cli("import", str(SAMPLE), "--json", "--dry-run")))


def test_search_schema(imported: Any) -> None:
    valid("search", json_out(run_cli("search", "deploy", "--json")))
    valid("search", json_out(run_cli("search", "nothingmatcheshere", "--json")))
    valid("search", json_out(run_cli("search", "量子", "--json", "--explain")))
    forbidden = run_cli("search", "x", "--json", "--as", "agent:main:subagent:6f7e",
                        "--visibility", "self", "--session", "agent:main:main")  # fmt: skip
    valid("search", json_out(forbidden))
    for line in run_cli("search", "deploy", "--jsonl").stdout.splitlines():
        valid("search-result", json.loads(line))


def test_status_schema(imported: Any) -> None:
    valid("status", json_out(run_cli("status", "--json")))
    valid("status", json_out(run_cli("status", "--json", "--all-agents")))


def test_every_schema_is_shipped_and_well_formed() -> None:
    names = [p.name for p in (REPO / "openclaw_sessions" / "schemas").iterdir()]
    for n in names:
        Draft202012Validator.check_schema(json.loads((REPO / "openclaw_sessions" / "schemas" / n)
                                                     .read_text()))  # fmt: skip
    assert {"search.schema.json", "status.schema.json", "import.schema.json"} <= set(names)
    _ = Path
