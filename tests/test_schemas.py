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


SCHEMAS = "openclaw_sessions.cli"


def schema(name: str) -> Draft202012Validator:
    text = resources.files(SCHEMAS).joinpath(f"schemas/{name}.schema.json").read_text()
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


def test_history_schema(imported: Any) -> None:
    valid("history", json_out(run_cli("history", "agent:main:main", "--json")))
    valid("history", json_out(run_cli("history", "agent:main:main", "--json", "--include-tools",
                                      "--limit", "2", "--offset", "1")))  # fmt: skip
    valid("history", json_out(run_cli("history", "agent:main:main", "--json", "--around",
                                      "78dde6c6")))  # fmt: skip
    valid("history", json_out(run_cli("history", "agent:main:nope", "--json")))
    hidden = run_cli("history", "agent:main:main", "--json", "--as", "agent:main:subagent:6f7e",
                     "--visibility", "self")  # fmt: skip
    assert json_out(hidden)["status"] == "forbidden"
    valid("history", json_out(hidden))


def test_status_schema(imported: Any) -> None:
    valid("status", json_out(run_cli("status", "--json")))
    valid("status", json_out(run_cli("status", "--json", "--all-agents")))


def test_every_schema_is_shipped_and_well_formed() -> None:
    where = REPO / "openclaw_sessions" / "cli" / "schemas"
    names = [p.name for p in where.iterdir()]
    for n in names:
        Draft202012Validator.check_schema(json.loads((where / n).read_text()))
    assert {"search.schema.json", "status.schema.json", "import.schema.json",
            "history.schema.json"} <= set(names)  # fmt: skip
    _ = Path
