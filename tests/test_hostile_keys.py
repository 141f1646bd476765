"""Hostile session keys (issue #23 part 4): a session key with a newline, a tab, an
escape sequence or a backslash cannot forge lines in any plain output, and the escaped form
every plain output prints names the session when it is passed back."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import Session, json_out, run_cli, write_sessions_json

from openclaw_sessions.cli.output import escape, unescape

EVIL = "agent:main:evil\nagent:main:victim"
KEYS = [EVIL, "agent:main:tab\there", "agent:main:esc\x1b[31mred", "agent:main:back\\nslash",
        "agent:main:victim"]  # fmt: skip
EXE = shutil.which("openclaw-sessions", path=str(Path(sys.executable).parent))


@pytest.fixture
def hostile(tmp_path: Path, state: Path) -> Path:
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    entries: dict[str, object] = {}
    for i, key in enumerate(KEYS):
        s = Session(f"h-{i}")
        s.user(f"forgeword number {i}")
        s.write(d / f"h-{i}.jsonl")
        entries[key] = {"sessionId": f"h-{i}", "label": f"label\n{i}"}
    write_sessions_json(d, entries)
    odd = Session("odd")
    odd.user("oddword in a file whose name holds a line break")
    odd.write(d / "odd\nname.jsonl")  # no entry names it: reported, stored as an orphan
    r = run_cli("import", str(tmp_path / "src"), "--reindex")
    assert r.exit_code == 0, r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 3, lines
    assert lines[1] == (
        "  note: transcript_unreferenced: no store entry references this file: imported as"
        f" agent:main:orphan:odd\\nname [{escape(str(d))}/odd\\nname.jsonl]"
    )
    return tmp_path


def test_escape_round_trips() -> None:
    for text in [*KEYS, "\\", "\\\\n", "a\\qb", "\x85\x7f\r", "é\tü"]:
        assert unescape(escape(text)) == text
        assert "\n" not in escape(text)
        assert "\t" not in escape(text)
    assert escape(EVIL) == "agent:main:evil\\nagent:main:victim"
    assert escape("agent:main:back\\nslash") == "agent:main:back\\\\nslash"


def test_no_plain_output_forges_a_line(hostile: Path, state: Path) -> None:
    printed = {escape(k) for k in KEYS}
    r = run_cli("search", "forgeword", "-l")
    assert r.exit_code == 0, r.stdout
    assert set(r.stdout.splitlines()) == printed, r.stdout
    assert len(r.stdout.splitlines()) == len(KEYS)
    r = run_cli("search", "forgeword", "--count", "--by-session")
    rows = [ln.split("\t") for ln in r.stdout.splitlines()]
    assert {k for k, _ in rows} == printed
    assert all(n == "1" for _, n in rows)
    r = run_cli("search", "forgeword")
    rows = [ln.split("\t") for ln in r.stdout.splitlines()]
    assert len(rows) == len(KEYS)
    assert all(len(x) == 5 for x in rows)
    assert {x[0] for x in rows} == printed
    r = run_cli("search", "forgeword", "-C", "1")
    lines = [x.split("\t") for x in r.stdout.splitlines() if x != "--"]
    assert {x[1] for x in lines} == printed
    assert {x[0] for x in lines} <= {":", "-"}
    r = run_cli("sessions")
    rows = [ln.split("\t") for ln in r.stdout.splitlines()]
    assert len(rows) == len(KEYS) + 1
    assert all(len(x) == 8 for x in rows)
    assert {x[0] for x in rows} == printed | {"agent:main:orphan:odd\\nname"}
    assert {x[7] for x in rows} == {f"label\\n{i}" for i in range(len(KEYS))} | {""}
    r = run_cli("search", "oddword", "-l")
    assert r.stdout == "agent:main:orphan:odd\\nname\n"
    (hostile / "src" / "agents" / "main" / "sessions" / "odd\nname.jsonl").unlink()
    assert run_cli("import", str(hostile / "src")).exit_code == 0
    r = run_cli("status")
    assert "transcript" in r.stderr + r.stdout
    r = run_cli("status", "--problems")
    gone = escape(str(hostile / "src" / "agents" / "main" / "sessions" / "odd\nname.jsonl"))
    problems = [x for x in r.stdout.splitlines() if "transcript_vanished" in x]
    assert len(problems) == 1, r.stdout
    assert problems[0].startswith(f"{gone}: notice: "), r.stdout
    assert not any(x.startswith("name.jsonl") for x in r.stdout.splitlines())
    for out in (run_cli("history", "nothere\nx"), run_cli("export", "nothere\nx")):
        assert out.exit_code == 2
        assert out.stderr.count("\n") == 1
        assert "nothere\\nx" in out.stderr


@pytest.mark.slow
def test_every_printed_key_names_its_session_back(hostile: Path, state: Path) -> None:
    for key in KEYS:
        shown = escape(key)
        r = run_cli("history", shown, "--json")
        assert r.exit_code == 0, (shown, r.stderr)
        assert json_out(r)["sessionKey"] == key, (shown, r.stderr)
        r = run_cli("export", shown, "--format", "json")
        assert r.exit_code == 0
        assert json_out(r)["sessionKey"] == key
        r = run_cli("search", "forgeword", "--session", shown, "-l")
        assert r.stdout.splitlines() == [shown]
        r = run_cli("search", "forgeword", "--session", shown, "--as", shown, "--json")
        assert [h["sessionKey"] for h in json_out(r)["results"]] == [key]
    # a key with a literal backslash is never read as a line break, nor the other way round
    assert run_cli("history", "agent:main:back\nslash").exit_code == 2
    # the forged key is deleted by its printed form, and the victim it spelled stays
    r = run_cli("delete", escape(EVIL), "--yes")
    assert r.exit_code == 0
    assert r.stderr.count("\n") == 1
    assert r.stderr.startswith("deleted agent:main:evil\\nagent:main:victim: 1 transcript(s)")
    assert run_cli("history", "agent:main:victim").exit_code == 0
    r = run_cli("import", str(hostile / "src"), "--undelete", escape(EVIL), "--json")
    assert "session_undeleted" in [i["code"] for i in json_out(r)["issues"]]
    assert run_cli("history", escape(EVIL)).exit_code == 0


@pytest.mark.slow
@pytest.mark.skipif(EXE is None, reason="the console script is not installed")
def test_the_installed_command_reads_escaped_keys_too(hostile: Path, state: Path) -> None:
    env = {**os.environ, "OPENCLAW_STATE_DIR": str(state)}
    for args in (["history", escape(EVIL), "--json"], ["export", escape(EVIL), "--json"]):
        r = subprocess.run([EXE, *args], env=env, capture_output=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["sessionKey"] == EVIL
    r = subprocess.run([EXE, "search", "forgeword", "--session", escape(EVIL)], env=env,
                       capture_output=True, text=True, timeout=60)  # fmt: skip
    assert r.returncode == 0
    assert r.stdout.count("\n") == 1
    assert r.stdout.startswith("agent:main:evil\\nagent:main:victim\t00000001\t")


def test_completion_offers_the_escaped_form(hostile: Path, state: Path) -> None:
    from typer.testing import CliRunner

    from openclaw_sessions.cli.app import app

    env = {"_OPENCLAW_SESSIONS_COMPLETE": "complete_fish",
           "_TYPER_COMPLETE_ARGS": "openclaw-sessions history agent:main:ev",
           "_TYPER_COMPLETE_FISH_ACTION": "get-args"}  # fmt: skip
    r = CliRunner().invoke(app, [], env=env, prog_name="openclaw-sessions")
    assert r.exit_code == 0, r.stdout
    assert r.stdout.splitlines() == [escape(EVIL)], r.stdout
