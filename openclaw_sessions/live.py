"""The append API for live writers: new transcript lines go straight into an agent's store.

Each call is one write transaction: the lines are stored as events and, when the session is
indexed and the lines extend its leaf, indexed in the same transaction (upstream's rule);
anything else marks the session for reconciliation. A session id the store already holds as
the key's current transcript (an imported file) is extended: its lines continue that
transcript, and the file's later changes are read by `import` as a rewrite, as any file whose
stored prefix changed. A new session id starts a transcript named `live:<id>`, so that it never
collides with files that `import` reads.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from openclaw_sessions.ingest import line_sources
from openclaw_sessions.ingest.store_lines import import_lines
from openclaw_sessions.ingest.transcripts import FileResult, Target
from openclaw_sessions.redact import Redactor, build_redactor
from openclaw_sessions.store import db, paths


def append(
    root: Path,
    agent: str,
    *,
    session_key: str,
    session_id: str,
    lines: Iterable[str | Mapping[str, Any]],
    redactor: Redactor | None = None,
) -> FileResult:
    """Append lines (JSON text or objects; a new session starts with its header line)."""
    conn = db.connect(paths.db_path(root, paths.check_agent_id(agent)), create=True)
    try:
        key = session_key.lower()
        known = conn.execute(
            "SELECT source_path, source_name FROM transcripts WHERE session_key = ?"
            " AND session_id = ? AND kind = 'current' ORDER BY transcript_id DESC LIMIT 1",
            (key, session_id),
        ).fetchone()
        path, name = known or (f"live:{session_id}", f"live:{session_id}")
        target = Target(Path(path), name, key, session_id, "current")
        return import_lines(
            conn, target, line_sources.LiveSource(lines), redactor or build_redactor()
        )
    finally:
        conn.close()
