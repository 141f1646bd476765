"""A cron line that works (issue #18 §4): import reports a problem once, then counts it; with
`--quiet` it prints only what is new since the last run and exits 4 only for that; the README's
cron line runs both commands whatever the first one says, and on every state root of the real
corpus its second run is silent with exit 0. Through the installed command."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from helpers import CORPUS, REPO, SCRIPT, Session, installed, query, write_sessions_json

README = (REPO / "README.md").read_text(encoding="utf-8")
GHP = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"


def cron_line() -> str:
    """The command of the README's cron entry, exactly as written (minus the schedule)."""
    block = re.search(r"```cron\n(.*?)```", README, flags=re.S)
    assert block is not None, "the README has no cron block"
    (entry,) = [ln for ln in block.group(1).splitlines() if ln.strip() and not ln.startswith("#")]
    return re.sub(r"^(\S+\s+){5}", "", entry.strip())


def test_the_cron_line_runs_reindex_whatever_import_says() -> None:
    line = cron_line()
    assert re.match(r"(\S*/)?openclaw-sessions import --quiet; ", line)  # by its absolute path
    assert "&&" not in line
    assert "reindex" in line.split(";", 1)[1]


def _state_roots() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted({p.parent for p in CORPUS.rglob("agents") if p.is_dir()})


@pytest.mark.slow
@pytest.mark.skipif(not _state_roots(), reason="../shared/corpus/real is not present")
@pytest.mark.parametrize("root", _state_roots(), ids=lambda p: str(p.relative_to(CORPUS)))
def test_the_readme_cron_line_is_silent_on_its_second_run(root: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    shutil.copytree(root, state)
    home = tmp_path / "home"
    (home / ".local" / "bin").mkdir(parents=True)  # where pipx links the command
    (home / ".local" / "bin" / "openclaw-sessions").symlink_to(SCRIPT)
    env = {"OPENCLAW_STATE_DIR": str(state), "OPENCLAW_SESSIONS_NO_BACKGROUND": "1",
           "PATH": "/usr/bin:/bin", "HOME": str(home), "NO_COLOR": "1"}  # fmt: skip
    runs = [
        subprocess.run(["bash", "-c", cron_line()], env=env, capture_output=True, text=True,
                       timeout=300)  # fmt: skip
        for _ in range(2)
    ]
    first, second = runs
    assert "Traceback" not in first.stderr, first.stderr
    assert first.returncode in (0, 4), first.stderr
    assert (second.returncode, second.stdout, second.stderr) == (0, "", ""), second.stderr
    # status keeps the full list of what the first run reported
    st = json.loads(installed("status", "--all-agents", "--json", "--problems", state=state).stdout)
    reported = [ln for ln in first.stderr.splitlines() if ln.startswith("problem: ")]
    folded = [re.match(r"problem: \w+: (\d+) times \(first: ", ln) for ln in reported]
    every = [p for a in st["agents"] for p in a.get("problems", [])]
    remembered = [p for p in every if p["kind"] == "import"]
    assert len([p for p in remembered if p["severity"] == "error"]) == sum(
        int(m.group(1)) if m else 1 for m in folded
    )


def _missing_transcripts(src: Path, n: int) -> None:
    """A store whose entries name n transcripts that do not exist, and one that does."""
    s = Session("real-1")
    s.user("hello there")
    s.write(src / "real-1.jsonl")
    entries = {f"agent:main:gone{i}": {"sessionId": f"gone-{i}"} for i in range(n)}
    write_sessions_json(src, {**entries, "agent:main:real": {"sessionId": "real-1"}})


def _import(state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return installed("import", *args, state=state)


@pytest.mark.slow
def test_known_problems_are_counted_not_repeated(tmp_path: Path) -> None:
    state = tmp_path / "state"
    src = state / "agents" / "main" / "sessions"
    _missing_transcripts(src, 3)
    first = _import(state, "--quiet")
    assert first.returncode == 4
    assert first.stdout == ""
    assert [ln.split(": ")[1:3] for ln in first.stderr.splitlines()] == [
        ["transcript_missing", "3 times (first"]  # one line per kind
    ]
    second = _import(state, "--quiet")
    assert (second.returncode, second.stdout, second.stderr) == (0, "", "")
    loud = _import(state)
    assert loud.returncode == 0
    assert "transcript_missing" not in loud.stderr
    assert "3 issue(s) reported by an earlier import, unchanged (3 problem(s))" in loud.stderr
    doc = json.loads(_import(state, "--json").stdout)
    assert (doc["problems"], doc["newProblems"], doc["knownIssues"]) == (3, 0, 3)
    assert all(i["known"] for i in doc["issues"])
    # a new problem is reported (only it), and is the only cause of exit 4
    store = json.loads((src / "sessions.json").read_text())
    store["agent:main:gone9"] = {"sessionId": "gone-9"}
    (src / "sessions.json").write_text(json.dumps(store))
    third = _import(state, "--quiet")
    assert third.returncode == 4
    assert third.stderr.count("\n") == 1
    assert "gone-9.jsonl" in third.stderr
    assert _import(state, "--quiet").returncode == 0


def test_a_problem_that_goes_away_and_comes_back_is_new_again(tmp_path: Path) -> None:
    state = tmp_path / "state"
    src = state / "agents" / "main" / "sessions"
    _missing_transcripts(src, 1)
    assert _import(state, "--quiet").returncode == 4
    Session("gone-0").write(src / "gone-0.jsonl")  # the transcript turns up
    assert _import(state, "--quiet").returncode == 0
    assert query(state, "SELECT count(*) FROM import_problems WHERE severity = 'error'") == [(0,)]
    (src / "gone-0.jsonl").unlink()  # and vanishes again: new again
    r = _import(state, "--quiet")
    assert r.returncode == 4
    assert "transcript_missing" in r.stderr
    assert "gone-0.jsonl" in r.stderr


def test_a_dry_run_remembers_nothing_and_a_source_run_forgets_only_what_it_read(
    tmp_path: Path,
) -> None:
    state = tmp_path / "state"
    src = state / "agents" / "main" / "sessions"
    _missing_transcripts(src, 2)
    r = _import(state, "--dry-run", "--json")
    assert r.returncode == 4
    assert json.loads(r.stdout)["newProblems"] == 2
    assert _import(state, "--quiet").returncode == 4  # the dry run remembered nothing
    other = tmp_path / "other.jsonl"
    s = Session("other")
    s.user("one more")
    s.write(other)
    assert _import(state, str(other), "--quiet").returncode == 0  # reads only that file
    assert query(state, "SELECT count(*) FROM import_problems WHERE severity = 'error'") == [(2,)]
    assert _import(state, "--quiet").returncode == 0


@pytest.mark.slow
def test_status_keeps_the_full_list_with_file_and_line(tmp_path: Path) -> None:
    state = tmp_path / "state"
    src = state / "agents" / "main" / "sessions"
    _missing_transcripts(src, 1)
    bad = src / "bad.jsonl"
    bad.write_text('{"type":"session","version":3,"id":"bad"}\n'
                   f"not json {GHP}\n"
                   '{"type":"message","id":"m1","parentId":null,"message":{"role":"user",'
                   '"content":"fine"}}\n')  # fmt: skip
    _import(state, "--quiet", "--reindex")
    r = installed("status", "--problems", state=state)
    assert r.returncode == 4
    lines = [ln for ln in r.stdout.splitlines() if ": error: " in ln]
    assert f"{bad}:2: error: line_malformed: line 2:" in lines[0]
    missing = src / "gone-0.jsonl"
    assert lines[1] == f"{missing}: error: transcript_missing: transcript file not found"
    assert GHP not in r.stdout  # a problem never quotes a secret
    doc: Any = json.loads(installed("status", "--problems", "--json", state=state).stdout)
    assert [p["kind"] for p in doc["problems"]][:2] == ["quarantine", "import"]  # errors first
    assert doc["importProblems"] == 1
    assert doc["malformedLines"] == 1
    assert any("quarantine" in why for why in doc["reasons"])
    assert any("known import problem" in why for why in doc["reasons"])
    # fixed in the file and imported again: the line leaves the quarantine
    fixed = '{"type":"custom","id":"c1","parentId":null}'
    bad.write_text(bad.read_text().replace(f"not json {GHP}", fixed))
    _import(state, "--quiet")
    doc = json.loads(installed("status", "--problems", "--json", state=state).stdout)
    errors = [(p["kind"], p["code"]) for p in doc["problems"] if p["severity"] == "error"]
    assert doc["malformedLines"] == 0
    assert errors == [("import", "transcript_missing")]
