"""The console script's entry point and how every command ends: what a call imports, how
hostile values are refused, a reader that goes away, Ctrl-C's exit code, JSON whatever the
locale, and that each command's parameters are declared by its options object's fields."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import Session, run_cli, write_sessions_json

from openclaw_sessions.cli import main

SCRIPT = Path(sys.executable).parent / "openclaw-sessions"
NOT_UTF8 = os.fsdecode(b"\xffkey")  # argv bytes that are not UTF-8
HUGE = "99999999999999999999"


@pytest.fixture(scope="module")
def store(sample_store: Path) -> Path:
    return sample_store


def test_collector_is_on_while_the_command_runs_and_after(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[bool] = []
    from openclaw_sessions.cli import app

    monkeypatch.setattr(app, "app", lambda **_: seen.append(gc.isenabled()))
    try:
        main.main()
    finally:
        gc.unfreeze()  # the test process keeps collecting what it frees
    assert seen == [True]
    assert gc.isenabled()


def test_exit_codes_pass_through(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["openclaw-sessions", "search", "   "])
    try:
        with pytest.raises(SystemExit) as exc:
            main.main()
    finally:
        gc.unfreeze()
    assert exc.value.code == 2
    assert gc.isenabled()


def test_a_call_imports_only_its_own_command_and_no_rich(store: Path) -> None:
    """`search --json` pays for every import: Rich (nothing is drawn), dataclasses, and the
    other commands' modules stay out; `history --json` alike."""
    for argv in (["search", "deploy", "--json"], ["history", "main", "--json"]):
        probe = (
            f"import sys; sys.argv = ['openclaw-sessions', *{argv!r}]\n"
            "from openclaw_sessions.cli import main\n"
            "try:\n    main.main()\nexcept SystemExit:\n    pass\n"
            "mods = [m for m in sys.modules if m.startswith('openclaw_sessions.cli.commands.')]\n"
            "print(sorted(mods), sorted({'rich', 'dataclasses'} & set(sys.modules)),"
            " file=sys.stderr)"
        )
        env = {**os.environ, "OPENCLAW_STATE_DIR": str(store)}
        proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                              env=env)  # fmt: skip
        want = f"['openclaw_sessions.cli.commands.{argv[0]}'] []"
        assert proc.stderr.strip().endswith(want), (argv, proc.stderr)


def test_installed_script_runs(tmp_path: Path, store: Path) -> None:
    env = {"OPENCLAW_STATE_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([SCRIPT, "--version"], capture_output=True, text=True, env=env)
    assert out.returncode == 0
    assert out.stdout.startswith("openclaw-sessions ")
    out = subprocess.run([SCRIPT, "status"], capture_output=True, text=True, env=env)
    assert out.returncode == 3
    assert out.stderr.startswith("error: no database")
    env = {**os.environ, "OPENCLAW_STATE_DIR": str(store)}
    for argv in (["search", "deploy", "--json", "-n", "3"], ["history", "main", "--json"]):
        proc = subprocess.run([SCRIPT, *argv], capture_output=True, text=True, env=env)
        r = run_cli(*argv, "--state-dir", str(store))
        assert (proc.returncode, proc.stdout, proc.stderr) == (r.exit_code, r.stdout, r.stderr)
        assert proc.returncode == 0
        assert '": [{' in proc.stdout


@pytest.mark.parametrize(
    "argv",
    [
        ["search", "x", "--json", "--limit", HUGE], ["search", "x", "--jsonl", "-n", "2147483648"],
        ["search", "x", "--json", "--max-bytes", HUGE], ["search", NOT_UTF8, "--json"],
        ["search", "x", "--json", "--session", NOT_UTF8],
        ["search", "x", "--json", "--as", NOT_UTF8],
        ["history", NOT_UTF8, "--json"], ["history", "main", "--json", "--offset", HUGE],
        ["history", "main", "--json", "--session-id", NOT_UTF8, "--around", "x"],
        ["search", "x", "--json", "--limit", "-1"], ["search", "x", "--json", "--max-bytes", "-1"],
        ["search", "x", "--json", "--since", ""], ["search", "x", "--json", "--since="],
        ["history", "main", "--json", "--offset", "-5"], ["history", "main", "--json", "--as", ""],
    ],
)  # fmt: skip
def test_hostile_values_are_refused_in_one_line(store: Path, argv: list[str]) -> None:
    r = run_cli(*argv, "--state-dir", str(store))
    assert r.exit_code == 2, argv
    assert r.stdout == "", argv
    assert r.stderr.startswith("error: "), r.stderr
    assert r.stderr.count("\n") == 1, r.stderr


@pytest.mark.parametrize("fmt", ["--json", "--jsonl", "--format=plain"])
def test_a_reader_that_goes_away_is_exit_0_without_a_note(store: Path, fmt: str) -> None:
    """`search … | head`: what was asked was being printed; the reader had enough: exit 0,
    quietly, and no note about output no one reads (`more results exist`)."""
    env = {**os.environ, "OPENCLAW_STATE_DIR": str(store)}
    proc = subprocess.Popen([SCRIPT, "search", "deploy", fmt, "-n", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)  # fmt: skip
    assert proc.stdout is not None
    assert proc.stderr is not None
    proc.stdout.close()  # gone before the child writes a byte
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0, err
    assert err == "", err
    r = run_cli("search", "deploy", fmt, "-n", "1", "--state-dir", str(store))
    assert ("more results exist" in r.stderr) is (fmt != "--json")  # what it would have got


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_json_is_utf8_whatever_the_locale_says(tmp_path: Path, encoding: str) -> None:
    """PYTHONIOENCODING=ascii (or a C locale) must not turn a CJK hit into a traceback."""
    src = tmp_path / "src" / "agents" / "main" / "sessions"
    s = Session("cjk-1")
    s.user("数据库连接超时 café")
    s.write(src / "cjk-1.jsonl")
    write_sessions_json(src, {"agent:main:main": {"sessionId": "cjk-1"}})
    state = tmp_path / "st"
    r = run_cli("import", str(tmp_path / "src"), "--reindex", "--state-dir", str(state))
    assert r.exit_code == 0
    env = {**os.environ, "OPENCLAW_STATE_DIR": str(state), "PYTHONIOENCODING": encoding}
    calls = (["search", "数据库", "--json"], ["history", "main", "--json"], ["status", "--json"])
    for argv in calls:
        proc = subprocess.run([SCRIPT, *argv], capture_output=True, env=env)
        assert proc.returncode == 0, (argv, proc.stderr)
        assert b"Traceback" not in proc.stderr, (argv, proc.stderr)
        out = json.loads(proc.stdout.decode("utf-8"))
        assert "数据库" in json.dumps(out, ensure_ascii=False) or argv[0] == "status"


def test_double_dash_ends_the_options(store: Path) -> None:
    """`pick` reloads with `search ... -- {q}`: a query starting with '-' stays a query."""
    r = run_cli("search", "--state-dir", str(store), "--json", "--", "-deploy")
    assert r.exit_code in (0, 1)
    assert "results" in json.loads(r.stdout)
    r = run_cli("search", "--state-dir", str(store), "--json", "--", "deploy", "-n")  # one query
    assert r.exit_code in (0, 1)
    assert json.loads(r.stdout)["results"] == json.loads(
        run_cli("search", "--state-dir", str(store), "--json", "deploy -n").stdout
    )["results"]


def test_every_parameter_is_declared_once_by_an_option_field() -> None:
    """Each parameter of a command is a field of the command's options object (what the core
    gets) or of the command's own Output (how the CLI prints), which alone gives its name, type
    and default (options.declare adds flags, help and checks); the options object has no
    field the command lacks. That --help, the man page and the completions are what they were:
    test_docs runs gen_docs --check."""
    import inspect
    from typing import get_type_hints

    import typer.main

    from openclaw_sessions.cli.app import COMMANDS, app, command_module
    from openclaw_sessions.cli.commands.completions import ShellOptions
    from openclaw_sessions.cli.commands.mcp import McpOptions
    from openclaw_sessions.cli.commands.pick import PickOptions
    from openclaw_sessions.cli.commands.schema import SchemaOptions
    from openclaw_sessions.cli.options import NoOutput
    from openclaw_sessions.index.reindex import ReindexOptions
    from openclaw_sessions.ingest.importer import ImportOptions
    from openclaw_sessions.read.activity import LogOptions
    from openclaw_sessions.read.export import ExportOptions
    from openclaw_sessions.read.history import HistoryOptions
    from openclaw_sessions.read.listing import SessionsOptions
    from openclaw_sessions.read.search import SearchOptions
    from openclaw_sessions.read.sqldoor import SqlOptions
    from openclaw_sessions.read.status import StatusOptions
    from openclaw_sessions.remote.push import PushOptions
    from openclaw_sessions.store.delete import DeleteOptions

    options: dict[str, Any] = {
        "search": SearchOptions, "history": HistoryOptions, "status": StatusOptions,
        "reindex": ReindexOptions, "import": ImportOptions, "delete": DeleteOptions,
        "export": ExportOptions,
        "sessions": SessionsOptions, "mcp": McpOptions, "push": PushOptions,
        "pick": PickOptions, "completions": ShellOptions, "schema": SchemaOptions,
        "log": LogOptions, "sql": SqlOptions,
    }  # fmt: skip
    group = typer.main.get_command(app)
    assert set(COMMANDS) == set(options)
    for name, kind in options.items():
        params = group.commands[name].params  # type: ignore[attr-defined]
        signature = inspect.signature(command_module(name).command).parameters
        shown = getattr(command_module(name), "Output", NoOutput)
        for p in params:
            owner = kind if p.name in kind._fields else shown
            assert p.name in owner._fields, (name, p.name)
            if p.required:
                assert p.name not in owner._field_defaults, (name, p.name)
            else:
                assert p.default == owner._field_defaults[p.name], (name, p.name)
            hint = signature[p.name].annotation.__origin__  # Annotated[field type, typer info]
            if p.name == getattr(command_module(name), "WORDS", None):  # words, joined
                assert hint == list[str] | None, (name, p.name)
                continue
            assert hint == get_type_hints(owner)[p.name], (name, p.name)
        assert set(kind._fields) <= {p.name for p in params}, name


def test_a_parameter_without_a_field_is_refused() -> None:
    """A new option is a field first: declaring one its options object lacks fails at once."""
    import typer

    from openclaw_sessions.cli.commands import search
    from openclaw_sessions.cli.options import declare

    with pytest.raises(TypeError, match="'nope'"):
        declare(search.run, search.SearchOptions, search.Output, nope=typer.Option("--nope"))


@pytest.mark.parametrize(
    "argv",
    [
        ["--state-dir", "{state}", "status", "--json"],
        ["--state-dir={state}", "--json", "status"],
        ["--json", "--state-dir", "{state}", "search", "deploy"],
    ],
)
def test_options_before_the_command_are_the_commands(
    sample_store: Path, argv: list[str]
) -> None:
    """`openclaw-sessions --state-dir X status`, as git and docker take it."""
    from helpers import installed

    proc = installed(*(a.replace("{state}", str(sample_store)) for a in argv))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)


def test_an_option_no_command_takes_is_still_refused_before_it(sample_store: Path) -> None:
    r = run_cli("--nope", "status", "--state-dir", str(sample_store))
    assert r.exit_code == 2
    assert "--nope" in r.stderr
