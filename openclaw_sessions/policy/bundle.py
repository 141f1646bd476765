"""A bundle (pure): the sessions dir `export KEY --format jsonl -o DIR/` writes and `import DIR`
reads back, keeping each key's identity.

A bundle is an OpenClaw sessions dir: the key's transcripts named as OpenClaw names them
(`<id>.jsonl`, `<id>.jsonl.reset.<ISO>`) and a `sessions.json` with the key's store entry.
OpenClaw's store names only the current transcript of a key; a reset archive keeps nothing
that says whose it was. So the entry also lists the key's older generations, by file name,
under a field of our own (upstream ignores it): ``"openclawSessions": {"generations": [...]}``.

Re-scoping (`import DIR --agent ID`): a key ``agent:<old>:<rest>`` becomes
``agent:<ID>:<rest>``, and so do the links (spawnedBy, parentSessionKey, ownerSessionKey)
that name one of the agents the dir's keys named; a link to any other agent stays as it is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from . import keys

FIELD = "openclawSessions"  # our part of a bundle's store entry
GENERATIONS = "generations"  # its list of the key's older transcripts, by file name
LINKS = ("spawnedBy", "parentSessionKey", "ownerSessionKey")


def generation_files(entry: Mapping[str, Any]) -> list[str]:
    """The file names a bundle entry gives as its key's older generations: plain names only
    (a path, `.` or `..` is never followed)."""
    ours = entry.get(FIELD)
    names = ours.get(GENERATIONS) if isinstance(ours, dict) else None
    if not isinstance(names, list):
        return []
    return [
        n
        for n in names
        if isinstance(n, str) and n not in ("", ".", "..") and "/" not in n and "\\" not in n
        and "\x00" not in n
    ]  # fmt: skip


def with_generations(entry: Mapping[str, Any], files: Iterable[str]) -> dict[str, Any]:
    """``entry`` listing ``files`` (after those it listed already) as older generations."""
    names = list(dict.fromkeys([*generation_files(entry), *files]))
    out = without_generations(entry)
    if names:
        out[FIELD] = {**(out.get(FIELD) or {}), GENERATIONS: names}
    return out


def without_generations(entry: Mapping[str, Any]) -> dict[str, Any]:
    """``entry`` without its list of older generations (what two exports compare)."""
    out = {k: v for k, v in entry.items() if k != FIELD}
    ours = entry.get(FIELD)
    rest = {k: v for k, v in ours.items() if k != GENERATIONS} if isinstance(ours, dict) else {}
    if rest:
        out[FIELD] = rest
    return out


def agents_named(store_keys: Iterable[str]) -> set[str]:
    """The agents the keys ``agent:<id>:<rest>`` of a store name."""
    return {a for a in map(keys.agent_of, store_keys) if a is not None}


def rescope_key(key: str, agent: str, old: set[str]) -> str:
    """``agent:<old>:<rest>`` → ``agent:<agent>:<rest>`` when <old> is in ``old``."""
    parsed = keys.parse_key(key)
    if parsed is None or parsed[0] not in old:
        return key
    return keys.scoped(parsed[1], agent)


def rescope_entry(entry: Mapping[str, Any], agent: str, old: set[str]) -> dict[str, Any]:
    """The entry with its links re-scoped as its key is."""
    out = dict(entry)
    for name in LINKS:
        value = out.get(name)
        if isinstance(value, str) and value.strip():
            out[name] = rescope_key(value, agent, old)
    return out
