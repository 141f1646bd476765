"""Every command the README shows runs against the bundled sample data."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

BIN = Path(sys.executable).parent
README = (REPO / "README.md").read_text(encoding="utf-8")
SKIP = ("pipx install", "pip install", "bash scripts/test.sh")


def readme_commands() -> list[str]:
    cmds = []
    for block in re.findall(r"```(?:sh|cron)\n(.*?)```", README, flags=re.S):
        for raw in block.splitlines():
            line = raw.split(" #")[0].strip()
            if not line or line.startswith("#") or any(s in line for s in SKIP):
                continue
            line = re.sub(r"^(\S+\s+){5}", "", line) if line.startswith("*/") else line
            cmds.append(line)
    return cmds


def test_readme_has_the_two_first_commands() -> None:
    first = re.search(r"```sh\n(.*?)```", README, flags=re.S)
    assert first is not None
    body = [ln for ln in first.group(1).splitlines() if ln and not ln.startswith("#")]
    assert body == ["bash scripts/demo.sh deploy", "bash scripts/test.sh"]
    ci = (REPO / ".ci" / "run").read_text()
    assert "scripts/test.sh" in ci


@pytest.fixture
def demo_env(tmp_path: Path) -> dict[str, str]:
    state = tmp_path / "state"
    shutil.copytree(REPO / "sample" / "state", state)
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env.update({"PATH": f"{BIN}{os.pathsep}{env['PATH']}", "HOME": str(tmp_path),
                "OPENCLAW_STATE_DIR": str(state), "VENV": sys.prefix,
                "OPENCLAW_SESSIONS_DEMO_SKIP_INSTALL": "1"})  # fmt: skip
    (tmp_path / "backup").mkdir()
    shutil.copytree(REPO / "sample" / "state", tmp_path / "backup" / ".openclaw")
    return env


@pytest.mark.parametrize("cmd", readme_commands())
def test_readme_command_runs(cmd: str, demo_env: dict[str, str]) -> None:
    if "jq" in cmd and shutil.which("jq") is None:
        pytest.skip("jq is not installed")
    # the searches need an index: the README's own first import provides it
    subprocess.run([BIN / "openclaw-sessions", "import", "--reindex", "--quiet"], env=demo_env,
                   check=True)  # fmt: skip
    r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], env=demo_env, cwd=REPO,
                       capture_output=True, text=True, timeout=300)  # fmt: skip
    assert r.returncode in (0, 1), (cmd, r.stdout[-2000:], r.stderr[-2000:])
    assert "Traceback" not in r.stderr and "error:" not in r.stderr, (cmd, r.stderr)
