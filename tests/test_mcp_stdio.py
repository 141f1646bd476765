"""`openclaw-sessions mcp` as a client launches it: a real process on stdin/stdout. One round
trip (initialize, tools/list, tools/call, exit when stdin closes), stdout carrying JSON-RPC
only on every path, the refusals before start-up, the missing extra, and no other command
importing the SDK."""

from __future__ import annotations

import json
import os
import re
import selectors
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO, Session, run_cli, write_sessions_json

MAIN = [sys.executable, "-m", "openclaw_sessions"]
INIT = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "test", "version": "1"},
}


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "OPENCLAW_SESSIONS_NO_BACKGROUND"}
    env.update(PYTHONPATH=str(REPO), NO_COLOR="1", **extra)
    return env


def _store(tmp_path: Path, *, reindex: bool = True) -> Path:
    src, state = tmp_path / "src", tmp_path / "state"
    d = src / "agents" / "main" / "sessions"
    for sid, _key, text in (
        ("m1", "agent:main:main", "zzstdio main"),
        ("b1", "agent:main:x", "zzstdio bob"),
    ):
        s = Session(sid)
        s.user(text)
        s.write(d / f"{sid}.jsonl")
    write_sessions_json(
        d, {"agent:main:main": {"sessionId": "m1"}, "agent:main:x": {"sessionId": "b1"}}
    )
    flags = ["--reindex"] if reindex else ["--no-reindex"]
    assert run_cli("import", str(src), *flags, "--state-dir", str(state)).exit_code == 0
    return state


class Server:
    """A server process and the JSON-RPC lines it writes, read with a deadline."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        self.sel = selectors.DefaultSelector()
        assert self.proc.stdout is not None
        self.sel.register(self.proc.stdout, selectors.EVENT_READ)
        self.next_id = 0

    def send(
        self, method: str, params: dict[str, Any] | None = None, *, notify: bool = False
    ) -> int:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        if not notify:
            self.next_id += 1
            msg["id"] = self.next_id
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()
        return self.next_id

    def line(self, timeout: float = 60) -> dict[str, Any]:
        assert self.sel.select(timeout), "no answer in time"
        assert self.proc.stdout is not None
        raw = self.proc.stdout.readline()
        msg = json.loads(raw)  # stdout holds JSON-RPC lines only
        assert msg["jsonrpc"] == "2.0", raw
        return dict(msg)

    def ask(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        want = self.send(method, params)
        msg = self.line()
        assert msg.get("id") == want, msg
        return msg

    def close(self, timeout: float = 30) -> tuple[int, bytes, bytes]:
        """Close stdin: the server must exit by itself."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        rc = self.proc.wait(timeout)
        assert self.proc.stdout is not None
        assert self.proc.stderr is not None
        return rc, self.proc.stdout.read(), self.proc.stderr.read()


pytestmark = pytest.mark.slow


def test_round_trip_over_stdio_and_clean_exit(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    state = _store(tmp_path)
    # --visibility tree on the command line (the operator's choice; never from config.toml)
    argv = [*MAIN, "mcp", "--as", "agent:main:x", "--visibility", "tree", "--state-dir", str(state)]
    srv = Server(argv, _env())
    init = srv.ask("initialize", INIT)["result"]
    assert init["serverInfo"]["name"] == "openclaw-sessions"
    assert "tools" in init["capabilities"]
    srv.send("notifications/initialized", notify=True)
    tools = srv.ask("tools/list")["result"]["tools"]
    assert [t["name"] for t in tools] == ["sessions_search", "sessions_history", "sessions_list"]
    assert all(t["annotations"]["readOnlyHint"] for t in tools)
    assert all(t["inputSchema"]["additionalProperties"] is False for t in tools)
    found = srv.ask("tools/call", {"name": "sessions_search", "arguments": {"query": "zzstdio"}})
    result = found["result"]
    assert result["isError"] is False
    # agent:main:x (tree) sees itself only: the main session's hit stays out
    assert [h["sessionKey"] for h in result["structuredContent"]["results"]] == ["agent:main:x"]
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
    bad = srv.ask(
        "tools/call", {"name": "sessions_history", "arguments": {"sessionKey": "x", "as": "y"}}
    )
    assert bad["result"]["isError"] is True
    assert bad["result"]["structuredContent"]["status"] == "error"
    rc, rest, err = srv.close()
    assert rc == 0, err
    assert rest == b"", err
    assert b"Traceback" not in err


def test_stdout_is_json_rpc_only_with_a_reconciler_spawned_and_stray_prints(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    state = _store(tmp_path, reindex=False)  # stale: the search starts the background reindex
    noisy = (
        "import sys, warnings\n"
        "from openclaw_sessions.mcp import tools\n"
        "real = tools.call\n"
        "def call(*a, **k):\n"
        "    print('stray print on stdout')\n"
        "    warnings.warn('a stray warning')\n"
        "    return real(*a, **k)\n"
        "tools.call = call\n"
        "print('before serving', file=sys.stderr)\n"
        "sys.argv = ['openclaw-sessions', 'mcp', '--as', 'main', '--state-dir', sys.argv[1]]\n"
        "from openclaw_sessions.cli.main import main\n"
        "main()\n"
    )
    srv = Server([sys.executable, "-c", noisy, str(state)], _env())
    srv.ask("initialize", INIT)
    srv.send("notifications/initialized", notify=True)
    found = srv.ask("tools/call", {"name": "sessions_search", "arguments": {"query": "zzstdio"}})
    assert found["result"]["structuredContent"]["indexing"] is True
    rc, rest, err = srv.close()
    assert rc == 0
    assert rest == b""  # the stray print went to stderr, not the wire
    assert b"stray print on stdout" in err
    assert b"a stray warning" in err


def test_without_as_it_refuses_to_start(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    state = _store(tmp_path)
    r = subprocess.run(
        [*MAIN, "mcp", "--state-dir", str(state)],
        env=_env(),
        capture_output=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert r.returncode == 2
    assert r.stdout == b""
    lines = r.stderr.decode().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: mcp needs --as KEY (the session")
    assert "***" not in lines[0]  # our own words are no secret
    r = subprocess.run(
        [*MAIN, "mcp", "--as", "nope-id", "--state-dir", str(state)],
        env=_env(),
        capture_output=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert r.returncode == 2
    assert r.stdout == b""
    assert r.stderr.startswith(b"error: Session not found")


def test_operator_says_on_stderr_that_everything_is_exposed(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    state = _store(tmp_path)
    srv = Server([*MAIN, "mcp", "--operator", "--state-dir", str(state)], _env())
    srv.ask("initialize", INIT)
    srv.send("notifications/initialized", notify=True)
    found = srv.ask("tools/call", {"name": "sessions_search", "arguments": {"query": "zzstdio"}})
    keys = {h["sessionKey"] for h in found["result"]["structuredContent"]["results"]}
    assert keys == {"agent:main:main", "agent:main:x"}
    rc, _, err = srv.close()
    assert rc == 0
    assert b"warning: mcp --operator: every session" in err


def test_without_the_extra_one_error_line_says_how_to_install(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "sys.modules['mcp'] = None  # as if the extra were not installed\n"
        "sys.argv = ['openclaw-sessions', 'mcp', '--as', 'main']\n"
        "from openclaw_sessions.cli.main import main\n"
        "main()\n"
    )
    r = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, timeout=120)
    assert r.returncode == 2
    assert r.stdout == b""
    assert r.stderr.decode().splitlines() == [
        "error: mcp needs the MCP SDK, an optional extra: pip install 'openclaw-sessions[mcp]'"
    ]


@pytest.mark.parametrize(
    "argv",
    [
        ["search", "zzstdio", "--json"],
        ["search", "zzstdio", "--as", "main"],
        ["history", "main", "--json"],
        ["status"],
        ["--help"],
        ["mcp", "--help"],
    ],
)
def test_no_other_command_imports_the_sdk(tmp_path: Path, argv: list[str]) -> None:
    state = _store(tmp_path)
    code = (
        "import atexit, sys\n"
        "def report():\n"
        "    loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'mcp_types',"
        " 'pydantic', 'anyio', 'openclaw_sessions') and (m.split('.')[0] != 'openclaw_sessions'"
        " or m.startswith('openclaw_sessions.mcp')))\n"
        "    sys.stderr.write('LOADED=' + ','.join(loaded))\n"
        "atexit.register(report)\n"
        f"sys.argv = ['openclaw-sessions', *{argv!r}]\n"
        "from openclaw_sessions.cli.main import main\n"
        "main()\n"
    )
    env = _env(OPENCLAW_STATE_DIR=str(state), OPENCLAW_SESSIONS_NO_BACKGROUND="1")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, timeout=120)
    assert r.returncode in (0, 1), r.stderr
    assert r.stderr.decode().rsplit("LOADED=", 1)[1] == ""


def test_as_reads_a_key_in_its_printed_escaped_form(tmp_path: Path) -> None:
    """`--as` takes a key as plain output prints it (tab as \\t), as every KEY argument does."""
    pytest.importorskip("mcp")
    code = (
        "import sys\n"
        "from openclaw_sessions.mcp import identity\n"
        "def resolve(opts):\n"
        "    print('AS=' + repr(opts.as_key), file=sys.stderr)\n"
        "    raise SystemExit(0)\n"
        "identity.resolve = resolve\n"
        "sys.argv = ['openclaw-sessions', 'mcp', '--as', sys.argv[1]]\n"
        "from openclaw_sessions.cli.main import main\n"
        "main()\n"
    )
    argv = [sys.executable, "-c", code, "agent:main:a\\tb"]
    r = subprocess.run(argv, env=_env(), capture_output=True, timeout=120)
    assert "AS='agent:main:a\\tb'" in r.stderr.decode(), r.stderr


def test_start_up_imports_no_search_or_history_core() -> None:
    """What answers `initialize` (the server, the caller's resolution) leaves the search and
    history cores to the first tool call: start-up is the SDK's import and little more."""
    pytest.importorskip("mcp")
    code = (
        "import sys\n"
        "import openclaw_sessions.mcp.identity, openclaw_sessions.mcp.server\n"
        "print(','.join(sorted(m for m in sys.modules if m.startswith('openclaw_sessions.'))))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr
    loaded = set(r.stdout.decode().strip().split(","))
    assert "openclaw_sessions.mcp.server" in loaded
    late = {"read.search", "read.history", "redact.engine", "mcp.tools", "read.search.why"}
    assert not {f"openclaw_sessions.{m}" for m in late} & loaded


# The wire (issue #34 point 5): with the real SDK, a line that is not JSON gets a -32700 reply
# (id null), a request holding a lone surrogate is answered, and nothing the server writes holds
# a raw C1 control (they go out as JSON \u escapes).
C1 = re.compile("[\x80-\x9f]")


def _state(tmp_path: Path) -> Path:
    src, state = tmp_path / "src", tmp_path / "state"
    d = src / "agents" / "main" / "sessions"
    s = Session("m1")
    s.user("zzwire plain \x85 next \x9b[31m red")
    s.write(d / "m1.jsonl")
    write_sessions_json(d, {"agent:main:main": {"sessionId": "m1"}})
    assert run_cli("import", str(src), "--reindex", "--state-dir", str(state)).exit_code == 0
    return state


def _raw(srv: Server, line: bytes) -> dict[str, Any]:
    assert srv.proc.stdin is not None
    srv.proc.stdin.write(line)
    srv.proc.stdin.flush()
    return srv.line()


def test_bad_lines_are_answered_and_no_c1_goes_out(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    state = _state(tmp_path)
    srv = Server([*MAIN, "mcp", "--as", "agent:main:main", "--state-dir", str(state)], _env())
    srv.ask("initialize", INIT)
    srv.send("notifications/initialized", notify=True)
    for junk in (b"not json\n", b'{"jsonrpc": "2.0", "id": \n', b"\xff\xfe\n"):
        reply = _raw(srv, junk)
        assert reply["id"] is None, (junk, reply)
        assert reply["error"]["code"] == -32700, (junk, reply)
    # a lone surrogate (an escape Python reads and the SDK's parser refuses): answered
    lone = {"name": "sessions_search", "arguments": {"query": "zzwire \ud800"}}
    call = {"jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": lone}
    reply = _raw(srv, (json.dumps(call) + "\n").encode())
    assert reply["id"] == 41
    assert "result" in reply or "error" in reply
    # the server still answers, and what it writes holds no raw C1 control
    for name, args in (("sessions_search", {"query": "zzwire"}),
                       ("sessions_history", {"sessionKey": "agent:main:main"})):  # fmt: skip
        srv.send("tools/call", {"name": name, "arguments": args})
        assert srv.sel.select(60)
        assert srv.proc.stdout is not None
        raw = srv.proc.stdout.readline().decode("utf-8")
        assert not C1.search(raw), raw
        assert "\\u0085" in raw or "\\u009b" in raw, raw  # escaped, the same JSON value
        assert "zzwire" in json.loads(raw)["result"]["content"][0]["text"]
    rc, rest, err = srv.close()
    assert rc == 0, err
    assert rest == b"", err
    assert b"Traceback" not in err
