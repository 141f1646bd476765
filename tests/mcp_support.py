"""Shared by the MCP tests: a world of sessions with every visibility relation, and in-memory
clients of the server as one identity (the SDK's own client, over JSON-RPC in memory)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from helpers import Session, json_out, run_cli, write_sessions_json

from openclaw_sessions.cli.commands.mcp import McpOptions
from openclaw_sessions.mcp import identity

# key -> (session id, store entry, text): one word per session tells its hits apart.
WORLD: dict[str, dict[str, tuple[str, dict[str, str], str]]] = {
    "main": {
        "agent:main:main": ("m0", {}, "shared mainword"),
        "agent:main:subagent:kid": ("k0", {"spawnedBy": "agent:main:main"}, "shared kidword"),
        "agent:main:subagent:grand": (
            "g0",
            {"spawnedBy": "agent:main:subagent:kid"},
            "shared grandword",
        ),
        "agent:main:discord:direct:bob": ("b0", {}, "shared bobword"),
        "agent:main:discord:direct:bob:thread:t1": (
            "t0",
            {"parentSessionKey": "agent:main:discord:direct:bob"},
            "shared threadword",
        ),
        "agent:main:cron:job:run:r1": ("c0", {}, "shared cronword"),
        "agent:main:dashboard:incognito-zz": ("i0", {}, "shared secretword"),
    },
    "ops": {
        "agent:ops:main": ("o0", {}, "shared opsword"),
        "agent:ops:subagent:x": ("x0", {"spawnedBy": "agent:main:main"}, "shared crossword"),
        "agent:ops:discord:direct:eve": ("e0", {}, "shared eveword"),
    },
}
WORDS = {key: text.split()[1] for agent in WORLD.values() for key, (_, _, text) in agent.items()}
IDS = {key: sid for agent in WORLD.values() for key, (sid, _, _) in agent.items()}
CALLERS = (
    "agent:main:main",
    "agent:main:subagent:kid",
    "agent:main:discord:direct:bob",
    "agent:ops:main",
)


def build_world(src: Path, state: Path) -> None:
    """The world's transcripts under ``src``, imported and indexed into ``state``."""
    for agent, sessions in WORLD.items():
        d = src / "agents" / agent / "sessions"
        store = {}
        for key, (sid, entry, text) in sessions.items():
            s = Session(sid)
            s.user(f"{text} question")
            s.assistant(f"{text} answer with token=ghp_{'x' * 36}")
            s.tool(f"{text} tool output")
            s.write(d / f"{sid}.jsonl")
            store[key] = {"sessionId": sid, **entry}
        write_sessions_json(d, store)
    r = run_cli("import", str(src), "--reindex", "--state-dir", str(state))
    assert r.exit_code == 0, r.stderr


def who(state: Path, as_key: str | None, *flags: str, agent: str = "main") -> identity.Identity:
    """The identity of `mcp --as as_key [--visibility V] [--sandboxed]` (None: --operator)."""
    vis = flags[flags.index("--visibility") + 1] if "--visibility" in flags else None
    opts = McpOptions(as_key, as_key is None, state, agent, vis, "--sandboxed" in flags)
    return identity.resolve(opts)


def with_client(ident: identity.Identity, fn: Callable[[Any], Awaitable[Any]]) -> Any:
    """Run ``fn(client)`` against a fresh server for ``ident``, over in-memory JSON-RPC."""
    from mcp import Client

    from openclaw_sessions.mcp.server import build

    async def main() -> Any:
        async with Client(build(ident), mode="legacy") as client:
            return await fn(client)

    return anyio.run(main)


def calls(ident: identity.Identity, todo: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """The CallToolResults of ``todo``'s (tool, arguments), in order, on one connection."""

    async def run(client: Any) -> list[Any]:
        return [await client.call_tool(name, args) for name, args in todo]

    out: list[Any] = with_client(ident, run)
    return out


def body(result: Any) -> dict[str, Any]:
    """A result's structured content, checked equal to its first text block."""
    assert json.loads(result.content[0].text) == result.structured_content
    out: dict[str, Any] = result.structured_content
    return out


def texts(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


def cli_json(state: Path, *args: str) -> tuple[int, dict[str, Any] | None, str]:
    """(exit code, the JSON on stdout or None, stderr) of a CLI command with --json."""
    r = run_cli(*args, "--json", "--state-dir", str(state))
    return r.exit_code, json_out(r) if r.stdout.strip() else None, r.stderr
