"""Consistent edges (issue #18 §5, part B), through the installed command: `import --agent`,
unknown sessions and bad windows are exit 2 everywhere, messages name CLI commands, a missing
or empty state root says where it looked, and a setting only `--as` reads does not stop the
operator."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import REPO, installed

SAMPLE = REPO / "sample" / "state"


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    """A copy of the bundled sample state root, imported and indexed."""
    root = tmp_path / "state"
    shutil.copytree(SAMPLE, root)
    r = installed("import", "--reindex", "--quiet", state=root)
    assert r.returncode == 0, r.stderr
    return root


def one_error_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: "), stderr
    return lines[0]


@pytest.mark.slow
def test_import_agent_imports_only_that_agent(tmp_path: Path) -> None:
    root = tmp_path / "state"
    shutil.copytree(SAMPLE, root)
    r = installed("import", "--agent", "ops", "--json", state=root)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["agents"] == ["ops"]
    assert not (root / "agents" / "main" / "openclaw-sessions.sqlite").exists()
    r = installed("import", "--all-agents", "--json", state=root)
    assert r.returncode == 0
    assert json.loads(r.stdout)["agents"] == ["main", "ops"]
    # $OPENCLAW_AGENT is not import's --agent: a cron shell that exports it imports every agent
    r = installed("import", "--json", "--dry-run", state=root, env={"OPENCLAW_AGENT": "main"})
    assert json.loads(r.stdout)["agents"] == ["main", "ops"]
    r = installed("import", "--all-agents", "--json", "--dry-run", state=root,
                  env={"OPENCLAW_AGENT": "main"})  # fmt: skip
    assert json.loads(r.stdout)["agents"] == ["main", "ops"]


def test_import_agent_without_a_sessions_dir_says_where_it_looked(tmp_path: Path) -> None:
    root = tmp_path / "state"
    shutil.copytree(SAMPLE, root)
    r = installed("import", "--agent", "ghost", state=root)
    assert r.returncode == 0
    assert f"looked for {root}/agents/ghost/sessions; state root set by $OPENCLAW_STATE_DIR" in (
        r.stderr
    )


@pytest.mark.slow
def test_missing_and_empty_state_roots_say_where_they_looked(tmp_path: Path) -> None:
    missing, empty = tmp_path / "missing", tmp_path / "empty"
    empty.mkdir()
    r = installed("import", state=missing)
    assert r.returncode == 4
    assert f"looked for {missing}/agents/*/sessions; state root set by $OPENCLAW_STATE_DIR" in (
        r.stderr
    )
    r = installed("import", "--state-dir", str(empty), "--json")
    assert r.returncode == 0
    (issue,) = json.loads(r.stdout)["issues"]
    assert issue["code"] == "nothing_found"
    assert "state root set by --state-dir" in issue["message"]
    for args in (["search", "x"], ["status"], ["history", "main"], ["sessions"]):
        r = installed(*args, state=missing)
        line = one_error_line(r.stderr)
        assert r.returncode == 3, (args, line)
        assert f"{missing}/agents/*/sessions" in line, (args, line)
    r = installed("status", "--all-agents", "--state-dir", str(empty))
    assert r.returncode == 3
    assert "state root set by --state-dir" in one_error_line(r.stderr)
    home = tmp_path / "home"
    r = installed("status", env={"HOME": str(home), "OPENCLAW_STATE_DIR": ""})
    assert "state root by default (neither --state-dir nor $OPENCLAW_STATE_DIR" in r.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [
        ["search", "deploy", "--session", "agent:main:nope"],
        ["search", "deploy", "--session", "nope-id", "--json"],
        ["search", "deploy", "--session", "nope", "--all-agents"],
        ["search", "deploy", "--session", "nope", "--as", "main", "--visibility", "agent"],
        ["history", "nope"],
        ["history", "agent:main:nope", "--json"],
        ["delete", "nope", "--yes"],
    ],
)
def test_an_unknown_session_is_exit_2_everywhere(sample: Path, args: list[str]) -> None:
    r = installed(*args, state=sample)
    assert r.returncode == 2, (args, r.stdout, r.stderr)
    line = one_error_line(r.stderr)
    assert "not found" in line.lower() or "no session found" in line.lower()
    # a person names keys with `sessions`; --as answers in the agent tool's words, as upstream
    assert ("sessions_list" in line) == ("--as" in args)
    if "--json" in args:
        assert json.loads(r.stdout)["status"] == "error"


@pytest.mark.slow
def test_a_session_filter_keeps_working_for_keys_aliases_and_ids(sample: Path) -> None:
    def keys_of(*args: str) -> set[str]:
        r = installed("search", "deploy", "--json", *args, state=sample)
        assert r.returncode in (0, 1), r.stderr
        return {h["sessionKey"] for h in json.loads(r.stdout)["results"]}

    everything = keys_of()
    assert keys_of("--session", "main") == {"agent:main:main"} <= everything
    assert keys_of("--session", "agent:main:main") == {"agent:main:main"}
    sid = json.loads(
        installed("history", "main", "--json", state=sample).stdout
    )["sessionId"]  # fmt: skip
    assert keys_of("--session", sid) == {"agent:main:main"}
    # An id resolves in any case (as history's does), so it filters in any case too.
    assert keys_of("--session", sid.upper()) == {"agent:main:main"}


@pytest.mark.slow
def test_not_found_points_to_the_sessions_command(sample: Path) -> None:
    r = installed("history", "nope", state=sample)
    assert "`openclaw-sessions sessions`" in one_error_line(r.stderr)


@pytest.mark.slow
def test_since_after_until_is_exit_2(sample: Path) -> None:
    for cmd in (["search", "deploy"], ["sessions"]):
        r = installed(*cmd, "--since", "2026-02-01", "--until", "2026-01-01", state=sample)
        assert r.returncode == 2, (cmd, r.stderr)
        assert "--since '2026-02-01' is after --until '2026-01-01'" in one_error_line(r.stderr)
        r = installed(*cmd, "--since", "1d", "--until", "2d", state=sample)
        assert r.returncode == 2, (cmd, r.stderr)


@pytest.mark.slow
def test_usage_errors_are_one_error_line_with_a_hint(sample: Path) -> None:
    for args in (["search"], ["search", "x", "--limit", "abc"], ["search", "x", "--bogus"],
                 ["sessions", "--limit", "x"], ["status", "--bogus"]):  # fmt: skip
        r = installed(*args, state=sample)
        assert r.returncode == 2
        assert "(hint: see `openclaw-sessions " in one_error_line(r.stderr), args


@pytest.mark.slow
def test_indexing_messages_name_cli_commands_json_keeps_upstreams_text(tmp_path: Path) -> None:
    root = tmp_path / "state"
    shutil.copytree(SAMPLE, root)
    assert installed("import", "--quiet", "--no-reindex", state=root).returncode == 0
    r = installed("search", "deploy", state=root)
    assert "run `openclaw-sessions reindex`, or add `--wait`" in r.stderr
    assert "sessions_search" not in r.stderr
    r = installed("search", "deploy", "--json", state=root)
    warning = json.loads(r.stdout)["warning"]
    assert warning.startswith("Transcript indexing is in progress; results may be incomplete.")
    assert "Retry sessions_search shortly." in warning  # upstream's contract text, unchanged


@pytest.mark.slow
def test_a_bad_visibility_setting_only_stops_as(sample: Path) -> None:
    (sample / "openclaw.json").write_text("{tools: {sessions: {visibility: 'banana'}}}")
    assert installed("search", "deploy", state=sample).returncode == 0
    assert installed("status", state=sample).returncode == 0
    assert installed("history", "main", state=sample).returncode == 0
    assert installed("sessions", state=sample).returncode == 0
    r = installed("search", "deploy", "--as", "main", state=sample)
    assert r.returncode == 2
    assert "tools.sessions.visibility must be one of" in one_error_line(r.stderr)
    r = installed("sessions", "--as", "main", state=sample)
    assert r.returncode == 2
    (sample / "openclaw.json").write_text("{tools: {sessions: {visibility: 'banana'}")
    r = installed("status", state=sample)  # a file that does not parse is still an error
    assert r.returncode == 2
    assert "invalid config" in one_error_line(r.stderr)
