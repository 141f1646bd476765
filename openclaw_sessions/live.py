"""The append API for live writers: new transcript lines go straight into an agent's store.

Each call is one write transaction: the lines are stored as events and, when the session is
indexed and the lines extend its leaf, indexed in the same transaction (upstream's rule);
anything else marks the session for reconciliation. Live transcripts are named `live:<id>` so
they never collide with files that `import` reads.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from openclaw_sessions.ingest.store_lines import FileResult, Target, import_lines
from openclaw_sessions.policy.redact import Redactor, build_redactor
from openclaw_sessions.policy.wellformed import has_lone_surrogate
from openclaw_sessions.store import db, paths


class LiveSource:
    """Lines handed over in memory; the stored prefix is always intact by construction."""

    partial = False

    def __init__(self, lines: Iterable[str | Mapping[str, Any]]) -> None:
        self._lines = [ln if isinstance(ln, str) else _dumps(ln) for ln in lines]
        for ln in self._lines:
            if "\n" in ln:
                raise ValueError("a transcript line must not contain a newline")

    def resume(self, bytes_consumed: int, lines_consumed: int, fingerprint: str) -> bool:
        return True

    def restart(self) -> None:
        return None

    def lines(self, line_no: int) -> Iterator[tuple[int, bytes]]:
        for i, ln in enumerate(self._lines, start=line_no + 1):
            yield i, ln.encode("utf-8") + b"\n"

    def fingerprint(self) -> str:
        return "live"

    def close(self) -> None:
        return None


def _dumps(obj: Mapping[str, Any]) -> str:
    """A line as JSON text; a lone surrogate is kept as its ``\\u`` escape (lossless, and the
    line still encodes as UTF-8), as any JSONL writer spells it."""
    text = json.dumps(obj, ensure_ascii=False)
    return json.dumps(obj) if has_lone_surrogate(text) else text


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
        target = Target(Path(f"live:{session_id}"), f"live:{session_id}", session_key.lower(),
                        session_id, "current")  # fmt: skip
        return import_lines(conn, target, LiveSource(lines), redactor or build_redactor())
    finally:
        conn.close()
