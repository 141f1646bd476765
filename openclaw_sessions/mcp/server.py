"""The MCP server itself, on the official SDK's low-level ``Server`` (the ``[mcp]`` extra), which
only the ``mcp`` command imports.

The low-level server lets the tools declare exactly upstream's schemas (``additionalProperties:
false``, the result contracts) and answer upstream's error shapes; there is no write tool of any
kind. A call runs in a worker thread (SQLite work must not stall the event loop, so pings and
cancellations are still answered), and answers its JSON twice, as structured content and as a
text block byte-identical to ``JSON.stringify(structuredContent, null, 2)`` (which a client that
shows the structured content drops as a duplicate), plus a text block per note (why a search
found nothing). While the server runs, the config it started with is pinned (identity.py) and
stdout carries JSON-RPC only: the SDK's stdio transport points fd 1 at stderr for anything
else, and logs go to stderr. The search and history cores (tools.py) are imported by the first
tool call, not before the server answers ``initialize``: start-up is the SDK's import and the
caller's resolution, nothing more.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

from openclaw_sessions import __version__, config

from . import schemas, wire
from .identity import Identity, describe

NAME = "openclaw-sessions"
_READ_ONLY = {"read_only_hint": True, "destructive_hint": False, "idempotent_hint": True}
_TOOLS = [
    types.Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        input_schema=spec.input,
        output_schema=spec.output,
        annotations=types.ToolAnnotations(title=spec.title, open_world_hint=False, **_READ_ONLY),
    )
    for spec in schemas.TOOLS
]


def build(identity: Identity) -> Server[Identity]:
    """The server of one identity (tests connect to it in memory)."""

    @asynccontextmanager
    async def lifespan(_: Server[Identity]) -> AsyncIterator[Identity]:
        before = config.pin(identity.root, identity.config)
        try:
            yield identity
        finally:
            config.pin(identity.root, before)

    names = {spec.name for spec in schemas.TOOLS}

    async def list_tools(
        ctx: ServerRequestContext[Identity], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=_TOOLS)

    async def call_tool(
        ctx: ServerRequestContext[Identity], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if params.name not in names:
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name[:64]!r}")
        from . import tools  # the cores: the first call imports them (see the docstring)

        answer = await anyio.to_thread.run_sync(tools.call, identity, params.name, params.arguments)
        return types.CallToolResult(
            content=[types.TextContent(text=t) for t in (answer.text(), *answer.notes)],
            structured_content=answer.value(),
            is_error=answer.is_error,
        )

    return Server(
        NAME,
        version=__version__,
        title="OpenClaw sessions",
        instructions=f"Past sessions, searched and read as {describe(identity)}.",
        lifespan=lifespan,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def _serve(identity: Identity) -> None:
    server = build(identity)
    sys.stdout.flush()
    async with (
        wire.claimed_stdout() as out,
        stdio_server(stdout=out) as (read_stream, write_stream),  # type: ignore[arg-type]
    ):
        # The wire is ours now (fd 1 points at stderr); Python's stdout follows, so that
        # nothing printed while serving can sit in its buffer until exit, when the wire is
        # stdout again. Lines the SDK refuses are answered (wire.relay).
        kept, sys.stdout = sys.stdout, sys.stderr
        server_in, server_read = anyio.create_memory_object_stream[SessionMessage | Exception]()
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(wire.relay, read_stream, server_in, write_stream)
                options = server.create_initialization_options()
                await server.run(server_read, write_stream, options)
                tg.cancel_scope.cancel()
        finally:
            sys.stdout = kept


def serve(identity: Identity) -> None:
    """Serve on stdin/stdout until stdin closes."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(name)s: %(message)s")
    anyio.run(_serve, identity)
