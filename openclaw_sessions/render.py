"""Rich tables, progress bars and messages for people. JSON never goes through Rich.

stdout carries data (tables); stderr carries talk (progress, warnings, errors). Colour and bars
are off when NO_COLOR is set or the stream is not a terminal.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from .models import ImportReport, ReindexReport, SearchResult


def _console(stderr: bool) -> Console:
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    return Console(
        file=stream,
        stderr=stderr,
        no_color=bool(os.environ.get("NO_COLOR")) or not stream.isatty(),
        highlight=False,
        soft_wrap=not stream.isatty(),
    )


def error(message: str, hint: str | None) -> None:
    line = f"error: {message}"
    if hint:
        line += f" (hint: {hint})"
    print(line, file=sys.stderr)


def info(message: str) -> None:
    print(message, file=sys.stderr)


def fmt_time(ms: int | None, *, utc: bool = False) -> str:
    if not ms:
        return "-"
    dt = datetime.fromtimestamp(ms / 1000, tz=UTC)
    if not utc:
        dt = dt.astimezone()
    return dt.strftime("%Y-%m-%d %H:%M" + ("Z" if utc else ""))


@contextmanager
def progress(
    label: str, *, enabled: bool, unit: str = "items"
) -> Iterator[Callable[[int, int], None] | None]:
    """A Rich bar with ETA and rate on stderr when it is a terminal; otherwise nothing."""
    if not enabled or not sys.stderr.isatty() or os.environ.get("NO_COLOR"):
        yield None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    class _Rate(ProgressColumn):
        def render(self, task: Any) -> Any:
            from rich.text import Text

            return Text(f"{task.speed or 0:,.0f} {unit}/s")

    columns: list[Any] = [TextColumn("[bold]{task.description}"), BarColumn()]
    columns.append(TextColumn("{task.percentage:>3.0f}%") if unit == "B" else MofNCompleteColumn())
    columns += [TransferSpeedColumn() if unit == "B" else _Rate(), TimeRemainingColumn()]
    with Progress(*columns, console=_console(True), transient=True) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def import_report(report: ImportReport, reindexed: Sequence[ReindexReport]) -> None:
    out = _console(True)
    verb = "would import" if report.dry_run else "imported"
    out.print(
        f"{verb}: {report.imported} new, {report.updated} updated, {report.unchanged} unchanged "
        f"transcripts; {report.events} events stored; {report.malformed_lines} malformed lines; "
        f"{report.skipped} files skipped"
    )
    if not report.dry_run and not report.events and not report.imported:
        out.print("nothing new to import")
    for issue in report.issues:
        where = issue.path or ""
        if issue.line:
            where += f":{issue.line}"
        tag = "problem" if issue.severity == "error" else "note"
        out.print(f"  {tag}: {issue.code}: {issue.message} [{where}]", markup=False)
    reindex_reports(reindexed)
    if report.imported and not reindexed and not report.dry_run:
        out.print("new transcripts are indexed by the next search or `openclaw-sessions reindex`")


def reindex_reports(reports: Sequence[ReindexReport]) -> None:
    out = _console(True)
    for r in reports:
        out.print(
            f"{r.agent_id}: indexed {r.messages} messages in {r.sessions} sessions "
            f"({r.skipped} busy elsewhere, {r.swept} orphan rows swept) in {r.seconds:.2f}s"
        )


def _highlight(text: str, spans: Sequence[tuple[int, int]]) -> Any:
    from rich.text import Text

    t = Text(text)
    for a, b in spans:
        t.stylize("bold yellow", a, b)
    return t


def search_table(result: SearchResult, *, utc: bool = False) -> None:
    from rich.table import Table

    out = _console(False)
    if result.hits:
        table = Table(show_header=True, header_style="bold", expand=False, show_lines=False)
        table.add_column("time", no_wrap=True)
        table.add_column("session", overflow="fold")
        table.add_column("role", no_wrap=True)
        table.add_column("snippet", overflow="fold")
        for h in result.hits:
            table.add_row(fmt_time(h.timestamp, utc=utc), f"{h.session_key}\n{h.message_id}",
                          h.role, _highlight(h.snippet, h.highlights))  # fmt: skip
        out.print(table)
    search_footer(result)


def search_footer(result: SearchResult) -> None:
    err = _console(True)
    if result.indexing:
        from .models import INDEXING_WARNING

        err.print(f"warning: {INDEXING_WARNING}", markup=False)
    if result.truncated:
        err.print("more results exist: raise --limit or narrow the query", markup=False)
    if not result.hits:
        err.print("no matches", markup=False)
    if result.explain is not None:
        import json

        err.print(f"explain: {json.dumps(result.explain, ensure_ascii=False)}", markup=False)


def status_table(stats: Sequence[dict[str, Any]], *, utc: bool = False) -> None:
    from rich.table import Table

    out = _console(False)
    for st in stats:
        table = Table(title=f"agent {st['agentId']}", show_header=False, title_justify="left")
        table.add_column("field", style="bold")
        table.add_column("value", overflow="fold")
        for label, key in (
            ("database", "database"), ("schema version", "schemaVersion"),
            ("sessions", "sessions"), ("transcripts", "transcripts"), ("events", "events"),
            ("indexed messages", "indexedMessages"), ("pending sessions", "pendingSessions"),
            ("dirty sessions", "dirtySessions"), ("malformed lines", "malformedLines"),
            ("database bytes", "databaseBytes"), ("redaction fingerprint", "redactionFingerprint"),
        ):  # fmt: skip
            table.add_row(label, str(st[key]))
        for label, key in (("last import", "lastImportAt"), ("last reconcile", "lastReconcileAt"),
                           ("oldest pending since", "oldestPendingAt")):  # fmt: skip
            table.add_row(label, fmt_time(st[key], utc=utc))
        for name, idx in st["indexes"].items():
            table.add_row(f"index {name}", f"{idx['rows']} rows, {idx['bytes'] or 0} bytes "
                          f"({idx['tokenizer']})")  # fmt: skip
        table.add_row("indexing now", "yes" if st["indexing"] else "no")
        table.add_row("health", st["health"])
        out.print(table)
