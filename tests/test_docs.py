"""Generated docs: completions and the man page match the app, and they really work.

The app is introspected (never a hard-coded command list), so a new command or option fails
here until `python scripts/gen_docs.py` is run and documents it.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import typer
from helpers import REPO, Session, run_cli, typer_complete, write_sessions_json

from openclaw_sessions.cli.app import app
from openclaw_sessions.cli.completion import complete_session_key
from openclaw_sessions.errors import ExitCode

PROG = "openclaw-sessions"
MAN = REPO / "man" / "openclaw-sessions.1"
BASH = REPO / "openclaw_sessions" / "cli" / "completions" / "openclaw-sessions.bash"
ZSH = REPO / "openclaw_sessions" / "cli" / "completions" / "_openclaw-sessions"
FISH = REPO / "openclaw_sessions" / "cli" / "completions" / "openclaw-sessions.fish"
KEYS = ("agent:main:main", "agent:main:discord:direct:bob", "agent:main:cron:nightly")


@cache
def gen_docs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_docs", REPO / "scripts" / "gen_docs.py")
    assert spec
    assert spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def generated() -> dict[Path, str]:
    return dict(gen_docs().render_all())


def man_text() -> str:
    return MAN.read_text(encoding="utf-8")


# --- drift -------------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(generated()), ids=str)
def test_generated_file_is_up_to_date(path: Path) -> None:
    target = REPO / path
    assert target.is_file(), f"{path} is missing: run python scripts/gen_docs.py"
    assert target.read_text(encoding="utf-8") == generated()[path], (
        f"{path} has drifted from the app: run python scripts/gen_docs.py"
    )


def test_check_mode_exits_0_when_nothing_drifted() -> None:
    if any((REPO / p).read_text(encoding="utf-8") != t for p, t in generated().items()):
        pytest.skip("files have drifted (reported by test_generated_file_is_up_to_date)")
    proc = subprocess.run([sys.executable, "scripts/gen_docs.py", "--check"], cwd=REPO,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert proc.returncode == 0, proc.stderr


def test_check_mode_lists_drifted_files(tmp_path: Path) -> None:
    mod = gen_docs()
    for path, text in generated().items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    assert mod.drifted(tmp_path) == []
    (tmp_path / mod.FISH).write_text("stale\n", encoding="utf-8")
    (tmp_path / mod.MAN).unlink()
    assert set(mod.drifted(tmp_path)) == {mod.FISH, mod.MAN}


# --- the man page covers the app ---------------------------------------------------------


def _commands() -> Iterator[tuple[str, Any, Any]]:
    group = typer.main.get_command(app)
    ctx = group.make_context(PROG, [], resilient_parsing=True)
    yield "", group, ctx
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        if cmd is not None and not cmd.hidden:
            yield name, cmd, cmd.make_context(name, [], parent=ctx, resilient_parsing=True)


def _section(text: str, command: str) -> str:
    """A command's .SS block of the man page ('' = the top-level OPTIONS section)."""
    start = ".SH OPTIONS" if not command else f'.SS "{command}"'
    assert start in text, f"the man page has no section for {command or 'global options'}"
    body = text.split(start, 1)[1]
    return re.split(r"^\.S[SH] ", body, maxsplit=1, flags=re.M)[0]


def roff(option: str) -> str:
    return "\\fB" + option.replace("-", "\\-") + "\\fR"


def test_app_has_the_contract_commands() -> None:
    names = {name for name, _, _ in _commands()}
    assert {"import", "search", "reindex", "status", "delete"} <= names


@pytest.mark.parametrize("command", [name for name, _, _ in _commands()], ids=lambda n: n or "-")
def test_man_page_documents_every_option(command: str) -> None:
    name, cmd, ctx = next(c for c in _commands() if c[0] == command)
    section = _section(man_text(), name)
    for param in cmd.get_params(ctx):
        hidden = getattr(param, "hidden", False)
        if param.param_type_name == "argument":
            assert hidden or f"\\fI{str(param.name).upper()}" in section, param.name
            continue
        for opt in (*param.opts, *param.secondary_opts):
            if hidden:
                assert roff(opt) not in section, f"hidden {opt} is documented"
            else:
                assert roff(opt) in section, f"{name or PROG} {opt} is not in the man page"
        if param.help and not hidden:
            assert " ".join(param.help.split()[:3]) in section.replace("\\-", "-")


def test_man_page_sections_exit_codes_and_environment() -> None:
    text = man_text()
    sections = re.findall(r"^\.SH (.+)$", text, flags=re.M)
    for wanted in ("NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "ENVIRONMENT",
                   "EXIT STATUS", "FILES", "EXAMPLES", "SEE ALSO"):  # fmt: skip
        assert wanted in sections
    exits = _between(text, "EXIT STATUS")
    for code in ExitCode:
        assert f".TP\n\\fB{int(code)}\\fR\n" in exits
    env = _between(text, "ENVIRONMENT")
    read = {  # every variable the package reads is documented
        m
        for f in (REPO / "openclaw_sessions").rglob("*.py")
        for m in re.findall(r"environ\.get\(\s*\"(OPENCLAW_[A-Z_]+)\"", f.read_text("utf-8"))
    }
    assert {"OPENCLAW_STATE_DIR", "OPENCLAW_SESSIONS_BUSY_TIMEOUT_MS"} <= read
    for var in sorted(read | {"NO_COLOR", "OPENCLAW_CONFIG_PATH"}):
        assert f"\\fB{var}\\fR" in env, var
    files = _between(text, "FILES").replace("\\-", "-")
    for name in ("openclaw-sessions.sqlite", "openclaw.json", "/sessions/", "reconcile.lock",
                 "background.lock"):  # fmt: skip
        assert name in files


def _between(text: str, heading: str) -> str:
    return re.split(r"^\.SH ", text.split(f".SH {heading}\n", 1)[1], maxsplit=1, flags=re.M)[0]


def test_man_page_text_lines_are_escaped() -> None:
    for n, line in enumerate(man_text().splitlines(), 1):
        if line.startswith("."):
            assert re.match(r"\.(\\\"|[A-Za-z]{1,2}\b)", line), f"line {n}: {line}"
        else:
            assert not line.startswith("'"), f"line {n} would be read as a request"
        assert not re.search(r"(?<![\\\w-])--?[a-z]", line), f"line {n}: unescaped option dash"


@pytest.mark.skipif(shutil.which("groff") is None, reason="groff is not installed")
def test_groff_reports_no_warnings() -> None:
    proc = subprocess.run(["groff", "-ww", "-man", "-Tutf8", str(MAN)], capture_output=True,
                          timeout=60)  # fmt: skip
    assert proc.returncode == 0
    assert proc.stderr.decode() == ""


@pytest.mark.skipif(shutil.which("man") is None, reason="man is not installed")
def test_man_renders_the_page() -> None:
    env = {**os.environ, "MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "100"}
    proc = subprocess.run(["man", "-l", str(MAN)], capture_output=True, text=True, env=env,
                          timeout=60)  # fmt: skip
    if "minimized" in proc.stdout + proc.stderr:
        pytest.skip("man is the stub of a minimized system")
    assert proc.returncode == 0, proc.stderr
    plain = re.sub(r".\x08", "", proc.stdout)  # overstrike bold, if man kept it
    assert "OPENCLAW-SESSIONS(1)" in plain
    for name, _, _ in _commands():
        assert name in plain
    assert "--state-dir" in plain  # \- rendered as a plain ASCII minus, copy-pasteable


# --- completion scripts ------------------------------------------------------------------


@pytest.mark.parametrize(("shell", "path"), [("bash", BASH), ("zsh", ZSH), ("fish", FISH)])
def test_completion_script_syntax(shell: str, path: Path) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed (CI: .ci/install-shells.sh)")
    proc = subprocess.run([shell, "-n", str(path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_zsh_script_is_autoloadable() -> None:
    assert ZSH.read_text(encoding="utf-8").startswith(f"#compdef {PROG}\n")


@pytest.fixture
def on_path(tmp_path: Path) -> dict[str, str]:
    """An environment whose PATH has `openclaw-sessions` running this checkout."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    wrapper = bindir / PROG
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m openclaw_sessions "$@"\n')
    wrapper.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{bindir}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return env


@pytest.fixture
def store(state: Path) -> Path:
    """A real store made by importing small transcripts through the CLI."""
    sessions = state / "agents" / "main" / "sessions"
    entries = {}
    for n, key in enumerate(KEYS):
        s = Session(f"sess-{n}")
        s.user(f"hello number {n}")
        s.write(sessions / f"sess-{n}.jsonl")
        entries[key] = {"sessionId": f"sess-{n}", "updatedAt": n}
    write_sessions_json(sessions, entries)
    result = run_cli("import", "--quiet")
    assert result.exit_code == 0, result.output
    return state


def _bash_words(line: str) -> tuple[list[str], int]:
    """COMP_WORDS/COMP_CWORD as bash builds them: ':' (in COMP_WORDBREAKS) is its own word."""
    words = [w for token in line.split() for w in re.split(r"(:)", token) if w]
    if line.endswith(" "):
        words.append("")
    return words, len(words) - 1


def bash_complete(line: str, env: dict[str, str]) -> list[str]:
    """Complete `line` (cursor at the end) with the registered bash completion function."""
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    words, cword = _bash_words(line)
    script = (
        f"source {_sh(BASH)}\n"
        f"func=$(complete -p {PROG} | sed -n 's/.*-F \\([^ ]*\\).*/\\1/p')\n"
        f"COMP_WORDS=({' '.join(_sh(w) for w in words)}); COMP_CWORD={cword}\n"
        f"COMP_LINE={_sh(line)}; COMP_POINT=${{#COMP_LINE}}\n"
        f'"$func" {PROG} {_sh(words[-1])} {_sh(words[-2])}\n'
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    proc = subprocess.run(["bash", "--norc", "--noprofile", "-c", script], capture_output=True,
                          text=True, env=env, timeout=60)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return [x for x in proc.stdout.splitlines() if x]


def _sh(text: str | Path) -> str:
    return "'" + str(text).replace("'", "'\\''") + "'"


def test_bash_completes_commands(on_path: dict[str, str]) -> None:
    assert bash_complete(f"{PROG} sea", on_path) == ["search"]
    assert bash_complete(f"{PROG} se", on_path) == ["search", "sessions"]
    every = bash_complete(f"{PROG} ", on_path)
    assert {name for name, _, _ in _commands() if name} <= set(every)


def test_bash_completes_options(on_path: dict[str, str]) -> None:
    assert bash_complete(f"{PROG} search --lim", on_path) == ["--limit"]
    assert "--yes" in bash_complete(f"{PROG} delete --", on_path)


@pytest.mark.slow
def test_bash_completes_session_keys_with_colons(store: Path, on_path: dict[str, str]) -> None:
    # bash replaces only the text after the last ':', so the replies omit what precedes it
    assert bash_complete(f"{PROG} delete agent:main:d", on_path) == ["discord:direct:bob"]
    assert bash_complete(f"{PROG} search --session agent:main:", on_path) == [
        "cron:nightly", "discord:direct:bob", "main"
    ]  # fmt: skip
    assert bash_complete(f"{PROG} search hello --session ", on_path) == sorted(KEYS)


@pytest.mark.slow
def test_interactive_bash_tab_completes_a_session_key(store: Path, on_path: dict[str, str]) -> None:
    pexpect = pytest.importorskip("pexpect")
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    env = {**on_path, "TERM": "dumb", "INPUTRC": "/dev/null"}
    child = pexpect.spawn("bash", ["--norc", "--noprofile", "-i"], env=env, encoding="utf-8",
                          timeout=20, dimensions=(24, 200))  # fmt: skip
    try:
        child.sendline(f"source {_sh(BASH)}; PS1='READY> '")
        child.expect("READY> ")
        child.send(f"{PROG} delete agent:main:dis\t")
        child.expect_exact("agent:main:discord:direct:bob ")
    finally:
        child.sendcontrol("c")
        child.close(force=True)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_completes_commands_options_and_keys(store: Path, on_path: dict[str, str]) -> None:
    def complete(line: str) -> list[str]:
        script = f"source {_sh(FISH)}; complete -C {_sh(line)}"
        proc = subprocess.run(["fish", "--no-config", "-c", script], capture_output=True,
                              text=True, env=on_path, timeout=60)  # fmt: skip
        return [x.split("\t")[0] for x in proc.stdout.splitlines()]

    assert complete(f"{PROG} sea") == ["search"]
    assert complete(f"{PROG} search --lim") == ["--limit"]
    assert complete(f"{PROG} delete agent:main:d") == ["agent:main:discord:direct:bob"]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_zsh_first_tab_completes_from_fpath(tmp_path: Path, on_path: dict[str, str]) -> None:
    pexpect = pytest.importorskip("pexpect")
    zdot = tmp_path / "zdot"
    zdot.mkdir()
    rc = [f"fpath=({_sh(ZSH.parent)} $fpath)", "autoload -Uz compinit && compinit -u -D"]
    (zdot / ".zshrc").write_text("\n".join([*rc, "PS1='READY> '", ""]))
    env = {**on_path, "ZDOTDIR": str(zdot), "TERM": "dumb"}
    child = pexpect.spawn("zsh", ["-i"], env=env, encoding="utf-8", timeout=20,
                          dimensions=(24, 200))  # fmt: skip
    try:
        child.expect("READY> ")
        child.send(f"{PROG} sea\t")  # the first TAB autoloads _openclaw-sessions
        child.expect_exact(f"{PROG} search ")
    finally:
        child.sendcontrol("c")
        child.close(force=True)


# --- session keys from the store ---------------------------------------------------------


def test_session_keys_complete_through_typer(store: Path) -> None:
    out = typer_complete(f"{PROG} search --session agent:main:d")
    assert "agent\\\\:main\\\\:discord\\\\:direct\\\\:bob" in out  # zsh escapes ':'
    assert "agent\\\\:main\\\\:main" not in out
    assert "agent:main:main" in typer_complete(f"{PROG} delete agent:main:m", "fish")


def test_session_key_completion_follows_state_dir_and_agent(
    tmp_path: Path, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "elsewhere"
    store.rename(other)  # the default state root now has no store at all
    assert typer_complete(f"{PROG} delete a", "fish").split() == []
    line = f"{PROG} delete --state-dir {other} a"
    assert typer_complete(line, "fish").split() == sorted(KEYS)
    assert typer_complete(f"{PROG} delete --state-dir {other} --agent ops a", "fish").split() == []
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(other))
    assert typer_complete(f"{PROG} search x --session agent:main:c", "fish").split() == [
        "agent:main:cron:nightly"
    ]


def _ctx(*args: str) -> typer.Context:
    group = typer.main.get_command(app)
    ctx = group.make_context(PROG, [], resilient_parsing=True)
    cmd = group.get_command(ctx, "delete")
    assert cmd is not None
    return cmd.make_context("delete", list(args), parent=ctx, resilient_parsing=True)


def test_complete_session_key_called_directly(store: Path) -> None:
    assert complete_session_key(_ctx(), "agent:main:m") == ["agent:main:main"]
    assert complete_session_key(_ctx(), "") == sorted(KEYS)
    assert complete_session_key(_ctx(), "nope") == []


def test_complete_session_key_never_raises_and_never_writes(state: Path, tmp_path: Path) -> None:
    db = state / "agents" / "main" / "openclaw-sessions.sqlite"
    assert complete_session_key(_ctx(), "") == []
    assert not db.exists(), "completion must not create a store"
    db.parent.mkdir(parents=True)
    db.write_bytes(b"this is not a database" * 100)
    assert complete_session_key(_ctx(), "") == []
    assert db.read_bytes() == b"this is not a database" * 100
    assert complete_session_key(_ctx("--agent", "../escape"), "") == []
    assert complete_session_key(_ctx("--state-dir", str(tmp_path / "missing")), "") == []


def test_the_repo_top_level_keeps_the_completions() -> None:
    """The contract's `completions/` at the top of the repo: the same scripts the package
    ships (links to them, so there is one copy to generate and check)."""
    for path in (BASH, ZSH, FISH):
        top = REPO / "completions" / path.name
        assert top.read_text(encoding="utf-8") == path.read_text(encoding="utf-8")
