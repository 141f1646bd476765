"""`reindex --embed`: the vectors of the `[semantic]` extra, written off the search path.

What is embedded is the index rows' text, which is redacted before it is stored
(index_rows.make_row): no raw transcript text reaches the model. Rows are embedded newest first,
a batch per write transaction, so an interrupted run keeps every batch it finished and the next
run goes on from there; a row deleted or rewritten meanwhile is left out (its vector is written
only while the row still holds the text that was embedded), and the store's trigger deletes a
vector with its row. Searches only read the table: they never wait for this step.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from openclaw_sessions.reports import Progress
from openclaw_sessions.store.db import open_store, transaction

from . import embedder

BATCH = 16  # rows per model call and per transaction: a resumed run loses at most one batch

_TODO = (
    "SELECT r.row_id, r.text FROM index_rows r LEFT JOIN index_vectors v ON v.row_id = r.row_id"
    " WHERE v.row_id IS NULL OR v.model != ? ORDER BY r.row_id DESC"
)
_WRITE = (
    "INSERT INTO index_vectors (row_id, model, vec)"
    " SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM index_rows WHERE row_id = ? AND text = ?)"
    " ON CONFLICT(row_id) DO UPDATE SET model = excluded.model, vec = excluded.vec"
)


class Coverage(NamedTuple):
    """How much of a store one model has embedded."""

    model: str
    embedded: int
    rows: int

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "embeddedMessages": self.embedded, "messages": self.rows}


class EmbedReport(NamedTuple):
    agent_id: str
    written: int  # vectors written by this run
    coverage: Coverage
    seconds: float

    def to_json(self) -> dict[str, Any]:
        out = {"agentId": self.agent_id, "vectorsWritten": self.written}
        return {**out, **self.coverage.to_json(), "seconds": round(self.seconds, 3)}


def coverage(conn: sqlite3.Connection, model: str) -> Coverage:
    rows = conn.execute("SELECT count(*) FROM index_rows").fetchone()[0]
    done = conn.execute("SELECT count(*) FROM index_vectors WHERE model = ?", (model,)).fetchone()
    return Coverage(model, int(done[0]), int(rows))


def embed_agent(
    root: Path,
    agent: str,
    model: embedder.Embedder,
    *,
    progress: Progress | None = None,
    limit: int | None = None,
) -> EmbedReport:
    """Embed the agent's rows that have no vector of ``model`` (``limit``: at most that many)."""
    start = time.monotonic()
    written = 0
    with open_store(root, agent) as conn:
        with transaction(conn, write=False):
            todo = conn.execute(_TODO, (model.name,)).fetchall()
        if limit is not None:
            todo = todo[:limit]
        for i in range(0, len(todo), BATCH):
            if progress is not None:
                progress(i, len(todo))
            written += _batch(conn, model, todo[i : i + BATCH])
        if progress is not None:
            progress(len(todo), len(todo))
        with transaction(conn, write=False):
            cov = coverage(conn, model.name)
    return EmbedReport(agent, written, cov, time.monotonic() - start)


def _batch(conn: sqlite3.Connection, model: embedder.Embedder, rows: list[Any]) -> int:
    """Embed one batch (outside any transaction: the model is slow), then write it in one."""
    vecs = model.passages([text for _, text in rows]).astype("<f2")
    with transaction(conn, write=True):
        before = conn.total_changes
        conn.executemany(
            _WRITE,
            [
                (row_id, model.name, v.tobytes(), row_id, text)
                for (row_id, text), v in zip(rows, vecs, strict=True)
            ],
        )
        return conn.total_changes - before


def embed_all(
    state_dir: Path | None,
    agent: str,
    all_agents: bool,
    bars: Callable[[str, str], Any],
    name: str = embedder.DEFAULT,
) -> list[EmbedReport]:
    """`reindex --embed`: each agent in turn, with a progress bar per agent."""
    from openclaw_sessions.store.paths import StateScope

    ctx = StateScope.at(state_dir, agent, all_agents)
    model = embedder.load(name)  # a UsageError with the install line when missing
    out = []
    root = ctx.root
    for agent in ctx.agents():
        with bars(f"embedding {agent}", "messages") as bar:
            out.append(embed_agent(root, agent, model, progress=bar))
    return out
