"""Issue #34 point 5 (MCP wire): over real stdio, with the real SDK, a line that is not JSON
gets a -32700 reply (id null), a request holding a lone surrogate is answered, and nothing the
server writes holds a raw C1 control (they go out as JSON \\u escapes)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import Session, run_cli, write_sessions_json
from test_mcp_stdio import INIT, MAIN, Server, _env

pytestmark = pytest.mark.slow
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
