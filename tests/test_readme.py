"""Every command the README shows runs against the bundled sample data."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO

BIN = Path(sys.executable).parent
README = (REPO / "README.md").read_text(encoding="utf-8")
# the fleet's commands need a PostgreSQL server: tests/test_remote_sync.py runs them
SKIP = ("pipx install", "pip install", "bash scripts/test.sh", "push ", "--remote")


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
    (tmp_path / ".local" / "bin").mkdir(parents=True)  # where pipx links the command
    (tmp_path / ".local" / "bin" / "openclaw-sessions").symlink_to(BIN / "openclaw-sessions")
    return env


@pytest.mark.slow
@pytest.mark.parametrize("cmd", readme_commands())
def test_readme_command_runs(cmd: str, demo_env: dict[str, str]) -> None:
    for tool in ("jq", "fzf"):  # the fzf recipe's preview has its own test, below
        if f"| {tool} " in cmd and shutil.which(tool, path=demo_env["PATH"]) is None:
            pytest.skip(f"{tool} is not installed")
    # fzf needs a terminal to ask; --filter runs the same pipeline and picks every line
    cmd = cmd.replace("| fzf ", "| fzf --filter '' ")
    # the searches need an index: the README's own first import provides it
    subprocess.run([BIN / "openclaw-sessions", "import", "--reindex", "--quiet"], env=demo_env,
                   check=True)  # fmt: skip
    r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], env=demo_env, cwd=REPO,
                       capture_output=True, text=True, timeout=300)  # fmt: skip
    assert r.returncode in (0, 1), (cmd, r.stdout[-2000:], r.stderr[-2000:])
    assert "Traceback" not in r.stderr, (cmd, r.stderr)
    assert "error:" not in r.stderr, (cmd, r.stderr)


# The sample is dated January 2026: a span back from today finds nothing in it, so the
# searches below run with the span replaced by a date before the sample.
RELATIVE = re.compile(r"--(since|until) (\d+[a-z]+|yesterday|today)\b")
# Known misses: the README example stays, so the test fails (xfail strict) once it finds.
MISSES: dict[str, str] = {}


def readme_searches() -> list[object]:
    out: list[object] = []
    for cmd in readme_commands():
        if not cmd.startswith("openclaw-sessions search ") or "| fzf " in cmd:
            continue
        miss = [why for q, why in MISSES.items() if q in cmd]
        marks = [pytest.mark.xfail(strict=True, reason=miss[0])] if miss else []
        out.append(pytest.param(cmd, marks=marks, id=cmd))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("cmd", readme_searches())
def test_readme_search_finds_something(cmd: str, demo_env: dict[str, str]) -> None:
    """Every search the README shows finds hits in the sample (exit 0, output printed)."""
    if "| jq " in cmd and shutil.which("jq") is None:
        pytest.skip("jq is not installed")
    subprocess.run([BIN / "openclaw-sessions", "import", "--reindex", "--quiet"], env=demo_env,
                   check=True)  # fmt: skip
    cmd = RELATIVE.sub(r"--\1 2026-01-01", cmd)
    r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], env=demo_env, cwd=REPO,
                       capture_output=True, text=True, timeout=300)  # fmt: skip
    assert r.returncode == 0, (cmd, r.stdout[-2000:], r.stderr[-2000:])
    assert r.stdout.strip(), (cmd, r.stdout[-2000:], r.stderr[-2000:])


def test_the_plain_line_the_readme_shows_is_what_search_prints(demo_env: dict[str, str]) -> None:
    """The README's example of a plain search line (key, message id, role, the snippet's
    start) is a line `search deploy` prints on the sample; the time's zone is the reader's."""
    shown = re.search(r"```text\nsessionKey<TAB>messageId[^\n]*\n([^\n]*)\n```", README)
    assert shown is not None
    key, mid, _time, role, snippet = shown[1].split("\t")
    subprocess.run([BIN / "openclaw-sessions", "import", "--reindex", "--quiet"], env=demo_env,
                   check=True)  # fmt: skip
    r = subprocess.run([BIN / "openclaw-sessions", "search", "deploy"], env=demo_env,
                       capture_output=True, text=True)  # fmt: skip
    assert r.returncode == 0, r.stderr
    lines = [ln.split("\t") for ln in r.stdout.splitlines()]
    assert any(
        f[:2] == [key, mid] and f[3] == role and f[4].startswith(snippet.rstrip(" …"))
        for f in lines
    ), (shown[1], r.stdout)


@pytest.mark.slow
def test_fzf_recipe_previews_the_conversation_around_a_hit(demo_env: dict[str, str]) -> None:
    """What fzf would do with the README's recipe: split a plain search line at its tabs and
    run the --preview command with {1} and {2} filled in, as fzf quotes them."""
    (line,) = [c for c in readme_commands() if "| fzf " in c]
    search = line.split(" | fzf ")[0]
    preview = re.search(r"--preview '([^']*)'", line)
    assert preview is not None
    assert "{1}" in preview[1]
    assert "{2}" in preview[1]
    subprocess.run([BIN / "openclaw-sessions", "import", "--reindex", "--quiet"], env=demo_env,
                   check=True)  # fmt: skip
    hits = subprocess.run(["bash", "-c", search], env=demo_env, capture_output=True, text=True)
    assert hits.returncode == 0, hits.stderr
    first = hits.stdout.splitlines()[0].split("\t")
    assert len(first) == 5
    assert first[0].startswith("agent:")
    cmd = preview[1].replace("{1}", shlex.quote(first[0])).replace("{2}", shlex.quote(first[1]))
    shown = subprocess.run(["bash", "-c", cmd], env=demo_env, capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr
    marked = [ln for ln in shown.stdout.splitlines() if "◀ this message" in ln]
    assert len(marked) == 1
    assert first[1] in marked[0]
    assert "\x1b[" in marked[0]  # coloured


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("jq") is None, reason="jq is not installed")
@pytest.mark.parametrize(
    "marker, check",
    [
        (".matches[]", lambda out: out.split() and {w.lower() for w in out.split()} == {"deploy"}),
        ('select(.role == "assistant")', lambda out: "The deploy failed" in out),
    ],
)
def test_jq_recipes_print_what_they_promise(demo_env: dict[str, str], marker: str,
                                            check: object) -> None:  # fmt: skip
    (cmd,) = [c for c in readme_commands() if marker in c]
    subprocess.run([BIN / "openclaw-sessions", "import", "--reindex", "--quiet"], env=demo_env,
                   check=True)  # fmt: skip
    r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], env=demo_env, capture_output=True,
                       text=True)  # fmt: skip
    assert r.returncode == 0, (cmd, r.stdout, r.stderr)
    assert callable(check), (cmd, r.stdout, r.stderr)
    assert check(r.stdout), (cmd, r.stdout, r.stderr)
