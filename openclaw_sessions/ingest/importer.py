"""`import`: every transcript of the sources into each agent's store, doctor-style.

One transaction per transcript: an interrupted run leaves each session fully stored or
untouched, and a rerun finishes the job. Nothing in the sources is ever modified.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from openclaw_sessions.policy.redact import Redactor
from openclaw_sessions.reports import ImportReport, Issue
from openclaw_sessions.store import db, paths

from . import discover, regular, upstream_db
from .store_lines import FileResult, Target, import_file

Progress = Callable[[int, int], None]  # (bytes done, bytes total)

_IMPORTED_KINDS = {"current", "reset"}
_ARCHIVE_KINDS = {"deleted", "backup"}


@dataclass
class Options:
    dry_run: bool = False
    include_archives: bool = False


def run_import(
    root: Path,
    srcs: Iterable[Path],
    *,
    agent: str,
    redactor: Redactor,
    options: Options,
    progress: Progress | None = None,
) -> ImportReport:
    from . import upstream_import  # lazy: it imports this module

    report = ImportReport(dry_run=options.dry_run)
    src_list = list(srcs)
    ups = upstream_import.plan(root, src_list, agent, report)  # checked before any write
    scanned: dict[str, list[Path]] = {}
    plan = upstream_import.merge(
        _plan(root, src_list, agent, report, options, scanned), ups, report
    )
    total = sum(_size(t.path) for _, targets in plan for t in targets)
    done = 0
    for agent_id, targets in plan:
        conn = _open(root, agent_id, options.dry_run)
        try:
            report.agents.append(agent_id)
            for target in targets:
                done += _size(target.path)
                _one(conn, target, redactor, options, report)
                if progress:
                    progress(done, total)
            _vanished(conn, scanned.get(agent_id, []), report, options.dry_run)
            mine = [u for u in ups if u.agent_id == agent_id]
            upstream_import.run(conn, mine, redactor, options, report)
            if not options.dry_run:
                _set_meta(conn, "last_import_at", str(db.now_ms()))
        finally:
            conn.close()
    report.redact_issues(redactor)
    return report


def _open(root: Path, agent_id: str, dry_run: bool) -> sqlite3.Connection:
    path = paths.db_path(root, agent_id)
    if dry_run and not path.exists():
        return db.connect_memory()
    return db.connect(path, create=True)


def _one(
    conn: sqlite3.Connection, t: Target, redactor: Redactor, o: Options, r: ImportReport
) -> None:
    r.files += 1
    isolated(r, t, redactor, lambda: import_file(conn, t, redactor, dry_run=o.dry_run))


def isolated(
    r: ImportReport, t: Target, redactor: Redactor, work: Callable[[], FileResult]
) -> None:
    """Import one transcript (its own transaction) and account for it. Whatever fails on it
    is its reported problem, and the run goes on; a store failure (disk full, locked,
    corrupt) still ends the run (exit 3)."""
    try:
        res = work()
    except regular.NotRegular as exc:
        r.issues.append(exc.issue(t.session_key))
        return
    except OSError as exc:
        r.issues.append(Issue("transcript_unreadable", f"cannot read: {exc.strerror or exc}",
                              str(t.path), None, t.session_key))  # fmt: skip
        return
    except Exception as exc:
        if db.is_store_failure(exc):
            raise
        r.issues.append(Issue("transcript_failed", f"not imported: {db.describe(exc, redactor)}",
                              str(t.path), None, t.session_key))  # fmt: skip
        return
    account(r, t, res)


def account(r: ImportReport, t: Target, res: FileResult) -> None:
    """Add one transcript's result to the report (files and upstream databases alike)."""
    key = res.session_key or t.session_key
    if res.renamed_from is not None:
        r.issues.append(Issue("transcript_renamed", f"{res.renamed_from} was renamed to this "
                              f"{t.kind} archive: its stored copy (under {key}) takes the new "
                              "name, nothing is stored twice", str(t.path), None, key))  # fmt: skip
    elif t.unreferenced and key == t.session_key:
        # A reset archive's key is only known if its generation was imported while current
        # (then it files under that key, silently); otherwise it is kept, and reported, under
        # a derived key.
        code = "transcript_unreferenced" if t.kind == "current" else "archive_unreferenced"
        r.issues.append(Issue(code, f"no store entry references this file: imported as {key}",
                              str(t.path), None, key))  # fmt: skip
    r.events += res.events
    r.bytes_read += res.bytes_read
    r.malformed_lines += res.malformed
    r.issues.extend(res.issues)
    if res.status == "imported":
        r.imported += 1
    elif res.status in ("updated", "rewritten"):
        r.updated += 1
        if res.status == "rewritten":
            r.rewritten += 1
            r.issues.append(
                Issue(
                    "transcript_rewritten",
                    "already-imported lines changed: "
                    "stored as a new revision, session marked for reindex",
                    str(t.path),
                    None,
                    t.session_key,
                )
            )
    else:
        r.unchanged += 1


def _size(p: Path) -> int:
    try:
        return p.stat().st_size
    except OSError:
        return 0


def _vanished(
    conn: sqlite3.Connection, dirs: list[Path], report: ImportReport, dry_run: bool
) -> None:
    """Current transcripts of the scanned sessions dirs whose file is gone, and that no archive
    took over (a rename): they become kind `vanished`, reported on every run like a missing
    transcript. Their rows stay, still searchable as an older generation of their key: the
    store keeps what it imported until `delete`, and the file may come back (current again)."""
    if not dirs:
        return
    where = {d.resolve() for d in dirs}
    missing = {discover.safe_resolve(Path(i.path)) for i in report.issues
               if i.code == "transcript_missing" and i.path}  # fmt: skip
    gone = [
        (tid, path, key, kind)
        for tid, path, key, kind in conn.execute(
            "SELECT transcript_id, source_path, session_key, kind FROM transcripts"
            " WHERE kind IN ('current', 'vanished') AND source_name NOT LIKE 'upstream:%'"
            " AND source_name NOT LIKE 'live:%'"
        ).fetchall()
        if Path(path).parent.resolve() in where and not Path(path).exists()
    ]
    for _tid, path, key, _kind in gone:
        if discover.safe_resolve(Path(path)) not in missing:  # named by a store entry: reported
            report.issues.append(Issue("transcript_vanished", "transcript file is gone and no "
                                       "archive of it was imported: its stored copy is kept and "
                                       "stays searchable as an older generation (restore the "
                                       "file, import its archive, or `delete` its session id)",
                                       path, None, key))  # fmt: skip
    fresh = [(tid,) for tid, _, _, kind in gone if kind == "current"]
    if fresh and not dry_run:
        with db.transaction(conn):
            conn.executemany("UPDATE transcripts SET kind = 'vanished' WHERE transcript_id = ?",
                             fresh)  # fmt: skip


def _plan(
    root: Path,
    srcs: list[Path],
    agent: str,
    report: ImportReport,
    options: Options,
    scanned: dict[str, list[Path]],
) -> list[tuple[str, list[Target]]]:
    """Group targets by agent (and the sessions dirs scanned, by agent); reads session stores
    and writes their entries."""
    by_agent: dict[str, list[Target]] = {}
    if not srcs:
        srcs = [root]
    for src in srcs:
        if not _usable_source(src, report):
            continue
        if not src.is_dir():
            if not upstream_db.is_database_file(src):  # databases: upstream_import
                by_agent.setdefault(agent, []).append(_single_target(src, agent))
        else:
            for agent_id, sdir_path in discover.discover(src, agent, report.issues):
                scanned.setdefault(agent_id, []).append(sdir_path)
                targets = _dir_targets(root, agent_id, sdir_path, report, options)
                by_agent.setdefault(agent_id, []).extend(targets)
    return sorted(by_agent.items())


def _usable_source(src: Path, report: ImportReport) -> bool:
    """A SOURCE is a directory or a regular file; anything else is reported and skipped."""
    try:
        bad = regular.problem(src, allow_dir=True)
    except FileNotFoundError:
        bad = regular.NotRegular("source_missing", "no such file or directory", src)
    except OSError as exc:
        bad = regular.NotRegular("source_unreadable", f"cannot read: {exc.strerror}", src)
    if bad is not None:
        report.issues.append(bad.issue())
    return bad is None


def _single_target(path: Path, agent: str) -> Target:
    kind = discover.classify(path.name)
    sid = kind.session_id or path.stem
    return Target(path, path.name, f"agent:{agent}:orphan:{sid.lower()}", sid, "orphan")


def _dir_targets(
    root: Path, agent_id: str, path: Path, report: ImportReport, options: Options
) -> list[Target]:
    sdir = discover.SessionsDir(agent_id, path)
    try:
        os.scandir(path).close()
    except OSError as exc:  # this agent's problem; the other agents still import
        report.issues.append(discover.unreadable(path, exc))
        return []
    discover.read_store(sdir)
    report.issues.extend(sdir.issues)
    by_file: dict[str, tuple[str, str]] = {}
    by_sid: dict[str, str] = {}
    for e in sdir.entries:
        by_sid.setdefault(e.session_id, e.key)
        if e.file is None:
            continue
        if e.file.exists():
            by_file[e.file.name] = (e.key, e.session_id)
        else:
            report.issues.append(
                Issue("transcript_missing", "transcript file not found", str(e.file), None, e.key)
            )
    report.sessions += _write_store(root, agent_id, sdir.entries, report.dry_run)
    return _targets(sdir, by_file, by_sid, report, options.include_archives)


def _targets(
    sdir: discover.SessionsDir,
    by_file: dict[str, tuple[str, str]],
    by_sid: dict[str, str],
    report: ImportReport,
    include_archives: bool,
) -> list[Target]:
    out: list[Target] = []
    for f in sorted(sdir.path.iterdir()):
        if not _regular_entry(f, report):
            continue
        if f.is_symlink() and not discover.inside(f, sdir.path):
            report.issues.append(
                Issue(
                    "path_escape", "symlink points outside the sessions dir; not followed", str(f)
                )
            )
            continue
        kind = discover.classify(f.name)
        if kind.kind in _ARCHIVE_KINDS and not include_archives:
            _skip(report, f, kind.kind)
            continue
        if kind.kind not in _IMPORTED_KINDS | _ARCHIVE_KINDS or kind.session_id is None:
            continue
        if f.name in by_file:
            key, sid = by_file[f.name]
            out.append(Target(f, f.name, key, sid, kind.kind, kind.archived_at))
            continue
        sid = kind.session_id
        found = by_sid.get(sid)
        key = found or f"agent:{sdir.agent_id}:orphan:{sid.lower()}"
        out.append(Target(f, f.name, key, sid, kind.kind, kind.archived_at, found is None))
    return out


def _regular_entry(f: Path, report: ImportReport) -> bool:
    """Is this sessions dir entry a regular file? One that is named like a transcript but is
    not (a FIFO, a directory, a dangling link, a symlink loop) is reported."""
    try:
        bad = regular.problem(f)
    except OSError as exc:
        bad = regular.NotRegular("transcript_unreadable", f"cannot read: {exc.strerror}", f)
    if bad is not None and discover.classify(f.name).kind not in ("other", "lock"):
        report.issues.append(bad.issue())
    return bad is None


def _skip(report: ImportReport, f: Path, kind: str) -> None:
    report.skipped += 1
    report.issues.append(
        Issue(
            f"{kind}_skipped", f"{kind} file skipped (use --include-archives to import it)", str(f)
        )
    )


def _write_store(root: Path, agent_id: str, entries: list[discover.StoreEntry], dry: bool) -> int:
    if dry or not entries:
        return len(entries)
    conn = db.connect(paths.db_path(root, agent_id), create=True)
    try:
        with db.transaction(conn):
            for e in entries:
                upsert_session(conn, e.key, e.session_id, e.entry)
    finally:
        conn.close()
    return len(entries)


def upsert_session(
    conn: sqlite3.Connection, key: str, session_id: str, entry: dict[str, object]
) -> None:
    def text(name: str) -> str | None:
        v = entry.get(name)
        return v.strip().lower() if isinstance(v, str) and v.strip() else None

    label = entry.get("label") or entry.get("displayName")
    updated = discover.valid_updated_at(entry.get("updatedAt"))
    conn.execute(
        "INSERT INTO sessions (session_key, session_id, spawned_by, parent_session_key,"
        " owner_session_key, label, updated_at, entry_json, derived)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0) ON CONFLICT(session_key) DO UPDATE SET"
        " session_id = excluded.session_id, spawned_by = excluded.spawned_by,"
        " parent_session_key = excluded.parent_session_key,"
        " owner_session_key = excluded.owner_session_key, label = excluded.label,"
        " updated_at = excluded.updated_at, entry_json = excluded.entry_json, derived = 0",
        (
            key,
            session_id,
            text("spawnedBy"),
            text("parentSessionKey"),
            text("ownerSessionKey"),
            label if isinstance(label, str) else None,
            updated,
            json.dumps(entry, ensure_ascii=False),
        ),
    )


def _set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    with db.transaction(conn):
        conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?)"
            " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )
