"""What import and reindex report, for people, on stderr: the counts, each issue met for the
first time (a known one is counted: ingest/problems.py; each kind is one line, with its count
and an example or two: a first import of an old state dir meets hundreds of the same note;
`--verbose` lists every one), and with `--quiet` only the problems that are new since the last
run (a cron line mails nothing else). Paths, keys and messages are escaped as every plain output
escapes them (output.field)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from openclaw_sessions.model import wellformed

from .output import field, safe
from .render import console

if TYPE_CHECKING:
    from openclaw_sessions.index.embed import EmbedReport
    from openclaw_sessions.reports import ImportReport, Issue, ReindexReport


def import_report(
    report: ImportReport, reindexed: Sequence[ReindexReport], every: bool = False
) -> None:
    out = console(True)
    verb = "would import" if report.dry_run else "imported"
    out.print(
        f"{verb}: {report.imported} new, {report.updated} updated, {report.unchanged} unchanged "
        f"transcripts; {report.events} events stored; {report.malformed_lines} malformed lines; "
        f"{report.skipped} files skipped"
    )
    if report.upstream_databases:
        out.print(
            f"upstream databases: {report.upstream_databases} read; "
            f"{report.upstream_rows_read} new rows, {report.upstream_rows_checked} rows checked"
        )
    if not report.dry_run and not report.events and not report.imported:
        out.print("nothing new to import")
    fresh = [i for i in report.issues if not i.known]  # redacted by the importer
    for line in folded(fresh, report.dry_run, every):
        out.print(line)
    known = [i for i in report.issues if i.known]
    if known:
        errors = sum(1 for i in known if i.severity == "error")
        out.print(
            f"  {len(known)} issue(s) reported by an earlier import, unchanged ({errors}"
            " problem(s)): `openclaw-sessions status --problems` lists them"
        )
    reindex_reports(reindexed)
    if report.imported and not reindexed and not report.dry_run:
        out.print("new transcripts are indexed by the next search or `openclaw-sessions reindex`")


def folded(issues: Sequence[Issue], dry_run: bool = False, every: bool = False) -> list[str]:
    """One line per kind of issue: a kind met once is that issue's line; more, their count,
    the first one and where the second is (203 unreferenced archives are one line, not 203).
    ``every`` (--verbose): one line per issue. JSON and `status --problems` list them all."""
    if every:
        return [_issue_line(i) for i in issues]
    kinds: dict[tuple[str, str], list[Issue]] = {}
    for issue in issues:
        kinds.setdefault((issue.severity, issue.code), []).append(issue)
    lines = []
    for (_, code), met in kinds.items():
        if len(met) == 1:
            lines.append(_issue_line(met[0]))
            continue
        first = _issue_line(met[0]).split(": ", 2)[2]
        then = field(f"[{_where(met[1])}]") + (", …" if len(met) > 2 else "")
        where = "`--json`" if dry_run else "`openclaw-sessions status --problems`"
        tag = "problem" if met[0].severity == "error" else "note"
        lines.append(
            f"  {tag}: {field(code)}: {len(met)} times (first: {first}; then: {then});"
            f" `--verbose` and {where} list them all"
        )
    return lines


def _where(issue: Issue) -> str:
    where = issue.path or issue.session_key or ""
    return f"{where}:{issue.line}" if issue.line else where


def _issue_line(issue: Issue) -> str:
    tag = "problem" if issue.severity == "error" else "note"
    return field(f"  {tag}: {issue.code}: {issue.message} [{_where(issue)}]")


def new_problems(
    report: ImportReport, reindexed: Sequence[ReindexReport], every: bool = False
) -> None:
    """`import --quiet`: only the problems no earlier run reported (cron mails nothing else)."""
    fresh = [i for i in report.issues if i.severity == "error" and not i.known]
    for line in folded(fresh, report.dry_run, every):
        print(wellformed.text(line.strip()), file=sys.stderr)
    for r in reindexed:
        for issue in r.failures:
            print(
                wellformed.text(field(f"problem: {issue.code}: {issue.message} [{issue.path}]")),
                file=sys.stderr,
            )


def reindex_reports(reports: Sequence[ReindexReport]) -> None:
    out = console(True)
    for r in reports:
        out.print(
            safe(f"{r.agent_id}: indexed {_n(r.messages, 'message')} in ")
            + f"{_n(r.sessions, 'session')} ({r.skipped} busy elsewhere,"
            f" {_n(r.swept, 'orphan row')} swept) in {r.seconds:.2f}s"
        )
        for issue in r.failures:
            out.print(field(f"  problem: {issue.code}: {issue.message} [{issue.path}]"))
        if r.known_failures:
            out.print(
                f"  {r.known_failures} session(s) failed before and are unchanged: see"
                " `openclaw-sessions status`"
            )


def embed_reports(reports: Sequence[EmbedReport]) -> None:
    """`reindex --embed`: what each agent's run embedded, and how much of the store is."""
    out = console(True)
    for r in reports:
        c = r.coverage
        out.print(
            safe(f"{r.agent_id}: embedded {_n(r.written, 'message')} with {c.model} in ")
            + f"{r.seconds:.2f}s ({c.embedded} of {c.rows} messages embedded)"
        )


def _n(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"
