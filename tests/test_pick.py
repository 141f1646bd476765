"""`pick` through the installed command in a pty, on the system's fzf: typing reloads the hit
list, the preview shows the conversation, enter prints `key<TAB>messageId`, ctrl-e exports; a
query is never read as shell syntax; without fzf it is one `error:` line (exit 2)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO, run_cli

pexpect = pytest.importorskip("pexpect")

EXE = shutil.which("openclaw-sessions", path=str(Path(sys.executable).parent))
# the [pick] extra's fzf (in .[test]) beside the interpreter, else the system's
FZF = shutil.which("fzf", path=str(Path(sys.executable).parent)) or shutil.which("fzf")
needs_fzf = pytest.mark.skipif(
    FZF is None, reason="fzf is not installed (the [pick] extra installs it: pip install .[pick])"
)
pytestmark = pytest.mark.skipif(EXE is None, reason="the console script is not installed")


@pytest.fixture
def sample(state: Path) -> Path:
    r = run_cli("import", str(REPO / "sample" / "state"), "--reindex", "--quiet")
    assert r.exit_code == 0, r.stderr
    return state


def first_hit(query: str, *extra: str) -> str:
    """What enter prints for ``query`` (fzf's cursor starts on the best hit): key<TAB>id."""
    r = run_cli("search", query, "--format", "plain", "--limit", "1", *extra)
    return "\t".join(r.stdout.split("\t")[:2])


def env(**extra: str) -> dict[str, str]:
    return {**os.environ, "TERM": "xterm-256color", **extra}


def spawn(args: list[str], cwd: Path) -> pexpect.spawn:
    assert EXE
    return pexpect.spawn(EXE, args, env=env(), cwd=str(cwd), encoding="utf-8", timeout=30,
                         dimensions=(30, 160))  # fmt: skip


@pytest.mark.slow
@needs_fzf
def test_type_a_query_see_hits_and_preview_enter_prints_key_and_id(
    sample: Path, tmp_path: Path
) -> None:
    child = spawn(["pick"], tmp_path)
    try:
        child.expect_exact("search>")
        child.send("migrat")  # as typed so far: the last word is a prefix
        child.expect_exact("The deploy failed")  # the list reloaded for the query
        child.expect_exact("78dde6c6")  # the preview: history --around the hit
        child.send("\r")
        child.expect_exact(first_hit("migrat", "--prefix"))
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0


@pytest.mark.slow
@needs_fzf
def test_the_list_follows_the_query_and_quotes_it(sample: Path, tmp_path: Path) -> None:
    """Each keystroke reloads; a query with quotes and $( ) is a query, not shell code."""
    child = spawn(["pick", "café"], tmp_path)
    try:
        child.expect_exact("Merci")  # the first query's list
        child.send("\x15")  # ctrl-u: clear the query
        child.send("deploy'\"; touch pwned1 $(touch pwned2) `touch pwned3`")
        child.send("\x15")
        child.send("lock_timeout")
        # the list came back after the hostile queries: a list row (time, role, snippet on one
        # line), not the previous hit's preview (where the role heads its own line)
        child.expect(r"assistant(\s|\x1b\[[0-9;]*m)+Use: SET lock_timeout")
        child.send("\r")
        child.expect_exact(first_hit("lock_timeout", "--prefix"))
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    assert not list(tmp_path.glob("pwned*"))


@pytest.mark.slow
@needs_fzf
def test_enter_prints_to_a_pipe_and_ctrl_e_exports_markdown(sample: Path, tmp_path: Path) -> None:
    out = tmp_path / "picked.txt"
    child = pexpect.spawn("bash", ["-c", f"{shlex.quote(EXE or '')} pick deploy > {out}"],
                          env=env(), cwd=str(tmp_path), encoding="utf-8", timeout=30,
                          dimensions=(30, 160))  # fmt: skip
    try:
        child.expect_exact("The deploy failed")
        child.send("\r")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    assert out.read_text(encoding="utf-8").startswith("agent:main:")
    child = spawn(["pick", "migration"], tmp_path)
    try:
        child.expect_exact("The deploy failed")
        child.sendcontrol("e")
        child.expect_exact("migration 0042 timed out")  # the export, after fzf is gone
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0


@pytest.mark.slow
@needs_fzf
def test_escape_leaves_with_130(sample: Path, tmp_path: Path) -> None:
    child = spawn(["pick", "deploy"], tmp_path)
    try:
        child.expect_exact("The deploy failed")
        child.send("\x1b")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 130


@pytest.mark.slow
@needs_fzf
def test_the_config_file_does_not_shape_the_list(sample: Path, tmp_path: Path) -> None:
    want = first_hit("deploy")
    config = tmp_path / "xdg-config" / "openclaw-sessions" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[search]\njson = true\n", encoding="utf-8")  # pick's list stays plain
    child = spawn(["pick", "deploy"], tmp_path)
    try:
        child.expect_exact("The deploy failed")
        child.send("\r")
        child.expect_exact(want)
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0


def test_without_fzf_it_says_how_to_install_it(
    sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Neither the extra's fzf beside the interpreter nor one on PATH: one error line."""
    bare = tmp_path / "bin"
    bare.mkdir()
    monkeypatch.setattr(sys, "executable", str(bare / "python"))
    monkeypatch.setenv("PATH", str(bare))
    r = run_cli("pick", "deploy")
    assert r.exit_code == 2
    assert r.stdout == ""
    line = r.stderr.splitlines()[0]
    assert line.startswith("error: pick needs fzf")
    assert "openclaw-sessions[pick]" in line


@pytest.mark.slow
@pytest.mark.parametrize(
    ("query", "whole_words", "hits"),
    [("migrat", False, True), ("migrat", True, False), ("migration", True, True),
     ("mi", False, False), ("it's $(touch pwned) `touch pwned`", False, False)],
)  # fmt: skip
def test_the_reload_command_as_fzf_runs_it(
    sample: Path, tmp_path: Path, query: str, whole_words: bool, hits: bool
) -> None:
    """fzf single-quotes {q} ('\\'' for a quote, as shlex does) and runs the reload with sh."""
    from openclaw_sessions.cli.commands import pick

    argv = pick.fzf_argv(pick.PickOptions(whole_words=whole_words))
    (reload,) = [a.removeprefix("change:reload:") for a in argv if a.startswith("change:reload:")]
    out = subprocess.run(["sh", "-c", reload.replace("{q}", shlex.quote(query))], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60)  # fmt: skip
    assert out.returncode == 0
    assert bool(out.stdout) is hits
    assert all(  # key, id, then the row people read
        len(x.split("\t")) == 3 for x in out.stdout.splitlines()
    )
    assert not list(tmp_path.glob("pwned*"))


@pytest.mark.slow
@needs_fzf
def test_ctrl_o_pages_on_the_terminal_then_enter_still_prints(
    sample: Path, tmp_path: Path
) -> None:
    """The pager writes to the terminal, not into fzf's output (which is the pick's answer):
    after quitting it, enter prints the hit as it would have without ctrl-o."""
    out = tmp_path / "picked.txt"
    child = pexpect.spawn("bash", ["-c", f"{shlex.quote(EXE or '')} pick migration > {out}"],
                          env=env(LESS="-X"), cwd=str(tmp_path), encoding="utf-8",
                          timeout=30, dimensions=(30, 160))  # fmt: skip
    try:
        child.expect_exact("The deploy failed")
        child.sendcontrol("o")
        child.expect_exact("migration 0042 timed out")  # the conversation, in less
        child.send("q")
        child.expect_exact("search>")  # back in the list
        child.send("\r")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    assert out.read_text(encoding="utf-8") == first_hit("migration", "--prefix") + "\n"


@pytest.mark.slow
@needs_fzf
def test_no_query_lists_what_the_agents_said_lately(sample: Path, tmp_path: Path) -> None:
    newest = run_cli("log", "--format", "plain", "--limit", "1").stdout.split("\t")
    child = spawn(["pick"], tmp_path)
    try:
        child.expect_exact("search>")
        child.expect_exact(newest[4].strip()[:30])  # the newest message's opening
        child.send("\r")
        child.expect_exact("\t".join(newest[:2]))
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
