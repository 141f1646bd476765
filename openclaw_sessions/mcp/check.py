"""``mcp --check``: start the server as a host starts it, and say what it sees.

The server is started from its host configuration (hosts.py: the absolute command, the
caller and the state directory as arguments) through the SDK's own stdio client, with the
environment the SDK gives a server (HOME, PATH and a few others: not the shell's
``$OPENCLAW_STATE_DIR``); it is initialised, its tools are listed and ``sessions_list`` is
called once. The answer is one line: the tools, the caller, the store and the number of
sessions the caller sees; or, when the server cannot start, the one line that says why
(its own ``error:`` line from stderr, else how it ended).
"""

from __future__ import annotations

import tempfile
from typing import Any, NamedTuple

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, get_default_environment, stdio_client

from . import hosts, schemas
from .identity import Identity, describe

TIMEOUT = 60.0  # seconds for the whole round trip: a cold start imports the SDK


class Seen(NamedTuple):
    ok: bool
    line: str


def run(who: Identity) -> Seen:
    cmd, *pre = hosts.command()
    params = StdioServerParameters(
        command=cmd, args=[*pre, *hosts.arguments(who)], env=get_default_environment()
    )
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        try:
            seen = anyio.run(_talk, params, errlog)
        except Exception as exc:  # the server died or never answered: its own words
            errlog.seek(0)
            said = [ln.strip() for ln in errlog.read().splitlines() if ln.strip()]
            why = next((ln for ln in reversed(said) if ln.startswith("error:")), None)
            return Seen(False, why or f"error: the server stopped ({_name(exc)})")
    tools, count, more = seen
    shown = f"{count}{'+' if more else ''}"
    return Seen(
        True,
        f"ok: {' '.join(params.args)} started as a host starts it ({params.command});"
        f" tools {', '.join(tools)}; caller {describe(who)}; store {who.root};"
        f" {shown} session{'s' if shown != '1' else ''} visible",
    )


def _name(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return _name(exc.exceptions[0])
    return str(exc) or type(exc).__name__


async def _talk(params: StdioServerParameters, errlog: Any) -> tuple[list[str], int, bool]:
    with anyio.fail_after(TIMEOUT):
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            tools = [t.name for t in (await session.list_tools()).tools]
            listed = await session.call_tool(schemas.LIST, {"limit": schemas.LIST_MAX_LIMIT})
            body = listed.structured_content or {}
            if listed.is_error:
                raise RuntimeError(str(body.get("error", "sessions_list failed")))
            return tools, int(body.get("count", 0)), bool(body.get("hasMore"))
