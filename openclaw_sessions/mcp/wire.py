"""What the stdio wire carries, made robust on both sides of the SDK's transport.

In: a line the SDK cannot read is answered, never dropped. One that is not JSON gets
JSON-RPC's parse error (-32700, id null); one that is JSON the SDK's strict parser refuses (a
lone surrogate in a ``\\ud800`` escape, which Python's parser reads) is read with U+FFFD in
place of each lone surrogate, and answered as any other request.

Out: the SDK writes JSON with every character raw; C1 controls (U+0080-U+009F) and lone
surrogates are written as JSON ``\\u`` escapes instead (they can only stand inside JSON strings,
so the escaped text is the same JSON value), so no raw control reaches a terminal or log, and
no write fails on a character UTF-8 cannot encode.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import BinaryIO

import anyio
import mcp_types as types
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.shared.message import SessionMessage

from openclaw_sessions.model import wellformed

_UNSAFE = re.compile("[\x80-\x9f\ud800-\udfff]")


def escape(text: str) -> str:
    """JSON text with C1 controls and lone surrogates as ``\\u`` escapes."""
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def reread(exc: Exception) -> SessionMessage | None:
    """The message of a line the SDK refused, read again leniently; None: it is not one."""
    errors = getattr(exc, "errors", None)
    line = errors()[0].get("input") if callable(errors) and errors() else None
    if not isinstance(line, str):
        return None
    try:
        obj = wellformed.loads(line)
        return SessionMessage(types.jsonrpc_message_adapter.validate_python(obj, by_name=False))
    except (ValueError, RecursionError):  # pydantic's ValidationError is a ValueError
        return None


def parse_error() -> SessionMessage:
    error = types.ErrorData(code=types.PARSE_ERROR, message="Parse error")
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=None, error=error))


async def relay(
    sdk_in: ObjectReceiveStream[SessionMessage | Exception],
    server_in: ObjectSendStream[SessionMessage | Exception],
    out: ObjectSendStream[SessionMessage],
) -> None:
    """From the SDK's reader to the server: refused lines read again, or answered -32700."""
    async with server_in:
        async for item in sdk_in:
            if isinstance(item, Exception):
                again = reread(item)
                if again is None:
                    await out.send(parse_error())
                    continue
                item = again
            await server_in.send(item)


class EscapedOut:
    """The wire's stdout for the SDK's writer (``write`` then ``flush`` per message)."""

    def __init__(self, wire: BinaryIO) -> None:
        self.wire = wire

    async def write(self, text: str) -> None:
        data = escape(text).encode("utf-8")
        await anyio.to_thread.run_sync(self.wire.write, data)

    async def flush(self) -> None:
        await anyio.to_thread.run_sync(self.wire.flush)


@asynccontextmanager
async def claimed_stdout() -> AsyncIterator[EscapedOut]:
    """fd 1 for the wire alone: its descriptor kept for the writer, fd 1 itself pointed at
    stderr while serving (as the SDK's own claim does), restored on exit."""
    private = os.dup(1)
    os.dup2(2, 1)
    wire = os.fdopen(private, "wb", closefd=False)
    try:
        yield EscapedOut(wire)
    finally:
        try:
            wire.flush()
        except OSError:
            pass
        os.dup2(private, 1)
        os.close(private)
