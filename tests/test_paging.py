"""Long `sessions`, `search` and `log` tables page on a terminal as `history` does: through
$PAGER when taller than the screen, never with --no-pager, never off a terminal."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from helpers import Session, run_cli, write_sessions_json

pexpect = pytest.importorskip("pexpect")
EXE = shutil.which("openclaw-sessions", path=str(Path(sys.executable).parent))
pytestmark = pytest.mark.skipif(EXE is None, reason="the console script is not installed")


@pytest.fixture
def many(tmp_path: Path) -> Path:
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    entries = {}
    for i in range(30):
        s = Session(f"s{i:02d}")
        s.user(f"deploy number {i}")
        s.write(d / f"s{i:02d}.jsonl")
        entries[f"agent:main:k{i:02d}"] = {"sessionId": f"s{i:02d}", "updatedAt": 1000 + i}
    write_sessions_json(d, entries)
    state = tmp_path / "state"
    assert (
        run_cli("import", str(tmp_path / "src"), "--quiet", "--state-dir", str(state)).exit_code
        == 0
    )
    return state


def _run(args: list[str], state: Path, paged: Path) -> str:
    env = {**os.environ, "OPENCLAW_STATE_DIR": str(state), "PAGER": f"cat > {paged}",
           "NO_COLOR": "1", "TERM": "xterm"}  # fmt: skip
    child = pexpect.spawn(EXE or "", args, env=env, encoding="utf-8", dimensions=(12, 120),
                          timeout=30)  # fmt: skip
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    return child.before or ""


@pytest.mark.parametrize(
    "args", [["sessions"], ["search", "deploy", "-n", "30"], ["log", "-n", "30"]]
)
def test_a_table_taller_than_the_screen_goes_through_the_pager(
    many: Path, tmp_path: Path, args: list[str]
) -> None:
    paged = tmp_path / "paged.txt"
    shown = _run(args, many, paged)
    text = paged.read_text(encoding="utf-8")
    assert "agent:main:k29" in text
    assert "agent:main:k29" not in shown
    paged.unlink()
    shown = _run([*args, "--no-pager"], many, paged)
    assert not paged.exists()
    assert "agent:main:k29" in shown


def test_a_short_table_is_never_paged(many: Path, tmp_path: Path) -> None:
    paged = tmp_path / "paged.txt"
    shown = _run(["sessions", "-n", "2"], many, paged)
    assert not paged.exists()
    assert "agent:main:k29" in shown
