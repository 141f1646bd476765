"""`status --problems`: what an operator can fix, with file and line: the lines kept in
quarantine (fixed in the file and imported again, a line leaves it) and the import problems
remembered by the last imports (ingest/problems.py: reported once, then counted). Everything
is redacted on the way out, as every string that leaves the tool.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from openclaw_sessions.policy.sanitize import TextRedactor


def known_problems(conn: sqlite3.Connection) -> int:
    """Import problems (severity error) the last imports met and remember."""
    row = conn.execute("SELECT count(*) FROM import_problems WHERE severity = 'error'").fetchone()
    return int(row[0])


# The fields of each item, in order.
_FIELDS = "kind code severity message path line sessionKey since".split()


def listed(conn: sqlite3.Connection, redactor: TextRedactor) -> list[dict[str, Any]]:
    """Quarantined lines, then remembered import issues (problems before notices)."""

    def red(text: str | None) -> str | None:
        return None if text is None else redactor.redact_text(text)

    out: list[dict[str, Any]] = []
    for path, line, code, error, key in conn.execute(
        "SELECT t.source_path, q.line_no, q.code, q.error, t.session_key"
        " FROM quarantine q JOIN transcripts t ON t.transcript_id = q.transcript_id"
        " ORDER BY t.source_path, q.line_no"
    ):
        message = f"line {line}: {error}; kept in quarantine"
        item = ("quarantine", code, "error", red(message), red(path), line, red(key), None)
        out.append(dict(zip(_FIELDS, item, strict=True)))  # the quarantine keeps no time
    for code, severity, message, path, line, key, since in conn.execute(
        "SELECT code, severity, message, path, line, session_key, first_seen FROM"
        " import_problems ORDER BY severity = 'notice', path, line, code"
    ):
        item = ("import", code, severity, red(message), red(path), line, red(key), since)
        out.append(dict(zip(_FIELDS, item, strict=True)))
    return out
