"""Sessions deleted in OpenClaw (`sessions.delete`) reach the store on re-import; issue #33.3.

tests/fixtures/upstream_cold/deleted.sqlite.gz was written by the real OpenClaw 2026.9.6 from
hot.sqlite.gz (scripts/make_upstream_cold_fixture.py): its own delete lifecycle removed
agent:main:other ("…herons") and moved its transcript into session_transcript_archives (reason
`deleted`), publishing the archive file beside it. Agents then get upstream's answer for a
missing session; the operator still reads it, labelled.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from helpers import Session, run_cli
from jsonschema import Draft202012Validator
from mcp_support import body, calls, who
from test_upstream_cold import FIX, OTHER, as_agent, codes, imp, lay_out, search

SCHEMAS = Path(__file__).parent.parent / "openclaw_sessions" / "cli" / "schemas"


def schema(name: str) -> Draft202012Validator:
    return Draft202012Validator(json.loads((SCHEMAS / f"{name}.schema.json").read_text()))


def deleted_root(tmp_path: Path) -> Path:
    """Imported (and indexed) while both sessions lived; then OpenClaw deleted one."""
    root = lay_out(tmp_path / "src", "hot")
    code, rep = imp(str(root), "--reindex")
    assert code == 0, rep
    lay_out(root, "deleted")
    sessions = root / "agents" / "main" / "sessions"
    for f in FIX.glob("*.jsonl.deleted.*"):  # the archive file OpenClaw published
        shutil.copy(f, sessions / f.name)
    return root


def as_main(*args: str) -> Any:
    return run_cli(*args, "--json", "--as", "agent:main:main", "--visibility", "agent")


def test_reimport_marks_it_deleted_once(tmp_path: Path, state: Path) -> None:
    root = deleted_root(tmp_path)
    code, rep = imp(str(root))
    assert code == 0, rep
    assert codes(rep) == ["session_deleted_upstream"], rep
    assert rep["issues"][0]["sessionKey"] == "agent:main:other"
    code, rep = imp(str(root), "--include-archives")  # its archive is that transcript
    assert code == 0, rep
    assert rep["eventsStored"] == 0, rep
    assert codes(rep) == [], rep


def test_agents_get_no_session_as_for_a_missing_one(tmp_path: Path, state: Path) -> None:
    imp(str(deleted_root(tmp_path)), "--reindex")
    assert as_agent("herons") == {"results": []}
    gone, missing = as_main("history", "agent:main:other"), as_main("history", "agent:main:nosuch")
    assert gone.exit_code == missing.exit_code == 2
    assert json.loads(gone.stdout) == json.loads(missing.stdout.replace("nosuch", "other"))
    by_id = as_main("history", OTHER)
    assert by_id.exit_code == 2
    assert json.loads(by_id.stdout)["status"] == "error"
    listed = json.loads(as_main("sessions").stdout)
    assert [s["sessionKey"] for s in listed["sessions"]] == ["agent:main:main"]
    assert "archived" not in listed["sessions"][0]  # an operator field


def test_the_mcp_server_answers_as_for_a_missing_session(tmp_path: Path, state: Path) -> None:
    imp(str(deleted_root(tmp_path)), "--reindex")
    ident = who(state, "agent:main:main", "--visibility", "agent")
    found, gone, missing = calls(
        ident,
        [
            ("sessions_search", {"query": "herons"}),
            ("sessions_history", {"sessionKey": "agent:main:other"}),
            ("sessions_history", {"sessionKey": "agent:main:nosuch"}),
        ],
    )
    assert body(found)["results"] == []
    assert body(gone) == json.loads(json.dumps(body(missing)).replace("nosuch", "other"))


def test_the_operator_still_reads_it_labelled(tmp_path: Path, state: Path) -> None:
    imp(str(deleted_root(tmp_path)), "--reindex")
    op = search("herons")
    assert [h["archived"] for h in op["results"]] == ["deleted", "deleted"]
    assert not list(schema("search").iter_errors(op))
    r = run_cli("history", "agent:main:other", "--json")
    assert r.exit_code == 0
    assert "herons reply" in r.stdout
    listed = json.loads(run_cli("sessions", "--json").stdout)
    states = {s["sessionKey"]: s.get("archived") for s in listed["sessions"]}
    assert states == {"agent:main:main": None, "agent:main:other": "deleted"}
    assert not list(schema("sessions").iter_errors(listed))


def test_back_in_openclaw_it_is_the_agents_again(tmp_path: Path, state: Path) -> None:
    root = deleted_root(tmp_path)
    imp(str(root), "--reindex")
    lay_out(root, "hot")  # the session's rows and node are there again
    code, rep = imp(str(root), "--reindex")
    assert code == 0, rep
    assert rep["eventsStored"] == 0, rep
    assert {h["sessionKey"] for h in as_agent("herons")["results"]} == {"agent:main:other"}
    assert "archived" not in search("herons")["results"][0]


def test_agent_and_operator_answers_keep_their_schemas(tmp_path: Path, state: Path) -> None:
    """The cold case: the agent's archived count and the operator's label are in the schema."""
    imp(str(lay_out(tmp_path / "src", "cold")), "--reindex")
    agent, op = as_agent("walrus"), search("walrus")
    assert agent["archivedTranscriptsExcluded"] == 2
    assert op["results"][0]["archived"] == "cold"
    for doc in (agent, op):
        assert not list(schema("search").iter_errors(doc))
    ident = who(state, "agent:main:main", "--visibility", "agent")
    (got,) = calls(ident, [("sessions_search", {"query": "walrus"})])
    assert body(got) == agent  # MCP: the same answer as --as


def test_a_key_made_again_shows_only_its_new_generation(tmp_path: Path, state: Path) -> None:
    """The key deleted in OpenClaw is used again: the agent sees the new generation only."""
    import sqlite3

    import upstream_fixture as uf
    from test_upstream_cold import agent_db

    root = deleted_root(tmp_path)
    imp(str(root), "--reindex")
    again = Session("33333333-3333-4333-8333-333333333333")
    again.user("a fresh start about pelicans")
    with sqlite3.connect(agent_db(root)) as c:
        # OpenClaw's triggers call octet_length() (SQLite 3.43+), which this sqlite3 may lack
        c.create_function("octet_length", 1, lambda v: None if v is None else len(str(v).encode()))
        uf.add_session(c, uf.UpSession("agent:main:other", again.session_id,
                                       uf.jsonl_lines(again.text())))  # fmt: skip
    code, rep = imp(str(root), "--reindex")
    assert code == 0, rep
    assert as_agent("herons") == {"results": []}
    assert {h["sessionKey"] for h in as_agent("pelicans")["results"]} == {"agent:main:other"}
    r = as_main("export", "agent:main:other", "--all-generations")
    assert r.exit_code == 0
    assert "pelicans" in r.stdout
    assert "herons" not in r.stdout
    assert as_main("history", OTHER).exit_code == 2  # the deleted generation, by its id
    assert [h["archived"] for h in search("herons")["results"]] == ["deleted", "deleted"]
    listed = json.loads(run_cli("sessions", "--json").stdout)["sessions"]
    assert {s["sessionKey"]: s.get("archived") for s in listed}["agent:main:other"] is None
