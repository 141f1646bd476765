"""Finding transcripts: one walk of a source for its sessions dirs and upstream databases, the
session store, file-name kinds (databases are read by upstream_db.py)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from openclaw_sessions.errors import UsageError
from openclaw_sessions.model import wellformed
from openclaw_sessions.model.when import valid_updated_at
from openclaw_sessions.policy import bundle
from openclaw_sessions.reports import Issue
from openclaw_sessions.store import paths

from . import regular, upstream_db

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


class FileKind(NamedTuple):
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


class SessionsJsonEntry(NamedTuple):
    key: str
    session_id: str
    entry: dict[str, Any]
    file: Path | None  # resolved transcript path inside the sessions dir


@dataclass
class SessionsDir:
    """One agent's sessions dir, read: store entries and the files in it."""

    agent_id: str
    path: Path
    entries: list[SessionsJsonEntry] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)
    # (key, file name): the older generations a bundle's entries name (policy/bundle.py)
    archives: list[tuple[str, str]] = field(default_factory=list)
    rescope: bool = False  # keys of other agents become this agent's (a lone dir, --agent)

    def summary(self) -> str:
        """What import needs of the read store once its entries are stored: each entry's key,
        session id and file (a name inside the dir, else a path), and the issues (JSON)."""
        base = str(self.path) + os.sep

        def file(f: Path | None) -> str | None:
            s = None if f is None else str(f)
            return s[len(base) :] if s is not None and s.startswith(base) else s

        entries = [[e.key, e.session_id, file(e.file)] for e in self.entries]
        issues = [list(i) for i in self.issues]
        archives = [list(a) for a in self.archives]
        return json.dumps({"entries": entries, "issues": issues, "archives": archives})

    def load_summary(self, text: str, known: Mapping[str, Path]) -> None:
        """Entries and issues from ``summary`` (the entries without their store data)."""
        doc = json.loads(text)
        for key, sid, name in doc["entries"]:
            f = None
            if name is not None:  # the listing's Path when it has one (no path parsing)
                f = (known.get(name) or self.path / name) if os.sep not in name else Path(name)
            self.entries.append(SessionsJsonEntry(key, sid, {}, f))
        self.issues += [Issue(*i) for i in doc["issues"]]
        self.archives += [(str(k), str(n)) for k, n in doc.get("archives", [])]


def read_sessions_json(sdir: SessionsDir, known: Mapping[str, Path] | None = None) -> None:
    """Parse sessions.json into entries; problems become issues, never exceptions. ``known``:
    the paths of the dir's files by name, when the caller made them already."""
    store = sdir.path / "sessions.json"
    try:
        with regular.open_regular(store) as f:
            data = wellformed.loads(f.read().decode("utf-8-sig"))  # a BOM is no error
    except FileNotFoundError:
        return
    except regular.NotRegular as exc:
        sdir.issues.append(exc.issue())
        return
    except (OSError, ValueError, RecursionError) as exc:  # ValueError: bad UTF-8 or JSON
        sdir.issues.append(Issue("store_invalid", f"cannot read session store: {exc}", str(store)))
        return
    if not isinstance(data, dict):
        sdir.issues.append(Issue("store_invalid", "session store is not an object", str(store)))
        return
    old = bundle.agents_named(str(k).strip().lower() for k in data) if sdir.rescope else set()
    for raw_key, entry in data.items():
        key = str(raw_key).strip().lower()
        if old and isinstance(entry, dict):
            key = bundle.rescope_key(key, sdir.agent_id, old)
            entry = bundle.rescope_entry(entry, sdir.agent_id, old)
        if not _valid_agent(key):  # `history` would refuse it: refused here, once
            why = "store key names an invalid agent id; not imported under it"
            sdir.issues.append(Issue("key_invalid", why, str(store), None, None))
            continue
        if not isinstance(entry, dict) or not valid_session_id(entry.get("sessionId")):
            sdir.issues.append(
                Issue("entry_invalid", "store entry has no valid sessionId", str(store), None, key)
            )
            continue
        sid = str(entry["sessionId"])
        if entry.get("updatedAt") is not None and valid_updated_at(entry["updatedAt"]) is None:
            why = "store entry updatedAt is not a usable time (epoch ms); stored without one"
            sdir.issues.append(Issue("timestamp_invalid", why, str(store), None, key))
        file = _resolve_file(sdir, key, sid, entry, known or {})
        sdir.entries.append(SessionsJsonEntry(key, sid, entry, file))
        sdir.archives += [(key, name) for name in bundle.generation_files(entry)]


def _valid_agent(key: str) -> bool:
    """A key naming no agent, or an agent id a store can have (store/paths.py)."""
    agent = bundle.agents_named([key])
    if not agent:
        return True
    try:
        paths.check_agent_id(next(iter(agent)))
    except UsageError:
        return False
    return True


def _resolve_file(
    sdir: SessionsDir, key: str, sid: str, entry: dict[str, Any], known: Mapping[str, Path]
) -> Path | None:
    """sessionFile must resolve inside the sessions dir; anything else is refused."""
    name = f"{sid}.jsonl"
    default = known.get(name) or sdir.path / name
    declared = entry.get("sessionFile")
    if not isinstance(declared, str) or not declared.strip():
        return default
    base = sdir.path.resolve()
    posix = declared.replace("\\", "/")
    candidate = Path(posix)
    if not candidate.is_absolute() and not re.match(r"^[A-Za-z]:/", posix):
        resolved = safe_resolve(sdir.path / candidate)
        if resolved is None:  # a symlink loop: reported when the dir is scanned
            return sdir.path / candidate
        if inside(resolved, base):
            return resolved
    else:
        # A state dir copied from another machine keeps absolute paths into its old home:
        # the same name in this sessions dir is the same transcript, not a path we follow.
        # (Whether it exists is checked later: a missing one is transcript_missing.)
        if candidate.parent.name == "sessions" and candidate.name not in ("", ".", ".."):
            return sdir.path / candidate.name
    why = f"sessionFile {declared!r} escapes the sessions dir; not followed"
    sdir.issues.append(Issue("path_escape", why, str(sdir.path / "sessions.json"), None, key))
    return default if default.exists() else None


def safe_resolve(path: Path) -> Path | None:
    """path with symlinks resolved; None for a symlink loop (pathlib raises RuntimeError)."""
    try:
        return path.resolve()
    except (RuntimeError, OSError):
        return None


def inside(path: Path, directory: Path) -> bool:
    """Does path (symlinks resolved) stay inside directory? A symlink loop does not."""
    base, resolved = directory.resolve(), safe_resolve(path)
    return resolved is not None and (resolved.parent == base or base in resolved.parents)


def unreadable(path: Path, exc: OSError) -> Issue:
    """A directory that cannot be listed: its transcripts are not imported this run."""
    return Issue("dir_unreadable", f"cannot read directory: {exc.strerror or exc}", str(path))


def _is_dir(path: Path, issues: list[Issue]) -> bool:
    try:
        return path.is_dir()
    except OSError as exc:  # the parent cannot be searched (permissions)
        issues.append(unreadable(path.parent, exc))
        return False


def infer_agent(path: Path, default: str) -> str:
    """…/agents/<id>/sessions → <id>; anything else → the --agent default."""
    return path.parent.name.lower() if is_agent_dir(path) else default


def is_agent_dir(path: Path) -> bool:
    """Is ``path`` an agent's sessions dir in a state root (…/agents/<id>/sessions)?"""
    return path.name == "sessions" and path.parent.parent.name == "agents"


def lone_agent(path: Path, default: str) -> str:
    """The agent a sessions dir outside a state root (a bundle `export` wrote, a copied dir)
    goes to without `--agent`: the one agent its store's keys (``agent:<id>:…``) name, if
    they name exactly one valid id; else the default. (With `--agent ID` it goes to ID, its
    keys re-scoped: read_sessions_json.) A store that cannot be read is reported when it is read."""
    try:
        with regular.open_regular(path / "sessions.json") as f:
            data = wellformed.loads(f.read().decode("utf-8"))
    except (OSError, ValueError, RecursionError):  # NotRegular is an OSError
        return default
    if not isinstance(data, dict):
        return default
    named = bundle.agents_named(str(k).strip().lower() for k in data)
    agent = next(iter(named)) if len(named) == 1 else default
    try:
        return paths.check_agent_id(agent)
    except UsageError:  # a key naming no usable agent id (a directory name): the default
        return default


def _has_transcripts(path: Path) -> bool:
    """Named like a transcript, whatever it is: one that is not a file is then reported."""
    try:
        with os.scandir(path) as it:
            return any(e.name == "sessions.json" or ".jsonl" in e.name for e in it)
    except OSError:
        return False


class Found(NamedTuple):
    """What a walk of a source meets, in walk order: a sessions dir (``agent``, ``path``), an
    upstream agent database (``agent``: None when the path does not name it) or a problem (a
    directory it could not read, a link it refused: ``issue``)."""

    kind: str  # "sessions" | "database" | "problem"
    agent: str | None = None
    path: Path | None = None
    issue: Issue | None = None


def walk(
    source: Path, default_agent: str, *, files: bool = True, dbs: bool = True
) -> Iterator[Found]:
    """One pass over a state root, a sessions dir or any folder: its sessions dirs (``files``;
    directories that cannot be read and links to directories are problems, skipped) and its
    upstream databases (``dbs``; a linked state root's are found too), in one pre-order walk."""
    problems: list[Issue] = []
    if dbs and readable((source / upstream_db.DB_NAME).is_file):
        yield Found("database", None, source / upstream_db.DB_NAME)
    agents = source / "agents"
    if files and _linked_dir(agents, problems):
        yield from _problems(problems)
        files = False  # its transcripts are refused; its databases are still read
        if not dbs:
            return
    with_agents = files and _is_dir(agents, problems)
    yield from _problems(problems)
    if with_agents or (dbs and readable(agents.is_dir)):
        yield from _agents(agents, files=with_agents, dbs=dbs)
        return
    if files and _has_transcripts(source):
        yield Found("sessions", infer_agent(source, default_agent), source)

    def walk_error(exc: OSError) -> None:
        problems.append(unreadable(Path(exc.filename or source), exc))

    onerror = walk_error if files else None
    for dirpath, dirnames, _ in os.walk(source, followlinks=False, onerror=onerror):
        yield from _problems(problems)
        dirnames.sort()
        for d in list(dirnames):
            sub = Path(dirpath) / d
            linked = files and _linked_dir(sub, problems)  # os.walk lists it, we would follow
            yield from _problems(problems)
            if linked or readable((sub / "agents").is_dir):  # unreadable: os.walk reports it
                dirnames.remove(d)
                if not linked or (dbs and readable((sub / "agents").is_dir)):
                    yield from walk(sub, default_agent, files=files and not linked, dbs=dbs)
            elif files and _has_transcripts(sub):
                yield Found("sessions", infer_agent(sub, default_agent), sub)
    yield from _problems(problems)


def _agents(agents: Path, *, files: bool, dbs: bool) -> Iterator[Found]:
    """A state root's agents: each one's sessions dir (``files``) and database (``dbs``)."""
    try:
        entries = sorted(agents.iterdir())
    except OSError as exc:
        if files:
            yield Found("problem", issue=unreadable(agents, exc))
        return
    problems: list[Issue] = []
    for agent in entries:
        db = agent / "agent" / upstream_db.DB_NAME
        if dbs and readable(db.is_file):
            yield Found("database", agent.name.lower(), db)
        if not files or _linked_dir(agent, problems) or _linked_dir(agent / "sessions", problems):
            yield from _problems(problems)
            continue
        if _is_dir(agent / "sessions", problems):
            yield from _problems(problems)
            yield Found("sessions", agent.name.lower(), agent / "sessions")
        yield from _problems(problems)


def _problems(problems: list[Issue]) -> Iterator[Found]:
    """The problems met so far, once each."""
    while problems:
        yield Found("problem", issue=problems.pop(0))


def _linked_dir(path: Path, problems: list[Issue]) -> bool:
    """A symlink to a directory inside a source: refused, as a symlinked file is (it would
    bring another agent's or another root's transcripts in under this one)."""
    if not (readable(path.is_symlink) and readable(path.is_dir)):
        return False
    problems.append(Issue("link_dir", "symlink to a directory: not followed", str(path)))
    return True


def readable(test: Callable[[], bool]) -> bool:
    """A path test that is False when the path cannot be looked at (permissions): the sessions
    dir scan (discover.discover) reports those directories."""
    try:
        return test()
    except OSError:
        return False
