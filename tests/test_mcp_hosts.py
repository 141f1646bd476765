"""Every host in five minutes: the configuration `mcp --print-config HOST` writes for Claude
Desktop, Claude Code and Codex starts the server through the SDK's own stdio client with a
host's environment (HOME and PATH only: no $OPENCLAW_STATE_DIR, no venv on PATH), and
`mcp --check` starts it so and says what it sees, or the one line why it cannot."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from helpers import REPO, run_cli  # noqa: E402
from mcp_support import build_world  # noqa: E402

CALLER = "agent:main:main"
HOSTS = ("claude-desktop", "claude-code", "codex")


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hosts")
    build_world(root / "src", root / "state")
    return root / "state"


def _server(host: str, text: str) -> dict[str, Any]:
    if host == "codex":
        got: dict[str, Any] = tomllib.loads(text)["mcp_servers"]["openclaw-sessions"]
    else:
        got = json.loads(text)["mcpServers"]["openclaw-sessions"]
        assert got.get("type", "stdio") == "stdio"
    return got


async def _start(server: dict[str, Any], env: dict[str, str]) -> tuple[list[str], Any]:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=server["command"], args=server["args"], env=env)
    with anyio.fail_after(60):
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            tools = [t.name for t in (await session.list_tools()).tools]
            found = await session.call_tool("sessions_search", {"query": "mainword"})
            return tools, found.structured_content


@pytest.mark.parametrize("host", HOSTS)
def test_each_shipped_configuration_starts_with_home_and_path_only(
    state: Path, host: str, tmp_path: Path
) -> None:
    r = run_cli("mcp", "--as", CALLER, "--state-dir", str(state), "--print-config", host)
    assert r.exit_code == 0, r.stderr
    server = _server(host, r.stdout)
    assert Path(server["command"]).is_absolute()
    assert str(state) in server["args"]
    # a host's environment: not the shell's; its PATH without this venv's bin
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    tools, found = anyio.run(_start, server, env)
    assert tools == ["sessions_search", "sessions_history", "sessions_list"]
    assert {h["sessionKey"] for h in found["results"]} == {CALLER}


def test_print_config_refuses_an_unknown_host(state: Path) -> None:
    r = run_cli("mcp", "--as", CALLER, "--state-dir", str(state), "--print-config", "vim")
    assert r.exit_code == 2
    assert r.stderr.startswith("error: --print-config takes one of")


def _check(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "openclaw_sessions", "mcp", "--check", *args],
        capture_output=True,
        text=True,
        env={**env, "PYTHONPATH": str(REPO)},
        timeout=120,
    )


def test_check_says_what_the_host_started_server_sees(state: Path) -> None:
    # the shell's OPENCLAW_STATE_DIR points nowhere: the host-started server must not need it
    env = {**os.environ, "OPENCLAW_STATE_DIR": str(state.parent / "elsewhere")}
    done = _check("--as", CALLER, "--state-dir", str(state), env=env)
    assert done.returncode == 0, done.stderr
    line = done.stdout.strip()
    assert line.startswith("ok: mcp --as agent:main:main --state-dir ")
    assert "\n" not in line
    assert "tools sessions_search, sessions_history, sessions_list" in line
    assert "caller session agent:main:main (visibility all)" in line  # the release default
    assert f"store {state};" in line
    assert line.endswith("8 sessions visible")


def test_check_says_in_one_line_why_it_cannot_start(state: Path) -> None:
    done = _check("--as", "agent:main:nobody", "--state-dir", str(state), env=dict(os.environ))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("error: Session not found: agent:main:nobody")
