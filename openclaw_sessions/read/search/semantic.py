"""The `[semantic]` extra's answer: the messages nearest in meaning to the query, for the
operator only, when no message holds its words (or with `search --semantic`).

It reads the vectors `reindex --embed` wrote (index/embed.py) and never writes or waits: a
store with no vectors answers as before, with advice. The hits are labelled (``semantic`` on
each, and the result says which model and how much of the store is embedded); the agent's view
(--as, MCP) never gets here: it keeps upstream's answer. numpy and the model are imported only
on this path, so a search whose words match pays nothing for the extra.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from openclaw_sessions.index import embedder
from openclaw_sessions.policy import kinds
from openclaw_sessions.policy.cut import safe_cut
from openclaw_sessions.read.models import Hit, SearchResult
from openclaw_sessions.read.scope import listed_sessions, visible_sql

from . import fts

if TYPE_CHECKING:
    import numpy as np

    from .call import Call

ENABLE = f"{embedder.INSTALL_HINT}, then `openclaw-sessions reindex --embed`"
# Below this similarity a message is not near enough to show: e5's answers on the judged set
# (bench/judged_semantic.py) scored 0.81-0.94, its unrelated messages rarely 0.80. The static
# model's scores do not separate (no floor: it is measured, not shipped).
MIN_SCORE = {"e5-small": 0.80}


def fill(call: Call, result: SearchResult) -> SearchResult:
    """``result``, or when it is the operator's empty page (or --semantic asked), the nearest
    messages in meaning, labelled; an empty page says what would help either way."""
    opts = call.opts
    if opts.as_key is not None or opts.counts or opts.sessions:
        return result
    if result.hits and not opts.semantic:
        return result
    if not any(embedder.available(m) for m in embedder.MODELS):
        return _advise(result, {"available": False, "enable": ENABLE})
    vectors = _nearest_rows(call)
    if vectors is None:  # nothing embedded in any store searched
        return _advise(result, {"available": True, "enable": "openclaw-sessions reindex --embed"})
    hits, info = vectors
    out = result._replace(hits=tuple(hits), total=len(hits), total_exact=True, truncated=False)
    return out._replace(semantic=info, cut_by=None)


def _advise(result: SearchResult, how: dict[str, Any]) -> SearchResult:
    if result.hits:
        return result
    absence = dict(result.absence or {})
    absence["semantic"] = how
    return result._replace(absence=absence)


def _nearest_rows(call: Call) -> tuple[list[Hit], dict[str, Any]] | None:
    """The best ``opts.limit`` hits over every store searched, and the coverage; None when
    no store has a vector (nothing to load a model for). The model is the one the first
    store with vectors was embedded with (`reindex --embed`'s)."""
    opts = call.opts
    embedded = rows = 0
    scored: list[tuple[float, str, tuple[Any, ...], str]] = []
    model = None
    name = ""
    for agent in call.scope.agents:
        conn = call.conn(agent)
        name = name or _model_of(conn)
        rows += conn.execute("SELECT count(*) FROM index_rows").fetchone()[0]
        if not name:
            continue
        ids, mat = _vectors(conn, name)
        embedded += len(ids)
        if not ids:
            continue
        model = model or embedder.load(name, one_thread=True)
        sims = mat.astype("float32") @ model.query(opts.query)
        for row, score, text in _kept(call, agent, ids, sims):
            scored.append((score, agent, row, text))
    if model is None:
        return None
    scored.sort(key=lambda s: (-s[0], -s[2][5], s[2][1], s[2][3]))  # then newer, key, id
    floor = MIN_SCORE.get(name, -1.0) if not opts.semantic else -1.0
    hits = [_hit(agent, row, text, score, call) for score, agent, row, text in scored]
    hits = [h for h in hits if h.score >= floor][: opts.limit]
    info = {"model": name, "embeddedMessages": embedded, "messages": rows}
    return hits, info


def _model_of(conn: sqlite3.Connection) -> str:
    """The model most of the store's vectors come from ('' when it has none)."""
    got = conn.execute(
        "SELECT model FROM index_vectors GROUP BY model ORDER BY count(*) DESC LIMIT 1"
    ).fetchone()
    return str(got[0]) if got else ""


def _vectors(conn: sqlite3.Connection, name: str) -> tuple[list[int], np.ndarray]:
    got = conn.execute(
        "SELECT row_id, vec FROM index_vectors WHERE model = ? ORDER BY row_id", (name,)
    ).fetchall()
    import numpy as np  # only once a store has vectors: a store without any pays nothing

    mat = np.frombuffer(b"".join(v for _, v in got), dtype="<f2").reshape(len(got), -1)
    return [r for r, _ in got], mat


def _kept(
    call: Call, agent: str, ids: Sequence[int], sims: np.ndarray
) -> list[tuple[tuple[Any, ...], float, str]]:
    """The best rows the search's filters keep (session, role, time, kinds, stale), best
    first, ``opts.limit`` at most: candidates are taken 8 times over until enough are kept."""
    import numpy as np

    conn, opts, scope = call.conn(agent), call.opts, call.scope
    filters = fts.Filters(
        visible_sql(None),
        scope.session_key,
        opts.role,
        call.since_ms,
        call.until_ms,
        agent=agent,
        sessions=listed_sessions(conn, agent, None),
        keys=kinds.key_filter(opts.kind, opts.not_kind, opts.key),
    )
    where, params = fts.where_of(filters, call.fingerprint)
    k = max(64, 8 * opts.limit)
    while True:
        # the best k without sorting every row (argpartition is linear)
        top = np.argpartition(-sims, k - 1)[:k] if k < len(ids) else range(len(ids))
        cand = {ids[i]: float(sims[i]) for i in top}
        got = conn.execute(
            "SELECT r.row_id, t.session_key, t.session_id, r.message_id, r.role, r.ts, r.text"
            f" FROM index_rows r{fts.JOINS}"
            f" WHERE r.row_id IN (SELECT value FROM json_each(?)) AND {' AND '.join(where)}",
            [json.dumps(list(cand)), *params],
        ).fetchall()
        if len(got) >= opts.limit or k >= len(ids):
            break
        k *= 8
    kept = [(tuple(g[:6]), cand[g[0]], g[6]) for g in got]
    kept.sort(key=lambda x: -x[1])
    return kept[: opts.limit]


def _hit(agent: str, row: tuple[Any, ...], text: str, score: float, call: Call) -> Hit:
    _rowid, key, sid, mid, role, ts = row
    red = call.redactor.redact(" ".join(text.split()))  # the index holds redacted text: again
    snippet = safe_cut(red.text, fts.SNIPPET_UNITS, red.spans)
    return Hit(
        key, sid, mid, role, int(ts), snippet, round(score, 4), agent_id=agent, semantic=True
    )
