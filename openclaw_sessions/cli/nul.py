"""`-0/--null` on `sessions` and `search`: what names each record, NUL-terminated, for
`xargs -0` (as `find -print0` and `rg -l -0` print names): a session's key; a hit's key and
message id (two fields); with `search --sessions`, each key. Off a terminal a name is raw but
for the two characters the framing and the KEY arguments need escaped: a backslash is `\\\\`
(KEY arguments read the plain output's escape back, cli/output.py) and a NUL `\\x00`; so
a key holding a tab or a newline reaches `xargs -0 openclaw-sessions history` as itself. On a
terminal names keep the whole escape (output.field): nothing printed can act on it."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from openclaw_sessions.errors import UsageError

from .output import field, write_text

if TYPE_CHECKING:
    from openclaw_sessions.read.listing import Listed
    from openclaw_sessions.read.models import SearchResult


def check(given: dict[str, Any]) -> None:
    """-0 is a form of the plain output of names: refused with the forms it cannot be.
    ``given``: the command's parameters, by name."""
    clash = (
        "--json" if given.get("as_json") else
        "--jsonl" if given.get("jsonl") else
        "--format table" if given.get("layout") == "table" else
        "--remote" if given.get("remote") is not None or given.get("hosts") else
        "--count" if given.get("counts") else
        "--context" if given.get("context") else None
    )  # fmt: skip
    if clash is not None:
        raise UsageError(
            f"-0/--null prints the keys (and message ids) NUL-terminated: not with {clash}",
            hint=f"drop {clash} or -0",
        )


def _framed(name: str) -> str:
    return name.replace("\\", "\\\\").replace("\0", "\\x00")


def _names(names: Iterable[str]) -> None:
    shown = field if sys.stdout.isatty() else _framed
    write_text("".join(shown(n) + "\0" for n in names))


def sessions(listed: Listed) -> None:
    _names(r.session_key for r in listed.rows)


def search(result: SearchResult) -> None:
    if result.sessions is not None:
        _names(s.session_key for s in result.sessions)
    else:
        _names(name for h in result.hits for name in (h.session_key, h.message_id))
