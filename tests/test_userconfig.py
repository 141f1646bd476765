"""The config file of option defaults (config.toml): read by the installed command with one
precedence, argv > environment > file > built-in default; a bad file is one `error:` line
naming the file and the key."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import Session, run_cli, write_sessions_json

EXE = shutil.which("openclaw-sessions", path=str(Path(sys.executable).parent))
KEY = "agent:main:main"
pytestmark = pytest.mark.skipif(EXE is None, reason="the console script is not installed")


@pytest.fixture
def store(state: Path) -> Path:
    sessions = state / "agents" / "main" / "sessions"
    s = Session("sess-cfg")
    for n in range(12):
        s.user(f"deploy question {n}")
        s.assistant(f"deploy answer {n}")
    s.write(sessions / "sess-cfg.jsonl")
    write_sessions_json(sessions, {KEY: {"sessionId": "sess-cfg", "updatedAt": 1}})
    assert run_cli("import", "--reindex", "--quiet").exit_code == 0
    return state


def config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "xdg-config" / "openclaw-sessions" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def cli(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    assert EXE
    return subprocess.run([EXE, *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, **env})  # fmt: skip


def hits(proc: subprocess.CompletedProcess[str]) -> int:
    return len(proc.stdout.splitlines())


@pytest.mark.slow
def test_top_level_and_command_tables_on_both_paths(store: Path, tmp_path: Path) -> None:
    config(tmp_path, 'limit = 3\ntime = "relative"\n[search]\nlimit = 5\nformat = "plain"\n')
    fast = cli("search", "deploy")
    slow = cli("search", "deploy", "--limit=+5")  # `+5`: Click reads it as 5
    assert fast.returncode == 0, fast.stderr
    assert hits(fast) == 5, fast.stderr
    assert slow.stdout == fast.stdout
    assert "ago" in fast.stdout.split("\t")[2]
    assert hits(cli("sessions", "--limit", "1")) == 1
    history = cli("history", KEY, "--no-pager")
    assert history.returncode == 0
    assert history.stdout.count("deploy") == 3


@pytest.mark.slow
def test_command_line_beats_environment_beats_file(store: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "nowhere"
    config(tmp_path, f"state-dir = {json.dumps(str(elsewhere))}\nlimit = 2\n")
    for extra in ([], ["--format", "plain"]):
        assert hits(cli("search", "deploy", *extra)) == 2  # env OPENCLAW_STATE_DIR wins
        assert hits(cli("search", "deploy", "--limit=+4", *extra)) == 4
        assert hits(cli("search", "deploy", "-n", "4", *extra)) == 4
    env = {k: v for k, v in os.environ.items() if k != "OPENCLAW_STATE_DIR"}
    proc = subprocess.run([EXE or "", "search", "deploy"], capture_output=True, text=True,
                          env=env, timeout=60)  # fmt: skip
    assert proc.returncode == 3
    assert str(elsewhere) in proc.stderr  # the file's state dir
    ok = subprocess.run([EXE or "", "search", "deploy", "--state-dir", str(store)],
                        capture_output=True, text=True, env=env, timeout=60)  # fmt: skip
    assert hits(ok) == 2


def test_format_from_the_file_gives_way_to_json(store: Path, tmp_path: Path) -> None:
    config(tmp_path, '[search]\nformat = "table"\n')
    for extra in ([], ["--limit=+10"]):
        proc = cli("search", "deploy", "--json", *extra)
        assert proc.returncode == 0, proc.stderr
        assert len(json.loads(proc.stdout)["results"]) == 10


@pytest.mark.slow
@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("bogus = 1\n", "bogus"),
        ("limit = 'ten'\n", "limit"),
        ('color = "purple"\n', "color"),
        ("[search]\nfollow = true\n", "search.follow"),
        ("[nosuch]\nlimit = 1\n", "nosuch"),
        ('[import]\nagent = "ops"\n', "import.agent"),
        ('as = "agent:main:main"\n', "as"),
        ("[mcp]\noperator = true\n", "mcp.operator"),
        ('visibility = "all"\n', "visibility"),  # an agent's view is openclaw.json's alone
        ('[mcp]\nvisibility = "agent"\n', "mcp.visibility"),
        ("limit = \n", "line 1"),  # not TOML at all
    ],
)
def test_a_bad_file_is_one_error_line(store: Path, tmp_path: Path, text: str, key: str) -> None:
    path = config(tmp_path, text)
    for args in (["search", "deploy"], ["sessions"], ["status"]):
        proc = cli(*args)
        assert proc.returncode == 2, (args, proc.stdout)
        assert proc.stderr.startswith(f"error: config file {path}: ")
        assert key in proc.stderr.splitlines()[0]
        assert "Traceback" not in proc.stderr
    assert cli("--help").returncode == 0  # help still says how to fix it


def test_named_file_must_exist(store: Path, tmp_path: Path) -> None:
    proc = cli("search", "deploy", OPENCLAW_SESSIONS_CONFIG=str(tmp_path / "missing.toml"))
    assert proc.returncode == 2
    assert "missing.toml" in proc.stderr


def test_status_says_which_file_was_read(store: Path, tmp_path: Path) -> None:
    assert json.loads(cli("status", "--json").stdout)["config"] is None
    path = config(tmp_path, "utc = true\n")
    assert json.loads(cli("status", "--json").stdout)["config"] == str(path)
    other = tmp_path / "other.toml"
    other.write_text("[history]\nlimit = 4\n", encoding="utf-8")
    verbose = cli("status", "--verbose", OPENCLAW_SESSIONS_CONFIG=str(other), COLUMNS="300")
    assert verbose.returncode == 0
    assert str(other) in verbose.stdout


def test_import_takes_no_agent_from_the_file(store: Path, tmp_path: Path) -> None:
    config(tmp_path, 'agent = "ops"\n')
    proc = cli("import", "--json")
    assert proc.returncode == 0, proc.stderr
    assert cli("history", KEY, "--agent", "main", "--limit", "1").returncode == 0


OPERATOR_DEFAULTS = """
[search]
relax = true
order = "recent"
prefix = true
explain = true
context = 1
role = "assistant"
max-bytes = 100
limit = 50
[history]
full = true
max-bytes = 0
limit = 3
"""


def test_operator_defaults_never_reach_the_agent_view(store: Path, tmp_path: Path) -> None:
    """#27: `relax = true` in the file made every `search --as` fail. Under --as the file
    gives only what upstream's tools take (a limit, at most the tool's 25; history's limit):
    the answer is the one the command line alone gives."""
    as_ = ["--as", KEY, "--json"]
    want_search = cli("search", "deploy", "--limit", "25", *as_)
    want_history = cli("history", KEY, "--limit", "3", *as_)
    assert want_search.returncode == want_history.returncode == 0
    config(tmp_path, OPERATOR_DEFAULTS)
    for extra in ([], ["--limit=+25"]):  # the fast path; `+25` hands over to Typer
        got = cli("search", "deploy", *as_, *extra)
        assert (got.returncode, got.stdout) == (0, want_search.stdout), got.stderr
    assert len(json.loads(want_search.stdout)["results"]) == 24  # both roles, no context
    got = cli("history", KEY, *as_)
    assert (got.returncode, got.stdout) == (0, want_history.stdout), got.stderr
    # the operator still gets the file's defaults (--explain among them)
    assert "explain" in json.loads(cli("search", "deploy", "--json").stdout)


@pytest.mark.parametrize(
    ("text", "typed", "shape"),
    [
        ("json = true\n", ["--jsonl"], "jsonl"),
        ("json = true\n", ["--format", "plain"], "plain"),
        ("[search]\njsonl = true\n", ["--json"], "json"),
        ('[search]\nformat = "plain"\n', ["--jsonl"], "jsonl"),
    ],
)
def test_the_command_line_wins_over_the_files_output_form(
    store: Path, tmp_path: Path, text: str, typed: list[str], shape: str
) -> None:
    config(tmp_path, text)
    proc = cli("search", "deploy", "--limit", "3", *typed)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    if shape == "json":
        assert len(json.loads(proc.stdout)["results"]) == 3
    elif shape == "jsonl":
        assert len(lines) == 3
        assert all("sessionKey" in json.loads(line) for line in lines)
    else:
        assert len(lines) == 3
        assert all(line.startswith(f"{KEY}\t") for line in lines)


# A bad config.toml is one `error:` line (exit 2), never a traceback, a hang or a megabyte
# echoed (issue #34 point 5): bytes that are not UTF-8, inline tables nested thousands deep, a
# FIFO or a device as the file, a huge bad value.


def _cli(path: Path | str) -> subprocess.CompletedProcess[str]:
    assert EXE
    env = {**os.environ, "OPENCLAW_SESSIONS_CONFIG": str(path)}
    # a hang would be the failure: the timeout turns it into one
    return subprocess.run([EXE, "sessions"], capture_output=True, text=True, timeout=60, env=env)


def _one_line(proc: subprocess.CompletedProcess[str], path: Path | str, why: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"error: config file {path}: "), proc.stderr[:300]
    assert proc.stderr.count("\n") == 1
    assert "Traceback" not in proc.stderr
    assert why in proc.stderr
    assert len(proc.stderr) < 600


def test_bytes_that_are_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_bytes(b'format = "caf\xe9"\n')
    _one_line(_cli(path), path, "not UTF-8 (byte 0xe9 at offset 13)")


def test_deep_inline_tables(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("x = " + "{a = " * 5000 + "1" + "}" * 5000 + "\n", encoding="utf-8")
    _one_line(_cli(path), path, "nested too deeply")


def test_a_fifo_or_a_device_is_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    _one_line(_cli(fifo), fifo, "not a regular file")
    _one_line(_cli("/dev/zero"), "/dev/zero", "not a regular file")


def test_a_huge_value_or_file_is_not_echoed(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('time = "' + "x" * 500_000 + '"\n', encoding="utf-8")
    _one_line(_cli(path), path, "time")
    path.write_text('time = "' + "x" * 2_000_000 + '"\n', encoding="utf-8")
    _one_line(_cli(path), path, "larger than 1 MiB")


def test_dev_null_names_no_config_file() -> None:
    """`OPENCLAW_SESSIONS_CONFIG=/dev/null` means "none", as GIT_CONFIG=/dev/null does (pick
    runs its list and preview so): the one device that is not refused."""
    proc = _cli(os.devnull)
    assert "config file" not in proc.stderr
    assert proc.returncode in (0, 3)  # whatever the store says, never the config's exit 2
