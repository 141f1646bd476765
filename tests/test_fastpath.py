"""The Typer-free fast path for `search`, `history` and `export`: what it accepts, that it
matches the Typer commands' options, and that it prints and exits exactly as they do."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import Session, run_cli, write_store
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from openclaw_sessions.cli import fastargs


@pytest.fixture(scope="module")
def store(sample_store: Path) -> Path:
    return sample_store


def fast(argv: list[str]) -> tuple[int | None, str, str]:
    out, err = io.StringIO(), io.StringIO()
    handler = signal.getsignal(signal.SIGINT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = fastargs.run_fast(argv)
            except SystemExit as exc:
                code = int(exc.code or 0)
    finally:
        signal.signal(signal.SIGINT, handler)
    return code, out.getvalue(), err.getvalue()


def typer_path(argv: list[str]) -> tuple[int, str, str]:
    r = run_cli(*argv)
    return r.exit_code, r.stdout, r.stderr


# ---------------------------------------------------------------------------------------------
# What it accepts


@pytest.mark.parametrize(
    "argv, want",
    [
        (["search", "deploy", "--json"], ("search", {"query": "deploy", "as_json": True})),
        (["search", "--json", "-n", "3", "x y"],
         ("search", {"query": "x y", "as_json": True, "limit": 3})),
        (["search", "q", "--jsonl", "--limit=7", "--role", "user", "--state-dir", "/s"],
         ("search", {"query": "q", "jsonl": True, "limit": 7, "role": "user",
                     "state_dir": Path("/s")})),
        (["history", "main", "--json", "--around", "abc", "--session-id", "s1"],
         ("history", {"key": "main", "as_json": True, "around": "abc", "session_id": "s1"})),
        (["search", "x"], ("search", {"query": "x"})),
        (["history", "main", "--full", "--no-pager"],
         ("history", {"key": "main", "full": True, "no_pager": True})),
        (["export", "main", "--format", "jsonl", "-o", "/x"],
         ("export", {"key": "main", "fmt": "jsonl", "output": "/x"})),
    ],
)  # fmt: skip
def test_accepts_the_plain_forms(argv: list[str], want: Any, monkeypatch: Any) -> None:
    monkeypatch.delenv("OPENCLAW_STATE_DIR")
    assert fastargs.parse(argv) == want


@pytest.mark.parametrize(
    "argv",
    [
        [], ["--version"], ["status", "--json"], ["export", "main", "--help"],
        ["export", "main", "-o"], ["export", "main", "-o", ""],
        ["search", "x", "--json", "--help"], ["search", "x", "-h", "--json"],
        ["search", "x", "y", "--json"], ["search", "--json"], ["search", "x", "--json", "--json"],
        ["search", "x", "--json", "-n", "2", "--limit", "3"], ["search", "x", "--json", "-n5"],
        ["search", "x", "--json", "-n=5"], ["search", "x", "--json=1"],
        ["search", "x", "--json", "--limit", "+3"], ["search", "x", "--json", "--limit", "1_0"],
        ["search", "x", "--json", "--limit", "-1"], ["search", "x", "--json", "--limit", "٣"],
        ["search", "x", "--json", "--limit"], ["search", "x", "--json", "--session", ""],
        ["search", "--", "-x", "--json"], ["search", "-", "--json"],
        ["search", "x", "--json", "--bogus"], ["history", "main", "--json", "--order", "recent"],
        ["history", "main", "--json", "--jsonl"],
    ],
)  # fmt: skip
def test_leaves_everything_else_to_typer(argv: list[str]) -> None:
    assert fastargs.parse(argv) is None


def test_leaves_completion_and_empty_env_to_typer(monkeypatch: Any) -> None:
    assert fastargs.parse(["search", "x", "--json"]) is not None
    monkeypatch.setenv("OPENCLAW_AGENT", "")
    assert fastargs.parse(["search", "x", "--json"]) is None
    monkeypatch.setenv("OPENCLAW_AGENT", "ops")
    assert fastargs.parse(["search", "x", "--json"]) == (
        "search", {"query": "x", "as_json": True, "agent": "ops"}
    )  # fmt: skip
    monkeypatch.setenv("_OPENCLAW_SESSIONS_COMPLETE", "complete_bash")
    assert fastargs.run_fast(["search", "x", "--json"]) is None


def test_option_tables_match_the_typer_commands() -> None:
    """Every option of the Typer command is known here with the same destination and kind,
    and nothing here is unknown there (the drift test of the fast path)."""
    import typer.main

    from openclaw_sessions.cli.app import app

    group = typer.main.get_command(app)
    for name, (arg, options) in fastargs.SPECS.items():
        cmd = group.commands[name]  # type: ignore[attr-defined]
        theirs: dict[str, tuple[str, str]] = {}
        envs = {}
        for p in cmd.params:
            if p.param_type_name == "argument":
                assert p.name == arg
                continue
            kinds = {"int": fastargs.INT, "path": fastargs.PATH, "str": fastargs.TEXT}
            kind = (
                fastargs.FLAG if p.is_flag else fastargs.LIST if p.multiple else kinds[p.type.name]
            )
            for opt in p.opts:
                theirs[opt] = (p.name, kind)
            if p.envvar:
                envs[p.name] = p.envvar
        theirs.pop("--help", None)
        theirs.pop("-h", None)
        assert options == theirs, name
        assert envs == fastargs.COMMANDS[name][2]


def test_every_parameter_is_an_option_field_with_its_default() -> None:
    """Each parameter of a Typer command is, by name and with the same default, a field of
    the command's options object (what the core gets) or of run.Output (how the CLI prints):
    adding an option is two edits, and the fast path builds the same object."""
    import typer.main

    from openclaw_sessions.cli.app import app
    from openclaw_sessions.cli.pick import PickOptions
    from openclaw_sessions.cli.run import Output
    from openclaw_sessions.cli.schema_command import SchemaOptions
    from openclaw_sessions.cli.shells import ShellOptions
    from openclaw_sessions.index.reindex import ReindexOptions
    from openclaw_sessions.ingest.importer import ImportOptions
    from openclaw_sessions.mcp.identity import McpOptions
    from openclaw_sessions.read.export import ExportOptions
    from openclaw_sessions.read.history import HistoryOptions
    from openclaw_sessions.read.listing import SessionsOptions
    from openclaw_sessions.read.search import SearchOptions
    from openclaw_sessions.read.status import StatusOptions
    from openclaw_sessions.remote.push import PushOptions
    from openclaw_sessions.store.sessions import DeleteOptions

    options: dict[str, Any] = {
        "search": SearchOptions, "history": HistoryOptions, "status": StatusOptions,
        "reindex": ReindexOptions, "import": ImportOptions, "delete": DeleteOptions,
        "export": ExportOptions,
        "sessions": SessionsOptions, "mcp": McpOptions, "push": PushOptions,
        "pick": PickOptions, "completions": ShellOptions, "schema": SchemaOptions,
    }  # fmt: skip
    group = typer.main.get_command(app)
    assert set(group.commands) == set(options)  # type: ignore[attr-defined]
    for name, kind in options.items():
        params = group.commands[name].params  # type: ignore[attr-defined]
        for p in params:
            owner = kind if p.name in kind._fields else Output
            assert p.name in owner._fields, (name, p.name)
            if p.required:
                assert p.name not in owner._field_defaults, (name, p.name)
            else:
                assert p.default == owner._field_defaults[p.name], (name, p.name)
        # every field is a parameter
        assert set(kind._fields) <= {p.name for p in params}, name


# ---------------------------------------------------------------------------------------------
# Same output, same exit code


NOT_UTF8 = os.fsdecode(b"\xffkey")  # argv bytes that are not UTF-8
HUGE = "99999999999999999999"
WORDS = st.sampled_from(["deploy", "rollback", "the", "zz-no-such", "数据", "Ärger", "*", '"',
                         NOT_UTF8])  # fmt: skip
SEARCH_OPTS = st.fixed_dictionaries(
    {},
    optional={
        "--limit": st.sampled_from(["1", "2", "10", "0", "26", HUGE, "2147483648"]),
        "--role": st.sampled_from(["user", "assistant", "tool"]),
        "--order": st.sampled_from(["relevance", "recent", "sideways"]),
        "--since": st.sampled_from(["30d", "2020-01-01", "nonsense", NOT_UTF8, "99999999999d"]),
        "--session": st.sampled_from(["main", "agent:main:main", "nope", NOT_UTF8]),
        "--prefix": st.just(None),
        "--explain": st.just(None),
        "--max-bytes": st.sampled_from(["0", "200", "32768", HUGE]),
        "--as": st.sampled_from(["main", "agent:main:main", "agent:ops:main", "nobody"]),
        "--visibility": st.sampled_from(["self", "tree", "agent", "all", "bad"]),
        "--agent": st.sampled_from(["main", "ops", "ghost", "../x"]),
        "--all-agents": st.just(None),
        "--count": st.just(None),
        "--by-session": st.just(None),
        "--sessions": st.just(None),
        "-C": st.sampled_from(["1", "3", HUGE]),
    },
)


def _argv(command: str, positional: str, opts: dict[str, str | None], out: str) -> list[str]:
    argv = [command, positional, out]
    for k, v in opts.items():
        argv += [k] if v is None else [k, v]
    return argv


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(q=WORDS, opts=SEARCH_OPTS, out=st.sampled_from(["--json", "--jsonl"]))
def test_search_prints_and_exits_like_the_typer_command(
    store: Path, q: str, opts: dict[str, str | None], out: str
) -> None:
    argv = _argv("search", q, opts, out) + ["--state-dir", str(store)]
    got = fast(argv)
    assert got[0] is not None, argv
    assert got == typer_path(argv), argv


HISTORY_OPTS = st.fixed_dictionaries(
    {},
    optional={
        "--limit": st.sampled_from(["1", "3", "200", "0", HUGE]),
        "--offset": st.sampled_from(["0", "2", "999", HUGE]),
        "--around": st.sampled_from(["nope", "3c6ef363", "9e3779b1", NOT_UTF8]),
        "--session-id": st.sampled_from(["nope", "0b5c6f1e-1111-4a4a-9c9c-000000000001"]),
        "--include-tools": st.just(None),
        "--as": st.sampled_from(["main", "agent:ops:main", "nobody"]),
        "--visibility": st.sampled_from(["self", "all", "bad"]),
    },
)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(key=st.sampled_from(["main", "agent:main:main", "nope", "current", NOT_UTF8]),
       opts=HISTORY_OPTS)  # fmt: skip
def test_history_prints_and_exits_like_the_typer_command(
    store: Path, key: str, opts: dict[str, str | None]
) -> None:
    argv = _argv("history", key, opts, "--json") + ["--state-dir", str(store)]
    got = fast(argv)
    assert got[0] is not None, argv
    assert got == typer_path(argv), argv


@pytest.mark.parametrize(
    "argv",
    [
        ["search", "x", "--json", "--limit", HUGE], ["search", "x", "--jsonl", "-n", "2147483648"],
        ["search", "x", "--json", "--max-bytes", HUGE], ["search", NOT_UTF8, "--json"],
        ["search", "x", "--json", "--session", NOT_UTF8],
        ["search", "x", "--json", "--as", NOT_UTF8],
        ["history", NOT_UTF8, "--json"], ["history", "main", "--json", "--offset", HUGE],
        ["history", "main", "--json", "--session-id", NOT_UTF8, "--around", "x"],
    ],
)  # fmt: skip
def test_hostile_values_are_served_and_refused_alike(store: Path, argv: list[str]) -> None:
    """The fast path takes these (plain digits, any text) and refuses them exactly as the
    Typer app does: exit 2, the same one `error:` line."""
    argv = [*argv, "--state-dir", str(store)]
    got = fast(argv)
    assert got[0] == 2 and got == typer_path(argv), argv
    assert got[2].startswith("error: ") and got[2].count("\n") == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["search", "x", "--json", "--limit", "-1"], ["search", "x", "--json", "--max-bytes", "-1"],
        ["search", "x", "--json", "--since", ""], ["search", "x", "--json", "--since="],
        ["history", "main", "--json", "--offset", "-5"], ["history", "main", "--json", "--as", ""],
    ],
)  # fmt: skip
def test_negative_and_empty_values_are_left_to_typer_which_refuses_them(
    store: Path, argv: list[str]
) -> None:
    assert fastargs.parse(argv) is None
    code, _out, err = typer_path([*argv, "--state-dir", str(store)])
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1, err


def test_hits_are_not_vacuous(store: Path) -> None:
    code, out, _ = fast(["search", "deploy", "--json", "--state-dir", str(store)])
    assert code == 0 and '"results": [{' in out
    code, out, _ = fast(["history", "main", "--json", "--state-dir", str(store)])
    assert code == 0 and '"messages": [{' in out


def test_installed_script_takes_the_fast_path_and_matches(store: Path) -> None:
    script = Path(sys.executable).parent / "openclaw-sessions"
    env = {**os.environ, "OPENCLAW_STATE_DIR": str(store)}
    for argv in (["search", "deploy", "--json", "-n", "3"], ["history", "main", "--json"]):
        proc = subprocess.run([script, *argv], capture_output=True, text=True, env=env)
        assert (proc.returncode, proc.stdout, proc.stderr) == typer_path(
            [*argv, "--state-dir", str(store)]
        )
    # the fast path never imports Typer: prove it from the outside
    for argv in (["search", "deploy", "--json"], ["search", "zz-none", "--jsonl", "--explain"],
                 ["history", "main", "--json"]):  # fmt: skip
        probe = (
            f"import sys; sys.argv = ['openclaw-sessions', *{argv!r}]\n"
            "from openclaw_sessions.cli import main\n"
            "try:\n    main.main()\nexcept SystemExit:\n    pass\n"
            "print(sorted({'typer', 'rich', 'click'} & set(sys.modules)), file=sys.stderr)"
        )
        proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                              env=env)  # fmt: skip
        assert proc.stderr.strip().endswith("[]"), (argv, proc.stderr)


@pytest.mark.parametrize("fmt", ["--json", "--jsonl"])
def test_a_reader_that_goes_away_is_exit_0_without_a_traceback(store: Path, fmt: str) -> None:
    """`search … | head`: what was asked was being printed; the reader had enough: exit 0,
    quietly, on the fast path and the Typer path alike."""
    script = Path(sys.executable).parent / "openclaw-sessions"
    env = {**os.environ, "OPENCLAW_STATE_DIR": str(store)}
    for argv in (["search", "deploy", fmt], ["search", "deploy", fmt, "-n", "5", "--limit", "5"]):
        proc = subprocess.Popen([script, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=env)  # fmt: skip
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()  # gone before the child writes a byte
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=60) == 0 and "Traceback" not in err and "Error" not in err, err


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_json_is_utf8_whatever_the_locale_says(tmp_path: Path, encoding: str) -> None:
    """PYTHONIOENCODING=ascii (or a C locale) must not turn a CJK hit into a traceback."""
    src = tmp_path / "src" / "agents" / "main" / "sessions"
    s = Session("cjk-1")
    s.user("数据库连接超时 café")
    s.write(src / "cjk-1.jsonl")
    write_store(src, {"agent:main:main": {"sessionId": "cjk-1"}})
    state = tmp_path / "st"
    assert (
        run_cli("import", str(tmp_path / "src"), "--reindex", "--state-dir", str(state)).exit_code
        == 0
    )
    script = Path(sys.executable).parent / "openclaw-sessions"
    env = {**os.environ, "OPENCLAW_STATE_DIR": str(state), "PYTHONIOENCODING": encoding}
    fast_argv = ["search", "数据库", "--json"]
    typer_argv = ["search", "数据库", "--json", "-n", "1", "--limit", "1"]  # repeated: Typer
    for argv in (fast_argv, typer_argv, ["history", "main", "--json"], ["status", "--json"]):
        proc = subprocess.run([script, *argv], capture_output=True, env=env)
        assert proc.returncode == 0 and b"Traceback" not in proc.stderr, (argv, proc.stderr)
        out = json.loads(proc.stdout.decode("utf-8"))
        assert "数据库" in json.dumps(out, ensure_ascii=False) or argv[0] == "status"


def test_double_dash_ends_the_options_as_click_reads_it(store: Path, monkeypatch: Any) -> None:
    """`pick` reloads with `search ... -- {q}`: a query starting with '-' stays a query, and
    the fast path serves it exactly as the Typer app does."""
    monkeypatch.delenv("OPENCLAW_STATE_DIR")
    assert fastargs.parse(["search", "--json", "--", "-x"]) == (
        "search", {"query": "-x", "as_json": True}
    )  # fmt: skip
    assert fastargs.parse(["search", "--", "a", "b"]) is None  # two queries: Typer's error
    argv = ["search", "--state-dir", str(store), "--format", "plain", "--", "deploy"]
    assert fast(argv) == typer_path(argv)
