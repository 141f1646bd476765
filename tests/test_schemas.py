"""The shipped JSON Schemas validate real output of every command that prints JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO, json_out, run_cli
from jsonschema import Draft202012Validator

SAMPLE = REPO / "sample" / "state"


SCHEMAS = "openclaw_sessions.cli"


def schema(name: str) -> Draft202012Validator:
    text = resources.files(SCHEMAS).joinpath(f"schemas/{name}.schema.json").read_text()
    s = json.loads(text)
    Draft202012Validator.check_schema(s)
    return Draft202012Validator(s)


def widened(obj: Any) -> Any:
    """``obj`` with a field no release has yet added to every object in it: what a script
    written against today's schema meets after an upgrade (the README: new fields may appear)."""
    if isinstance(obj, dict):
        return {**{k: widened(v) for k, v in obj.items()}, "zzAddedLater": 1}
    if isinstance(obj, list):
        return [widened(v) for v in obj]
    return obj


def valid(name: str, obj: Any) -> None:
    """``obj`` validates, and so does the same output with a field added to every object:
    each `oneOf` is told apart by a required field or a `not`, never by a closed object."""
    for doc in (obj, widened(obj)):
        errors = sorted(schema(name).iter_errors(doc), key=str)
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
    one = json_out(run_cli("status", "--json"))
    every = json_out(run_cli("status", "--json", "--all-agents"))
    valid("status", one)
    valid("status", every)
    # one shape: both forms are an object with the verdict and the agents' records
    assert one["agents"] == [{k: v for k, v in one.items() if k != "agents"}]
    assert [a["agentId"] for a in every["agents"]] == ["main", "ops"]
    assert (every["health"], every["exitCode"]) == ("ok", 0)
    assert one["agentId"] == "main"


def test_open_schemas_still_reject_what_is_wrong(imported: Any) -> None:
    """Open objects, yet not anything goes: a missing required field, a wrong type, or an
    output that fits two branches still fails."""
    hits = json_out(run_cli("search", "deploy", "--json"))
    status = json_out(run_cli("status", "--json"))
    bad = [
        (
            "search",
            {**hits, "results": [{k: v for k, v in hits["results"][0].items() if k != "snippet"}]},
        ),  # fmt: skip
        ("search", {**hits, "total": "many"}),
        ("search", {"error": "x"}),  # an error without its status
        ("status", {k: v for k, v in status.items() if k != "agents"}),
        ("status", {**status, "health": "error"}),  # an agent's record that is neither kind
        ("history", {"status": "error", "error": "x", "messages": []}),  # error and answer
    ]
    for name, doc in bad:
        assert list(schema(name).iter_errors(doc)), (name, doc)


def test_every_schema_is_shipped_and_well_formed(tmp_path: Path) -> None:
    where = REPO / "openclaw_sessions" / "cli" / "schemas"
    names = {p.name for p in where.iterdir()}
    for n in names:
        Draft202012Validator.check_schema(json.loads((where / n).read_text()))
    # what setuptools puts in a wheel (pyproject's package-data), built here for real
    build = subprocess.run(
        [sys.executable, "-c", "import setuptools, sys; sys.argv = ['setup.py', '-q',"
         f" 'build_py', '--build-lib', {str(tmp_path)!r}]; setuptools.setup()"],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr
    built = {p.name for p in (tmp_path / "openclaw_sessions" / "cli" / "schemas").iterdir()}
    assert built == names


def test_sessions_schema(imported: Any) -> None:
    valid("sessions", json_out(run_cli("sessions", "--json")))
    valid("sessions", json_out(run_cli("sessions", "--json", "--all-agents")))
    truncated = json_out(run_cli("sessions", "--json", "--limit", "1"))
    assert truncated["truncated"] is True
    valid("sessions", truncated)
    empty = run_cli("sessions", "--json", "--since", "2099-01-01")
    assert empty.exit_code == 1
    assert json_out(empty) == {"sessions": []}
    valid("sessions", json_out(empty))
    valid("sessions", json_out(run_cli("sessions", "--json", "--as", "agent:main:main")))
    refused = run_cli("sessions", "--json", "--as", "agent:main:nope")
    assert refused.exit_code == 2
    valid("sessions", json_out(refused))
    lines = run_cli("sessions", "--jsonl", "--all-agents").stdout.splitlines()
    assert len(lines) >= 4
    for line in lines:
        valid("sessions-row", json.loads(line))
    valid("sessions-row", json_out(run_cli("sessions", "--jsonl", "--as", "agent:main:nope")))


def test_reindex_and_import_reindex_schema(imported: Any) -> None:
    valid("reindex", json_out(run_cli("reindex", "--json")))
    valid("reindex", json_out(run_cli("reindex", "--json", "--all-agents", "--full")))
    agent = schema("reindex").schema["$defs"]["agent"]
    assert imported["reindex"]
    for report in imported["reindex"]:
        errors = list(Draft202012Validator(agent).iter_errors(report))
        assert not errors, errors[0]


def test_export_schema(imported: Any) -> None:
    doc = json_out(run_cli("export", "agent:main:main", "--json"))
    assert doc["generations"][0]["messages"]
    valid("export", doc)
    valid("export", json_out(run_cli("export", "agent:main:main", "--format", "json",
                                     "--all-generations", "--include-tools")))  # fmt: skip
    valid("export", json_out(run_cli("export", "agent:main:main", "--json", "--as",
                                     "agent:main:main")))  # fmt: skip


def test_delete_schema(imported: Any) -> None:
    missing = run_cli("delete", "agent:main:nope", "--json", "--yes")
    assert missing.exit_code == 2
    valid("delete", json_out(missing))
    done = json_out(run_cli("delete", "agent:main:subagent:6f7e", "--json", "--yes"))
    assert done["sessionKey"] == "agent:main:subagent:6f7e"
    assert done["transcripts"] == 1
    valid("delete", done)


def test_search_jsonl_lines_of_every_mode(imported: Any) -> None:
    for args in (("--count",), ("--count", "--by-session"), ("--sessions",), ("-C", "1"),
                 ("--as", "agent:main:main")):  # fmt: skip
        lines = run_cli("search", "deploy", "--jsonl", *args).stdout.splitlines()
        assert lines, args
        for line in lines:
            valid("search-result", json.loads(line))
    refused = run_cli("search", "deploy", "--jsonl", "--as", "agent:main:nope")
    valid("search-result", json_out(refused))
    valid("search", json_out(run_cli("search", "deploy", "--json", "--as", "agent:main:main")))
    for args in (("--count",), ("--count", "--by-session"), ("--sessions",)):
        valid("search", json_out(run_cli("search", "deploy", "--json", *args)))


def test_status_schema_when_the_store_is_missing(tmp_path: Path) -> None:
    missing = run_cli("status", "--json", "--agent", "nope")
    assert missing.exit_code == 3
    assert json_out(missing)["health"] == "error"
    valid("status", json_out(missing))
    bare = run_cli("status", "--json", "--all-agents", "--state-dir", str(tmp_path / "none"))
    valid("status", json_out(bare))


def commands_with(option: str) -> set[str]:
    """The app's commands that declare ``option``, read off the Typer app itself."""
    import typer.main

    from openclaw_sessions.cli.app import app

    group = typer.main.get_command(app)
    return {name for name, cmd in group.commands.items()  # type: ignore[attr-defined]
            if any(option in p.opts for p in cmd.params)}  # fmt: skip


def test_every_json_output_has_a_schema_and_schema_prints_it() -> None:
    from openclaw_sessions.cli.commands.schema import JSON, JSONL

    assert set(JSON) == commands_with("--json")
    assert set(JSONL) == commands_with("--jsonl") - {"schema"}  # its own --jsonl picks one
    every = run_cli("schema")
    assert every.exit_code == 0
    doc = json.loads(every.stdout)
    assert sorted(doc) == sorted(JSON)
    for command, stem in JSON.items():
        assert doc[command] == schema(stem).schema
        one = run_cli("schema", command)
        assert one.exit_code == 0
        assert json.loads(one.stdout) == schema(stem).schema
    lines = json.loads(run_cli("schema", "--jsonl").stdout)
    assert lines == {c: schema(stem).schema for c, stem in JSONL.items()}
    assert (
        json.loads(run_cli("schema", "sessions", "--jsonl").stdout) == schema("sessions-row").schema
    )


@pytest.mark.parametrize("args", [("nope",), ("pick",), ("status", "--jsonl")])
def test_schema_of_an_unknown_command_is_one_line_and_exit_2(args: tuple[str, ...]) -> None:
    r = run_cli("schema", *args)
    assert r.exit_code == 2
    assert r.stdout == ""
    assert r.stderr.startswith("error: no --json")
    assert r.stderr.count("\n") == 1


def test_push_and_remote_search_schema(imported: Any, tmp_path: Path) -> None:
    from tests import remote_env as env

    env.server()  # skips where no PostgreSQL can start
    target = env.new_db()
    state = Path(os.environ["OPENCLAW_STATE_DIR"])
    first = env.push(target, state, "gw-a", "--all-agents")
    assert first["upserted"] > 0
    valid("push", first)
    valid("push", env.push(target, state, "gw-a", "--all-agents"))  # nothing new
    for args in ((), ("--sessions",), ("--count", "--by-session")):
        found = run_cli("search", "deploy", "--remote", target, "--json", *args)
        assert found.exit_code == 0, found.stderr
        valid("search", json_out(found))
    for line in run_cli("search", "deploy", "--remote", target, "--jsonl").stdout.splitlines():
        assert json.loads(line)["host"] == "gw-a"
        valid("search-result", json.loads(line))
