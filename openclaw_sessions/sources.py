"""Finding transcripts: sessions dirs, the session store, file-name kinds (no database)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .reports import Issue

SESSION_ID_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{0,127}$", re.IGNORECASE)
_RESET = re.compile(r"^(?P<id>.+)\.jsonl\.reset\.(?P<ts>.+)$")
_DELETED = re.compile(r"^(?P<id>.+)\.jsonl\.deleted\.(?P<ts>[^.]+(?:\.\d+Z)?)(?P<zst>\.zst)?$")
_BACKUP = re.compile(r"^(?P<id>.+?)\.jsonl\.bak(?:[.-](?P<ts>.*))?$|^(?P<id2>.+?)\.bak-.*$")


def valid_session_id(value: Any) -> bool:
    if not isinstance(value, str) or not value or len(value) > 128:
        return False
    if SESSION_ID_RE.match(value):
        return True
    # Newer upstream also allows NFC Unicode letters and numbers.
    import unicodedata

    return unicodedata.normalize("NFC", value) == value and all(
        ch.isalnum() or ch in "._-" for ch in value
    )


@dataclass(frozen=True)
class FileKind:
    kind: str  # current | reset | deleted | backup | lock | other
    session_id: str | None = None
    archived_at: str | None = None


def classify(name: str) -> FileKind:
    """What a file in a sessions dir is, from its name alone."""
    if name.endswith(".zst") and ".jsonl" in name:
        # Upstream's zstd archives (`*.jsonl.deleted.<ts>.zst`, …): the kind of the plain name.
        inner = classify(name[: -len(".zst")])
        kept = inner.kind in ("current", "reset", "deleted", "backup")
        return inner if kept else FileKind("other")
    if name.endswith(".jsonl.lock") or name == "sessions.json":
        return FileKind("lock" if name.endswith(".lock") else "other")
    if name.endswith(".trajectory.jsonl"):
        return FileKind("other")
    if name.endswith(".jsonl"):
        return FileKind("current", name[: -len(".jsonl")])
    if m := _RESET.match(name):
        return FileKind("reset", m["id"], m["ts"])
    if m := _DELETED.match(name):
        return FileKind("deleted", m["id"], m["ts"])
    if m := _BACKUP.match(name):
        return FileKind("backup", m["id"] or m["id2"], m["ts"])
    return FileKind("other")


@dataclass
class StoreEntry:
    key: str
    session_id: str
    entry: dict[str, Any]
    file: Path | None  # resolved transcript path inside the sessions dir


@dataclass
class SessionsDir:
    """One agent's sessions dir, read: store entries and the files in it."""

    agent_id: str
    path: Path
    entries: list[StoreEntry] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)


def read_store(sdir: SessionsDir) -> None:
    """Parse sessions.json into entries; problems become issues, never exceptions."""
    store = sdir.path / "sessions.json"
    if not store.exists():
        return
    try:
        data = json.loads(store.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        sdir.issues.append(Issue("store_invalid", f"cannot read session store: {exc}", str(store)))
        return
    if not isinstance(data, dict):
        sdir.issues.append(Issue("store_invalid", "session store is not an object", str(store)))
        return
    for raw_key, entry in data.items():
        key = str(raw_key).strip().lower()
        if not isinstance(entry, dict) or not valid_session_id(entry.get("sessionId")):
            sdir.issues.append(
                Issue("entry_invalid", "store entry has no valid sessionId", str(store), None, key)
            )
            continue
        sid = str(entry["sessionId"])
        sdir.entries.append(StoreEntry(key, sid, entry, _resolve_file(sdir, key, sid, entry)))


def _resolve_file(sdir: SessionsDir, key: str, sid: str, entry: dict[str, Any]) -> Path | None:
    """sessionFile must resolve inside the sessions dir; anything else is refused."""
    default = sdir.path / f"{sid}.jsonl"
    declared = entry.get("sessionFile")
    if not isinstance(declared, str) or not declared.strip():
        return default
    base = sdir.path.resolve()
    posix = declared.replace("\\", "/")
    candidate = Path(posix)
    if not candidate.is_absolute() and not re.match(r"^[A-Za-z]:/", posix):
        resolved = (sdir.path / candidate).resolve()
        if inside(resolved, base):
            return resolved
    else:
        # A state dir copied from another machine keeps absolute paths into its old home:
        # the same name in this sessions dir is the same transcript, not a path we follow.
        # (Whether it exists is checked later: a missing one is transcript_missing.)
        if candidate.parent.name == "sessions" and candidate.name not in ("", ".", ".."):
            return sdir.path / candidate.name
    sdir.issues.append(
        Issue(
            "path_escape",
            f"sessionFile {declared!r} escapes the sessions dir; not followed",
            str(sdir.path / "sessions.json"),
            None,
            key,
        )
    )
    return default if default.exists() else None


def inside(path: Path, directory: Path) -> bool:
    """Does path (symlinks resolved) stay inside directory?"""
    base, resolved = directory.resolve(), path.resolve()
    return resolved.parent == base or base in resolved.parents


def infer_agent(path: Path, default: str) -> str:
    """…/agents/<id>/sessions → <id>; anything else → the --agent default."""
    if path.name == "sessions" and path.parent.parent.name == "agents":
        return path.parent.name.lower()
    return default


def _has_transcripts(path: Path) -> bool:
    try:
        with os.scandir(path) as it:
            for e in it:
                if e.is_file() and (e.name == "sessions.json" or ".jsonl" in e.name):
                    return True
    except OSError:
        return False
    return False


def discover(source: Path, default_agent: str) -> Iterator[tuple[str, Path]]:
    """(agent, sessions dir) pairs under a state root, a sessions dir or any folder."""
    if (source / "agents").is_dir():
        for agent in sorted((source / "agents").iterdir()):
            if (agent / "sessions").is_dir():
                yield agent.name.lower(), agent / "sessions"
        return
    if _has_transcripts(source):
        yield infer_agent(source, default_agent), source
    for dirpath, dirnames, _ in os.walk(source, followlinks=False):
        dirnames.sort()
        for d in list(dirnames):
            sub = Path(dirpath) / d
            if (sub / "agents").is_dir():
                dirnames.remove(d)
                yield from discover(sub, default_agent)
            elif _has_transcripts(sub):
                yield infer_agent(sub, default_agent), sub
