"""`import`: every transcript of the sources into each agent's store, doctor-style.

One transaction per transcript: an interrupted run leaves each session fully stored or
untouched, and a rerun finishes the job. Nothing in the sources is ever modified.
"""

from __future__ import annotations

import functools
import os
import sqlite3
from collections.abc import Iterable
from contextlib import closing
from pathlib import Path
from typing import NamedTuple

from openclaw_sessions.index.reconcile import adopt_pending
from openclaw_sessions.index.reindex import reindex_agent
from openclaw_sessions.redact import Redactor
from openclaw_sessions.reports import Bars, ImportReport, Issue, Progress, ReindexReport, no_bars
from openclaw_sessions.store import db, paths
from openclaw_sessions.store.paths import StateScope

from . import (
    deleted,
    discover,
    problems,
    regular,
    targets,
    transcripts,
    upstream_import,
)
from .store_lines import import_file
from .transcripts import Target


class ImportOptions(NamedTuple):
    """`import`'s options; each field declares the CLI parameter of its name (type, default)."""

    sources: list[Path] | None = None  # None or empty: every <root>/agents/*/sessions
    state_dir: Path | None = None
    # Only this agent (a lone transcript or sessions dir goes to it); None: every agent, and
    # a lone transcript goes to the default agent.
    agent: str | None = None
    all_agents: bool = False  # every agent, whatever --agent says (the default; symmetry)
    undelete: list[str] | None = None  # keys (or ids) `delete` removed: import them again
    dry_run: bool = False
    include_archives: bool = False
    # True: reconcile right after; False: leave it to the next search or `reindex`; None: when
    # this run stored at most SMALL_IMPORT events (the CLI says True on a terminal)
    reindex: bool | None = None


# About two seconds of indexing on two cores: a cron line that picks up a day's messages
# stays cheap and leaves a searchable store; a first import of a big archive does not block.
SMALL_IMPORT = 100_000


class Imported(NamedTuple):
    report: ImportReport
    reindexed: tuple[ReindexReport, ...] = ()  # when the import reconciled (--reindex)

    @property
    def problems(self) -> int:
        """New problems only: what an earlier run reported is counted, not failed on again."""
        return self.report.new_problems + sum(r.problems for r in self.reindexed)


def import_sources(opts: ImportOptions, bars: Bars = no_bars) -> Imported:
    """The import (progress in bytes read), then, with ``reindex`` or a small import, each
    agent's reconciliation: the store is searchable when the command returns."""
    only = None if opts.all_agents or opts.agent is None else paths.check_agent_id(opts.agent)
    ctx = StateScope.at(opts.state_dir, only or paths.DEFAULT_AGENT)
    redactor = ctx.redactor()
    with bars("importing", "B") as bar:
        report = run_import(
            ctx.root,
            opts.sources or [],
            agent=ctx.agent,
            redactor=redactor,
            options=opts._replace(agent=only),
            progress=bar,
        )
    problems.remember(ctx.root, report, opts.sources)
    small = report.events <= SMALL_IMPORT
    if opts.dry_run or not (opts.reindex or (opts.reindex is None and small)):
        return Imported(report)
    return Imported(report, tuple(reindex_agent(ctx.root, a, redactor) for a in report.agents))


def run_import(
    root: Path,
    srcs: Iterable[Path],
    *,
    agent: str,
    redactor: Redactor,
    options: ImportOptions,
    progress: Progress | None = None,
) -> ImportReport:
    """Import ``srcs`` (none: the state root's sessions dirs and databases); ``agent`` takes
    what names no agent, ``options.agent`` (when set) is the only agent imported."""
    report = ImportReport(dry_run=options.dry_run)
    src_list = list(srcs)
    if options.undelete:
        deleted.undelete(root, options.undelete, options.agent, report)
    if not src_list and not targets.root_present(root, options.agent, report):
        return report
    sources = targets.plan(root, src_list, agent)  # each source walked once
    # databases first: checked before anything is written
    walked = [f for src in sources for f in src.found]
    ups = upstream_import.open_databases(walked, agent, report, options.agent)
    scanned: dict[str, list[Path]] = {}
    files = targets.file_targets(
        root, sources, report, options.include_archives, scanned, options.agent
    )
    by_agent = upstream_import.merge(files, ups, report)
    if not src_list and not by_agent:
        targets.nothing_found(root, options.agent, report)
    total = sum(transcripts.size(t) or 0 for _, found in by_agent for t in found)
    done = 0
    for agent_id, found in by_agent:
        with closing(_open(root, agent_id, options.dry_run)) as conn:
            report.agents.append(agent_id)
            stored = transcripts.stored_files(conn)  # one read for every file's check
            for target in found:
                done += transcripts.size(target) or 0
                _import_file(conn, target, redactor, options, report, stored)
                if progress:
                    progress(done, total)
            listed = {str(t.path) for t in found}
            _vanished(conn, scanned.get(agent_id, []), listed, report, options.dry_run)
            mine = [u for u in ups if u.agent_id == agent_id]
            upstream_import.import_databases(
                conn, mine, redactor, report, options.dry_run, options.include_archives
            )
            if not options.dry_run:
                db.set_meta(conn, last_import_at=str(db.now_ms()))
                adopt_pending(conn, redactor.fingerprint)
    report.redact_issues(redactor)
    return report


def _open(root: Path, agent_id: str, dry_run: bool) -> sqlite3.Connection:
    path = paths.db_path(root, agent_id)
    if dry_run and not path.exists():
        return db.connect_memory()
    return db.connect(path, create=True)


def _import_file(
    conn: sqlite3.Connection,
    t: Target,
    redactor: Redactor,
    o: ImportOptions,
    r: ImportReport,
    stored: transcripts.Stored,
) -> None:
    """Import one transcript file (its own transaction) and tally it. Whatever fails on it is
    its reported problem, and the run goes on; a store failure (disk full, locked, corrupt)
    still ends the run (exit 3)."""
    r.files += 1
    path, key = str(t.path), t.session_key
    try:
        res = import_file(conn, t, redactor, dry_run=o.dry_run, stored=stored)
    except regular.NotRegular as exc:
        r.issues.append(exc.issue(key))
    except OSError as exc:
        why = f"cannot read: {exc.strerror or exc}"
        r.issues.append(Issue("transcript_unreadable", why, path, None, key))
    except Exception as exc:
        if db.is_store_failure(exc):
            raise
        why = f"not imported: {db.describe(exc, redactor)}"
        r.issues.append(Issue("transcript_failed", why, path, None, key))
    else:
        transcripts.tally(r, t, res)


_VANISHED = (
    "transcript file is gone and no archive of it was imported: its stored copy is kept and"
    " stays searchable as an older generation (restore the file, import its archive, or"
    " `delete` its session id)"
)


def _vanished(
    conn: sqlite3.Connection,
    dirs: list[Path],
    listed: set[str],
    report: ImportReport,
    dry_run: bool,
) -> None:
    """Current transcripts of the scanned sessions dirs whose file is gone, and that no archive
    took over (a rename): they become kind `vanished`, reported on every run like a missing
    transcript. Their rows stay, still searchable as an older generation of their key: the
    store keeps what it imported until `delete`, and the file may come back (current again).
    ``listed``: the files this run found, which are not gone (no stat needed)."""
    if not dirs:
        return
    where = {d.resolve() for d in dirs}

    @functools.cache  # a parent dir is resolved once, not once a file
    def real_dir(parent: str) -> Path | None:
        return discover.safe_resolve(Path(parent))

    def real(path: str) -> tuple[Path | None, str]:
        """A file's resolved dir and name (a missing file is no link to follow)."""
        head, _, name = path.rpartition(os.sep)
        return real_dir(head or os.sep), name

    missing = {real(i.path) for i in report.issues if i.code == "transcript_missing" and i.path}

    gone = [
        (tid, path, key, kind)
        for tid, path, key, kind in conn.execute(
            "SELECT transcript_id, source_path, session_key, kind FROM transcripts"
            f" WHERE kind IN ('current', 'vanished') AND {transcripts.NOT_FILES}"
        ).fetchall()
        if path not in listed
        and real_dir(os.path.dirname(path)) in where
        and not os.path.exists(path)
    ]
    for _tid, path, key, _kind in gone:
        if real(path) not in missing:  # named by a store entry: reported already
            report.issues.append(Issue("transcript_vanished", _VANISHED, path, None, key))
    fresh = [(tid,) for tid, _, _, kind in gone if kind == "current"]
    if fresh and not dry_run:
        with db.transaction(conn):
            conn.executemany(
                "UPDATE transcripts SET kind = 'vanished' WHERE transcript_id = ?", fresh
            )
