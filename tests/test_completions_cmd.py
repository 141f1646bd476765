"""`completions bash|zsh|fish` through the installed command: it prints the shipped script (package
data, so a wheel or pipx install has it), and each shell set up with the README's one line
completes a session key, colons and all. Typer's generic --install-completion is gone."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import pytest
from helpers import REPO, Session, run_cli, write_sessions_json

EXE = shutil.which("openclaw-sessions", path=str(Path(sys.executable).parent))
SHIPPED = {
    "bash": "openclaw-sessions.bash",
    "zsh": "_openclaw-sessions",
    "fish": "openclaw-sessions.fish",
}
pytestmark = pytest.mark.skipif(EXE is None, reason="the console script is not installed")


@pytest.fixture
def store(state: Path) -> Path:
    sessions = state / "agents" / "main" / "sessions"
    entries = {}
    for n, key in enumerate(("agent:main:main", "agent:main:discord:direct:bob")):
        Session(f"sess-{n}").write(sessions / f"sess-{n}.jsonl")
        entries[key] = {"sessionId": f"sess-{n}", "updatedAt": n}
    write_sessions_json(sessions, entries)
    assert run_cli("import", "--quiet").exit_code == 0
    return state


def shell_env() -> dict[str, str]:
    path = f"{Path(EXE or '').parent}{os.pathsep}{os.environ['PATH']}"
    return {**os.environ, "PATH": path, "TERM": "dumb", "INPUTRC": "/dev/null"}


@pytest.mark.parametrize("shell", sorted(SHIPPED))
def test_prints_the_shipped_script(shell: str) -> None:
    proc = subprocess.run([EXE or "", "completions", shell], capture_output=True, text=True)
    shipped = REPO / "openclaw_sessions" / "cli" / "completions" / SHIPPED[shell]
    assert proc.returncode == 0
    assert proc.stdout == shipped.read_text(encoding="utf-8")
    resource = files("openclaw_sessions.cli").joinpath("completions", SHIPPED[shell])
    assert resource.read_text(encoding="utf-8") == proc.stdout  # package data, as installed


def test_unknown_shell_and_generic_install_completion_are_errors() -> None:
    proc = subprocess.run([EXE or "", "completions", "tcsh"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: SHELL must be one of")
    for option in ("--install-completion", "--show-completion"):
        proc = subprocess.run([EXE or "", option], capture_output=True, text=True)
        assert proc.returncode == 2
        assert "no such option" in proc.stderr.lower()


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_eval_line_completes_a_key_with_colons(store: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn("bash", ["--norc", "--noprofile", "-i"], env=shell_env(),
                          encoding="utf-8", timeout=30, dimensions=(24, 200))  # fmt: skip
    try:
        child.sendline("eval \"$(openclaw-sessions completions bash)\"; PS1='READY> '")
        child.expect("READY> ")
        child.send("openclaw-sessions delete agent:main:dis\t")
        child.expect_exact("agent:main:discord:direct:bob ")
    finally:
        child.sendcontrol("c")
        child.close(force=True)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_zsh_eval_line_completes_a_key_with_colons(store: Path, tmp_path: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    zdot = tmp_path / "zdot"
    zdot.mkdir()
    (zdot / ".zshrc").write_text(
        "autoload -Uz compinit && compinit -u -D\n"
        'eval "$(openclaw-sessions completions zsh)"\n'
        "PS1='READY> '\n"
    )
    child = pexpect.spawn("zsh", ["-i"], env={**shell_env(), "ZDOTDIR": str(zdot)},
                          encoding="utf-8", timeout=30, dimensions=(24, 200))  # fmt: skip
    try:
        child.expect("READY> ")
        child.send("openclaw-sessions delete agent:main:dis\t")
        child.expect_exact("agent:main:discord:direct:bob")
    finally:
        child.sendcontrol("c")
        child.close(force=True)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_source_line_completes_a_key_with_colons(store: Path) -> None:
    script = (
        "openclaw-sessions completions fish | source; "
        "complete -C 'openclaw-sessions delete agent:main:d'"
    )
    proc = subprocess.run(["fish", "--no-config", "-c", script], capture_output=True, text=True,
                          env=shell_env(), timeout=60)  # fmt: skip
    assert [x.split("\t")[0] for x in proc.stdout.splitlines()] == [
        "agent:main:discord:direct:bob"
    ], proc.stderr


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_zsh_descriptions_keep_their_apostrophes(store: Path) -> None:
    """Typer writes ' as '' in a single-quoted word: zsh reads it back only with RC_QUOTES,
    which the script sets for its own function. The script's function runs as zsh runs it,
    with _arguments (what it hands the candidates to) printing what it was given."""
    script = (
        "compdef() { :; }; _arguments() { print -r -- \"$@\"; }\n"
        'eval "$(openclaw-sessions completions zsh)"\n'
        "words=(openclaw-sessions search --nu); CURRENT=3\n"
        "_openclaw_sessions_completion\n"
    )
    proc = subprocess.run(["zsh", "-f", "-c", script], env=shell_env(), capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Print each hit's session key" in proc.stdout
