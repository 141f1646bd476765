"""One tool call, as the fixed caller: its arguments checked (args.py), the core's search or
history run with the identity's key and modes (exactly what ``search --as … --json`` and
``history --as … --json`` run), and the answer shaped as upstream's tool result.

SDK-free (server.py wraps it), so it is tested without the extra. Every call opens the stores
anew and holds no read transaction after it (import, reindex and live appends are seen at the
next call; a store rebuilt or migrated meanwhile is simply opened again), and a search that
meets stale sessions starts the background reconciliation and says ``indexing: true``, as the
CLI does.
"""

from __future__ import annotations

import logging
import re
import sqlite3
from typing import Any, NamedTuple

from openclaw_sessions.errors import ForbiddenError, OpenClawError
from openclaw_sessions.model import wellformed
from openclaw_sessions.policy.limits import MAX_RESULT_BYTES
from openclaw_sessions.read.history import MAX_LIMIT, HistoryOptions, history
from openclaw_sessions.read.search import SearchOptions, search_batch
from openclaw_sessions.store import db

from . import args, batch, jstext, reasons, schemas
from .identity import Identity

log = logging.getLogger(__name__)
INTERNAL = "internal error; the server's stderr has the details"


class Answer(NamedTuple):
    """A tool result: upstream's JSON, and notes for the reader (extra text blocks)."""

    structured: dict[str, Any]
    notes: tuple[str, ...] = ()
    is_error: bool = False

    def value(self) -> dict[str, Any]:
        """The structured content: the JSON, well-formed (no lone surrogate, no NaN)."""
        out: dict[str, Any] = wellformed.value(self.structured)
        return out

    def text(self) -> str:
        """The result's first text block: what ``JSON.stringify(structuredContent, null, 2)``
        prints (jstext.py), so that a client showing the structured content drops it."""
        return jstext.stringify(self.value())


def call(identity: Identity, name: str, arguments: dict[str, Any] | None) -> Answer:
    """Run tool ``name``; every failure is upstream's ``{status, error}``, never a trace."""
    try:
        if name == schemas.SEARCH:
            return _search(identity, args.search_args(arguments))
        if name == schemas.HISTORY:
            return _history(identity, args.history_args(arguments))
        if name == schemas.LIST:
            from .inventory import sessions_list

            return Answer(sessions_list(identity, args.list_args(arguments)))
        raise ValueError(f"unknown tool {name!r}")  # server.py answers unknown names itself
    except (OpenClawError, sqlite3.Error, OSError) as exc:  # as the CLI's guard translates it
        return failure(db.failure(exc), identity)
    except Exception:
        log.exception("tool %s failed", name)
        return Answer({"status": "error", "error": INTERNAL}, is_error=True)


# The core names the CLI's options in a few messages; a tool caller knows its arguments.
_ARGUMENT_NAMES = {
    "--session-id": "sessionId",
    "--around": "messageId",
    "--session": "sessionKey",
    "--offset": "offset",
    "--limit": "limit",
    "--since": "after",
    "--until": "before",
}
_OPTION = re.compile("|".join(rf"{o}(?![\w-])" for o in _ARGUMENT_NAMES))


# What the core's messages name for a person at a shell, as the agent's tools name it.
_COMMANDS = {"`openclaw-sessions sessions`": "sessions_list"}
_COMMAND = re.compile(r"`openclaw-sessions[^`]*`")
_PATH = re.compile(r"(?<![\w.~])(?:/|[A-Za-z]:\\)[^\s'\"()]+")


def for_agent(message: str, identity: Identity | None) -> str:
    """A message as an agent may read it: the tools' argument names for the CLI's options,
    its own tools for a shell command (else "the operator", who has the shell), and no path
    of this machine: a store is named by its agent, anything else a path."""
    message = _OPTION.sub(lambda m: _ARGUMENT_NAMES[m.group()], message)
    for command, tool in _COMMANDS.items():
        message = message.replace(command, tool)
    message = _COMMAND.sub("the operator", message)
    if identity is not None:
        agents = re.escape(str(identity.root / "agents")) + r"[/\\]([\w.-]+)(?:[/\\][^\s'\"()]*)?"
        message = re.sub(agents, lambda m: f"agent {m.group(1)}'s store", message)
        message = message.replace(str(identity.root), "the state directory")
    return _PATH.sub("a path", message)


def failure(exc: OpenClawError, identity: Identity | None = None) -> Answer:
    """Upstream's error shape; the message redacted as the CLI redacts it (its hint, which
    names CLI options, stays out) and worded for an agent (for_agent)."""
    from openclaw_sessions.redact import build_redactor

    status = "forbidden" if isinstance(exc, ForbiddenError) else "error"
    message = build_redactor().redact_text(for_agent(exc.message, identity))
    return Answer({"status": status, "error": message}, is_error=True)


def _options(identity: Identity, query: str, a: args.SearchArgs) -> SearchOptions:
    return SearchOptions(
        query=query,
        all_agents=identity.operator,
        limit=a.limit,
        session=a.session_key,
        since=a.after,
        until=a.before,
        max_bytes=MAX_RESULT_BYTES,
        **identity.options(),
    )


def _excluded(identity: Identity, a: args.SearchArgs) -> tuple[str, ...]:
    """The sessions to leave out; ``current`` is the caller's own."""
    own = identity.as_key
    return tuple(own if k.lower() == "current" and own else k for k in a.exclude)


def _search(identity: Identity, a: args.SearchArgs) -> Answer:
    # every query in one read transaction of each store, the caller resolved once; an answer
    # without hits carries the caller-safe explanation its note is made of (reasons.py)
    found = search_batch(
        _options(identity, a.queries[0], a), a.queries, exclude=_excluded(identity, a)
    )
    bodies = [r._replace(explain=None).agent_json() for r in found]
    empty = [i for i, r in enumerate(found) if not r.hits]
    notes = [reasons.empty_search(found[i], session_key=a.session_key) for i in empty]
    if not a.batch:
        return Answer(bodies[0], tuple(notes))
    states = [
        batch.QueryState(b["results"], r.indexing, r.truncated)
        for b, r in zip(bodies, found, strict=True)
    ]
    body = batch.cap_batch(states, a.limit, MAX_RESULT_BYTES)
    return Answer(body, tuple(f"queries[{i}]: {n}" for i, n in zip(empty, notes, strict=True)))


def _history(identity: Identity, opts: HistoryOptions) -> Answer:
    if opts.limit is not None and identity.operator:
        opts = opts._replace(limit=min(opts.limit, MAX_LIMIT))
    result = history(opts._replace(**identity.options()))
    notes: tuple[str, ...] = ()
    if opts.around is not None and not result.messages:
        notes = (
            "No message with that messageId on this session's active branch: pass the"
            " sessionId of the search hit too, or read the newest messages without messageId.",
        )
    return Answer(result.to_json(), notes)
