"""What an `import` reads of the sessions dirs, planned before anything is imported (the upstream
agent databases: upstream_import.py).

A SOURCE is a state root, a sessions dir, any folder of those, or a single transcript; each
sessions dir's `sessions.json` gives the keys of its files (its entries are stored on the way),
files no entry names are imported under a derived key, archives and backups are skipped unless
asked for.
"""

from __future__ import annotations

import os
import stat as stat_mod
from contextlib import closing
from pathlib import Path
from typing import NamedTuple

from openclaw_sessions.policy import keys
from openclaw_sessions.reports import ImportReport, Issue
from openclaw_sessions.store import db, paths, sessions, tombstones

from . import discover, regular, upstream_db
from .transcripts import Target, signature

_IMPORTED_KINDS = {"current", "reset"}


_ARCHIVE_KINDS = {"deleted", "backup"}


class Source(NamedTuple):
    """One SOURCE, looked at once (import.plan): why its files cannot be read (None: they
    can), and what is in it, in walk order: upstream databases, sessions dirs, a single
    transcript (``file``) and the problems the walk met."""

    path: Path
    problem: Issue | None
    found: list[discover.Found]


def plan(root: Path, srcs: list[Path], agent: str) -> list[Source]:
    """Each source walked once (none: the state root), for its databases and its files;
    nothing is read but directories, and the first bytes of a single file (a database?)."""
    out = []
    for src in srcs or [root]:
        bad = _source_problem(src)
        found: list[discover.Found] = []
        if discover.readable(src.is_file):
            if upstream_db.is_database_file(src):
                found.append(discover.Found("database", None, src))
            elif bad is None:
                found.append(discover.Found("file", agent, src))
        elif discover.readable(src.is_dir):
            found = list(discover.walk(src, agent, files=bad is None))
        out.append(Source(src, bad, found))
    return out


def file_targets(
    root: Path,
    sources: list[Source],
    report: ImportReport,
    include_archives: bool,
    scanned: dict[str, list[Path]],
    only: str | None = None,
) -> list[tuple[str, list[Target]]]:
    """Group the sources' targets by agent (and the sessions dirs scanned, by agent); reads
    session stores and writes their entries. ``only``: the one agent to import."""
    by_agent: dict[str, list[Target]] = {}
    for src in sources:
        if src.problem is not None:
            report.issues.append(src.problem)
            continue
        for f in src.found:
            if f.issue is not None:
                report.issues.append(f.issue)
            elif f.kind == "file" and f.agent is not None and f.path is not None:
                by_agent.setdefault(f.agent, []).append(_single_target(f.path, f.agent))
            elif f.kind == "sessions" and f.agent is not None and f.path is not None:
                lone = not discover.is_agent_dir(f.path)
                agent_id = f.agent
                if lone and only is None:
                    agent_id = discover.lone_agent(f.path, agent_id)
                if only is not None and agent_id != only:
                    continue
                scanned.setdefault(agent_id, []).append(f.path)
                sdir = discover.SessionsDir(agent_id, f.path, rescope=lone and only is not None)
                targets = _dir_targets(root, sdir, report, include_archives)
                by_agent.setdefault(agent_id, []).extend(targets)
    return sorted(by_agent.items())


def _source_problem(src: Path) -> Issue | None:
    """A SOURCE is a directory or a regular file; anything else is reported and skipped."""
    try:
        bad = regular.problem(src, allow_dir=True)
    except FileNotFoundError:
        bad = regular.NotRegular("source_missing", "no such file or directory", src)
    except OSError as exc:
        bad = regular.NotRegular("source_unreadable", f"cannot read: {exc.strerror}", src)
    return None if bad is None else bad.issue()


def _single_target(path: Path, agent: str) -> Target:
    if path.is_symlink():  # the file it names: a link to an imported transcript is that one
        path = discover.safe_resolve(path) or path
    kind = discover.classify(path.name)
    sid = kind.session_id or path.stem
    return Target(path, path.name, keys.orphan_key(agent, sid), sid, "orphan")


def _dir_targets(
    root: Path, sdir: discover.SessionsDir, report: ImportReport, include_archives: bool
) -> list[Target]:
    path = sdir.path
    try:
        listing = _listing(path)
    except OSError as exc:  # this agent's problem; the other agents still import
        report.issues.append(discover.unreadable(path, exc))
        return []
    _read_sessions_json(root, sdir, {name: listed.path for name, listed in listing.items()}, report)
    report.issues.extend(sdir.issues)
    by_file: dict[str, tuple[str, str]] = {}
    by_sid: dict[str, str] = {}
    for e in sdir.entries:
        by_sid.setdefault(e.session_id, e.key)
        if e.file is None:
            continue
        if _exists(e.file, str(path), listing):
            by_file[e.file.name] = (e.key, e.session_id)
        else:
            report.issues.append(
                Issue("transcript_missing", "transcript file not found", str(e.file), None, e.key)
            )
    report.sessions += len(sdir.entries)
    for key, name in sdir.archives:  # a bundle's older generations: its key's
        kind = discover.classify(name)
        if kind.kind != "other" and kind.session_id is not None:
            by_file.setdefault(name, (key, kind.session_id))
    return _targets(sdir, listing, by_file, by_sid, report, include_archives)


class _Listed(NamedTuple):
    """A sessions dir entry, stat'ed once (symlinks followed) for everything import asks."""

    entry: os.DirEntry[str]
    path: Path
    stat: os.stat_result | OSError


def _listing(path: Path) -> dict[str, _Listed]:
    """The sessions dir's entries by name, in name order."""
    with os.scandir(path) as it:
        entries = sorted(it, key=lambda e: e.name)
    out = {}
    for e in entries:
        try:
            st: os.stat_result | OSError = e.stat()
        except OSError as exc:
            st = exc
        out[e.name] = _Listed(e, path / e.name, st)
    return out


def _exists(file: Path, sdir: str, listing: dict[str, _Listed]) -> bool:
    """Path.exists() (symlinks followed), from the listing when the file is in it."""
    head, _, name = str(file).rpartition(os.sep)
    if head != sdir:
        return file.exists()
    found = listing.get(name)
    return found is not None and isinstance(found.stat, os.stat_result)


def _targets(
    sdir: discover.SessionsDir,
    listing: dict[str, _Listed],
    by_file: dict[str, tuple[str, str]],
    by_sid: dict[str, str],
    report: ImportReport,
    include_archives: bool,
) -> list[Target]:
    out: list[Target] = []
    bundled = {name for _key, name in sdir.archives}  # named by a bundle: never skipped
    files = {  # the dir's own files: a symlink to one of them is that file, not another
        (x.stat.st_dev, x.stat.st_ino)
        for x in listing.values()
        if isinstance(x.stat, os.stat_result) and not x.entry.is_symlink()
    }
    for listed in listing.values():
        f = listed.path
        st = _regular_entry(f, listed, report)
        if st is None:
            continue
        name = listed.entry.name
        if listed.entry.is_symlink():
            if not discover.inside(f, sdir.path):
                why = "symlink points outside the sessions dir; not followed"
                report.issues.append(Issue("path_escape", why, str(f)))
                continue
            if (st.st_dev, st.st_ino) in files and name not in by_file:
                why = "symlink to another transcript of this dir: imported once, as that file"
                report.issues.append(Issue("transcript_alias", why, str(f)))
                continue
        kind = discover.classify(name)
        if kind.kind in _ARCHIVE_KINDS and not include_archives and name not in bundled:
            report.skipped += 1
            why = f"{kind.kind} file skipped (use --include-archives to import it)"
            report.issues.append(Issue(f"{kind.kind}_skipped", why, str(f)))
            continue
        if kind.kind not in _IMPORTED_KINDS | _ARCHIVE_KINDS or kind.session_id is None:
            continue
        if name in by_file:
            key, sid = by_file[name]
            out.append(Target(f, name, key, sid, kind.kind, kind.archived_at, stat=st))
            continue
        sid = kind.session_id
        found = by_sid.get(sid)
        key = found or keys.orphan_key(sdir.agent_id, sid)
        out.append(Target(f, name, key, sid, kind.kind, kind.archived_at, found is None, stat=st))
    return out


def _regular_entry(f: Path, listed: _Listed, report: ImportReport) -> os.stat_result | None:
    """This sessions dir entry's stat if it is a regular file. One that is named like a
    transcript but is not (a FIFO, a directory, a dangling link, a symlink loop) is reported."""
    if isinstance(listed.stat, os.stat_result) and stat_mod.S_ISREG(listed.stat.st_mode):
        return listed.stat

    def stat() -> os.stat_result:
        if isinstance(listed.stat, OSError):
            raise listed.stat
        return listed.stat

    try:
        bad = regular.problem(f, stat=stat)
    except OSError as exc:
        bad = regular.NotRegular("transcript_unreadable", f"cannot read: {exc.strerror}", f)
    if bad is not None and discover.classify(f.name).kind not in ("other", "lock"):
        report.issues.append(bad.issue())
    return stat() if bad is None else None


def _read_sessions_json(
    root: Path, sdir: discover.SessionsDir, known: dict[str, Path], report: ImportReport
) -> None:
    """Read the dir's session store and store its entries. A file with the stat it had when
    its entries were last stored (kept in meta with what import needs of it, until a `delete`
    forgets it) is not opened: its entries are stored already."""
    path = sdir.path / "sessions.json"
    try:
        stat = signature(os.stat(path))  # before the read: see transcripts.signature
    except OSError:
        stat = None
    db_file = paths.db_path(root, sdir.agent_id)
    meta_key = sessions.STORE_STAT + str(path)
    if stat is not None and not report.dry_run and db_file.exists():
        with closing(db.connect(db_file)) as conn:
            kept = db.get_meta(conn, meta_key)
        if kept is not None and kept.startswith(stat + "\n"):
            sdir.load_summary(kept[len(stat) + 1 :], known)
            return
    discover.read_sessions_json(sdir, known)
    if report.dry_run or not (sdir.entries or stat):
        return
    with closing(db.connect(db_file, create=True)) as conn:
        gone = tombstones.load(conn).keys  # deleted keys keep no store entry
        with db.transaction(conn):
            sessions.upsert_sessions(conn, (e[:3] for e in sdir.entries if e.key not in gone))
            if stat is None:  # being written: read it again next time
                conn.execute("DELETE FROM meta WHERE key = ?", (meta_key,))
            else:
                conn.execute(
                    "INSERT INTO meta (key, value) VALUES (?, ?)"
                    " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    (meta_key, f"{stat}\n{sdir.summary()}"),
                )


def root_present(root: Path, only: str | None, report: ImportReport) -> bool:
    """The state root an import without SOURCE reads exists; else a problem that says where
    it looked and which setting chose the root."""
    if discover.readable(root.is_dir):
        return True
    why = f"the state root does not exist: looked for {_where(root, only)}"
    report.issues.append(Issue("source_missing", why, str(root)))
    return False


def nothing_found(root: Path, only: str | None, report: ImportReport) -> None:
    """An import without SOURCE found nothing at all: say where it looked."""
    report.issues.append(
        Issue("nothing_found", f"no transcripts found: looked for {_where(root, only)}", str(root))
    )


def _where(root: Path, only: str | None) -> str:
    return paths.where(root, only or "*")
