"""The installed command at a real (pseudo-)terminal, and through a pipe."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import generate_corpus

pexpect = pytest.importorskip("pexpect")

EXE = shutil.which("openclaw-sessions", path=str(Path(sys.executable).parent))
COLOUR = re.compile(r"\x1b\[[0-9;]*(3[0-9]|9[0-7]|38;)[0-9;]*m")
ANY_ESCAPE = re.compile(r"\x1b\[")
BAR_CHARS = ("━", "╸", "╺")


def corpus(tmp: Path, messages: int) -> Path:
    generate_corpus(tmp / "src", messages, agents=1, seed=3)
    return tmp / "src"


def env(tmp: Path, **extra: str) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS")}
    e.update({"OPENCLAW_STATE_DIR": str(tmp / "state"), "TERM": "xterm-256color", **extra})
    return e


def in_pty(args: list[str], environment: dict[str, str]) -> tuple[str, int]:
    assert EXE, "openclaw-sessions is not installed in this interpreter's environment"
    child = pexpect.spawn(EXE, args, env=environment, encoding="utf-8", timeout=120,
                          dimensions=(40, 160))  # fmt: skip
    out = child.read()
    child.close()
    return out, child.exitstatus if child.exitstatus is not None else -1


@pytest.mark.slow
@pytest.mark.skipif(EXE is None, reason="the console script is not installed")
def test_pty_shows_progress_bar_and_coloured_table(tmp_path: Path) -> None:
    src = corpus(tmp_path, 30_000)
    out, code = in_pty(["import", str(src)], env(tmp_path))
    assert code == 0, out
    assert any(c in out for c in BAR_CHARS), out[-2000:]
    out, code = in_pty(["reindex"], env(tmp_path))
    assert code == 0
    out, code = in_pty(["search", "deploy", "--limit", "3"], env(tmp_path))
    assert code == 0, out[-1500:]
    assert "time · role" in out, out[-1500:]
    assert COLOUR.search(out), out[-1500:]


@pytest.mark.slow
@pytest.mark.skipif(EXE is None, reason="the console script is not installed")
def test_no_color_and_pipes_disable_colour_and_bars(tmp_path: Path) -> None:
    src = corpus(tmp_path, 30_000)
    out, code = in_pty(["import", str(src), "--reindex"], env(tmp_path, NO_COLOR="1"))
    assert code == 0
    assert not any(c in out for c in BAR_CHARS)
    out, _ = in_pty(["search", "deploy", "--limit", "3"], env(tmp_path, NO_COLOR="1"))
    assert not COLOUR.search(out)
    assert EXE
    piped = subprocess.run([EXE, "search", "deploy", "--limit", "3"], env=env(tmp_path),
                           capture_output=True, text=True)  # fmt: skip
    assert piped.returncode == 0
    assert not ANY_ESCAPE.search(piped.stdout + piped.stderr)
    js = subprocess.run([EXE, "search", "deploy", "--json"], env=env(tmp_path),
                        capture_output=True, text=True)  # fmt: skip
    assert js.stdout.startswith("{")
    assert js.stdout.count("\n") == 1
