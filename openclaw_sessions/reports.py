"""What the maintenance commands (import, reindex) report: their progress as they go, and at
the end their counts and the issues they met.

Kept apart from read/models.py: search never loads them (start-up time)."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

Progress = Callable[[int, int], None]  # (done, total)
# A stage's progress sink, given its label and its unit ("items", or "B" for bytes); None when
# nobody watches. The CLI's is a progress bar on a terminal.
Bars = Callable[[str, str], AbstractContextManager[Progress | None]]


def no_bars(label: str, unit: str) -> AbstractContextManager[Progress | None]:
    return nullcontext(None)


class _TextRedactor(Protocol):
    def redact_text(self, text: str) -> str: ...


ERROR_CODES = frozenset(
    {
        "line_malformed",
        "line_invalid_utf8",
        "transcript_missing",
        "transcript_unreadable",
        "entry_invalid",
        "store_invalid",
        "path_escape",
        "source_missing",
        "source_unreadable",
        "dir_unreadable",
        "not_regular",
        "link_dangling",
        "link_loop",
        "link_dir",
        "transcript_foreign",
        "timestamp_invalid",
        "transcript_failed",
        "index_failed",
        "upstream_unreadable",
        "cold_archive_unreadable",
        "cold_archive_unverified",
        "cold_archive_invalid",
    }
)


class Issue(NamedTuple):
    """One thing an import or reindex met; `code` is stable, `message` is for people."""

    code: str
    message: str
    path: str | None = None
    line: int | None = None
    session_key: str | None = None
    known: bool = False  # reported by an earlier import and unchanged (ingest/problems.py)

    @property
    def severity(self) -> str:
        return "error" if self.code in ERROR_CODES else "notice"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message, "path": self.path}
        if self.line is not None:
            out["line"] = self.line
        if self.session_key is not None:
            out["sessionKey"] = self.session_key
        out["severity"] = self.severity
        out["known"] = self.known
        return out


def timestamp_invalid(path: str, line: int, session_key: str, value: Any) -> Issue:
    """A line whose timestamp is no usable time (NaN, 1e20, year 1): stored without one.
    A short value is quoted whole (ImportReport.redact_issues redacts it like any message);
    a long one is never cut into a piece a redaction pattern would no longer recognise."""
    shown = json.dumps(value, ensure_ascii=False) if isinstance(value, str | int | float) else ""
    if isinstance(value, str) and len(shown) > 40:
        shown = f"(a string of {len(value)} characters)"
    elif not shown or len(shown) > 40:
        shown = f"(a {type(value).__name__})"
    why = f"line {line}: timestamp {shown} is not a usable time; stored without one"
    return Issue("timestamp_invalid", why, path, line, session_key)


@dataclass
class ImportReport:
    """Counts and issues of one `import` run (mutable while it runs, then handed out)."""

    dry_run: bool = False
    agents: list[str] = field(default_factory=list)
    files: int = 0
    imported: int = 0  # transcripts new to the store
    updated: int = 0  # transcripts with new lines, or rewritten
    unchanged: int = 0
    rewritten: int = 0
    sessions: int = 0  # session store entries written
    events: int = 0  # events stored by this run
    bytes_read: int = 0
    malformed_lines: int = 0
    skipped: int = 0  # archives, backups, lock files…
    upstream_databases: int = 0  # upstream agent databases read (openclaw-agent.sqlite)
    upstream_rows_read: int = 0  # their transcript_events rows read as new events
    upstream_rows_checked: int = 0  # rows (and archive blobs) read only to verify a prefix
    issues: list[Issue] = field(default_factory=list)

    @property
    def problems(self) -> int:
        return sum(1 for i in self.issues if i.severity == "error")

    @property
    def new_problems(self) -> int:
        """Problems no earlier import reported (the only ones that make `import` exit 4)."""
        return sum(1 for i in self.issues if i.severity == "error" and not i.known)

    def redact_issues(self, redactor: _TextRedactor) -> None:
        """Issues quote store and transcript content (a ``sessionFile`` value, a key, a file
        name): their message, path and key are redacted like every other printed string."""

        done: dict[str, str] = {}  # 100,000 missing transcripts share one message

        def red(text: str) -> str:
            if (out := done.get(text)) is None:
                out = done[text] = redactor.redact_text(text)
            return out

        self.issues = [
            i._replace(
                message=red(i.message),
                path=i.path and red(i.path),
                session_key=i.session_key and red(i.session_key),
            )
            for i in self.issues
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "dryRun": self.dry_run,
            "agents": self.agents,
            "files": self.files,
            "sessionsImported": self.imported,
            "sessionsUpdated": self.updated,
            "sessionsUnchanged": self.unchanged,
            "sessionsRewritten": self.rewritten,
            "storeEntries": self.sessions,
            "eventsStored": self.events,
            "bytesRead": self.bytes_read,
            "malformedLines": self.malformed_lines,
            "skippedFiles": self.skipped,
            "upstreamDatabases": self.upstream_databases,
            "upstreamRowsRead": self.upstream_rows_read,
            "upstreamRowsChecked": self.upstream_rows_checked,
            "problems": self.problems,
            "newProblems": self.new_problems,
            "knownIssues": sum(1 for i in self.issues if i.known),
            "issues": [i.to_json() for i in self.issues],
        }


class ReindexReport(NamedTuple):
    agent_id: str
    sessions: int  # transcripts rebuilt
    messages: int  # index rows written
    swept: int  # orphan rows removed
    skipped: int  # claimed by another worker
    seconds: float
    failures: tuple[Issue, ...] = ()  # transcripts whose indexing failed in this run
    known_failures: int = 0  # failed in earlier runs and unchanged since: not retried

    @property
    def problems(self) -> int:
        return len(self.failures)

    def to_json(self) -> dict[str, Any]:
        return {
            "agentId": self.agent_id,
            "sessionsIndexed": self.sessions,
            "messagesIndexed": self.messages,
            "orphanRowsSwept": self.swept,
            "sessionsSkipped": self.skipped,
            "sessionsFailed": len(self.failures),
            "knownFailures": self.known_failures,
            "issues": [i.to_json() for i in self.failures],
            "seconds": round(self.seconds, 3),
        }
