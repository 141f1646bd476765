"""The console script's entry point: same program, the collector on while commands run."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

from openclaw_sessions.cli import main


def test_collector_is_on_while_the_command_runs_and_after(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[bool] = []
    from openclaw_sessions.cli import app

    monkeypatch.setattr(app, "app", lambda **_: seen.append(gc.isenabled()))
    monkeypatch.setattr(sys, "argv", ["openclaw-sessions", "--version"])  # not the fast path
    try:
        main.main()
    finally:
        gc.unfreeze()  # the test process keeps collecting what it frees
    assert seen == [True] and gc.isenabled()


def test_exit_codes_pass_through(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["openclaw-sessions", "search", "   "])
    try:
        with pytest.raises(SystemExit) as exc:
            main.main()
    finally:
        gc.unfreeze()
    assert exc.value.code == 2 and gc.isenabled()


def test_hot_paths_import_no_dataclasses_inspect_typer_or_rich() -> None:
    """`search --json` and `history --json` pay for every import: dataclasses (and the
    inspect, ast, dis… it pulls in), Typer and Rich stay out of their modules."""
    code = (
        "import sys\n"
        "import openclaw_sessions.cli.fastargs, openclaw_sessions.cli.run\n"
        "import openclaw_sessions.read.search, openclaw_sessions.read.history\n"
        "print(sorted(m for m in ('dataclasses', 'inspect', 'typer', 'rich') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    )
    assert out.stdout.strip() == "[]"


def test_installed_script_runs(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "openclaw-sessions"
    env = {"OPENCLAW_STATE_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([script, "--version"], capture_output=True, text=True, env=env)
    assert out.returncode == 0 and out.stdout.startswith("openclaw-sessions ")
    out = subprocess.run([script, "status"], capture_output=True, text=True, env=env)
    assert out.returncode == 3 and out.stderr.startswith("error: no database")
