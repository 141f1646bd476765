"""Which chat a session key is, by OpenClaw's key grammar, as SQLite GLOB patterns (session
keys are stored lowercased): the kinds `--kind` and `--not-kind` name, and `--key GLOB`, for
`search`, `sessions` and `log`. Pure: patterns and the SQL condition that tests them, and the
same patterns as PostgreSQL regular expressions for the fleet's search (`--remote`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from openclaw_sessions.errors import UsageError

# kind -> the GLOB patterns of its keys (policy/keys.py and openclaw-facts.md §5)
KINDS: dict[str, tuple[str, ...]] = {
    "main": ("agent:*:main",),
    "direct": ("*:direct:*",),
    "group": ("*:group:*",),
    "channel": ("*:channel:*",),
    "thread": ("*:thread:*",),
    "subagent": ("agent:*:subagent:*",),
    "cron": ("agent:*:cron:*",),
}


class KeyFilter(NamedTuple):
    """Keys kept: matching one of each non-empty group (``kinds``, then ``globs``), and none
    of ``skipped``."""

    kinds: tuple[str, ...] = ()
    globs: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.kinds or self.globs or self.skipped)


NO_FILTER = KeyFilter()


def key_filter(
    kinds: Sequence[str] | None, not_kinds: Sequence[str] | None, globs: Sequence[str] | None
) -> KeyFilter:
    """The filter the options say, each kind checked (a usage error names the known ones)."""

    def patterns(names: Sequence[str] | None) -> tuple[str, ...]:
        out: list[str] = []
        for name in names or ():
            kind = name.strip().lower()
            if kind not in KINDS:
                raise UsageError(
                    f"no session kind {name!r}", hint=f"one of {', '.join(KINDS)}"
                )
            out += KINDS[kind]
        return tuple(out)

    return KeyFilter(
        patterns(kinds), tuple(g.strip().lower() for g in globs or ()), patterns(not_kinds)
    )


def operator_only(as_key: str | None, *given: Sequence[str] | None) -> None:
    """The filters are the operator's: an agent's answer (--as) is upstream's."""
    if as_key is not None and any(given):
        raise UsageError(
            "--kind, --not-kind and --key are operator options", hint="drop them with --as"
        )


def where(f: KeyFilter, column: str) -> tuple[list[str], list[Any]]:
    """SQL conditions on the key ``column`` and their parameters."""
    clauses: list[str] = []
    params: list[Any] = []
    for group, negated in ((f.kinds, ""), (f.globs, ""), (f.skipped, "NOT ")):
        if group:
            clauses.append(negated + "(" + " OR ".join(f"{column} GLOB ?" for _ in group) + ")")
            params += group
    return clauses, params


def glob_regex(pattern: str) -> str:
    """SQLite's GLOB ``pattern`` as an anchored regular expression PostgreSQL's ``~`` reads
    alike: ``*`` any run, ``?`` one character, ``[...]`` a class (``[^...]`` its complement),
    case kept; everything else literal. A ``[`` never closed matches nothing, as in SQLite
    (``$.``: nothing follows the end)."""
    out, i = ["^"], 0
    while i < len(pattern):
        c = pattern[i]
        j = i + 1 + (pattern[i + 1 : i + 2] == "^")
        end = pattern.find("]", j + (pattern[j : j + 1] == "]"))  # a first "]" is literal
        if c == "[" and end < 0:
            return "$."
        if c == "[":
            body = pattern[i + 1 : end]
            neg, body = ("^", body[1:]) if body.startswith("^") else ("", body)
            out.append("[" + neg + body.replace("\\", "\\\\").replace("[", "\\[") + "]")
            i = end + 1
            continue
        out.append(".*" if c == "*" else "." if c == "?" else re.escape(c))
        i += 1
    return "".join(out) + "$"
