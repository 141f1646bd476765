"""`search --explain`: how a query was parsed and routed and, when nothing matched, why.

Counts only, never content. With --as, only sessions the caller may see are counted, and
nothing about abandoned branches is said (that would reveal text the caller cannot read).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from . import query
from .stale import stale_ids


def _term_plan(term: query.Term) -> query.Plan | None:
    if term.route == "ignored":
        return None
    return query.build(term.text)


def _key_filter(keys: Sequence[str] | None) -> tuple[str, list[Any]]:
    if keys is None:
        return "", []
    return " AND t.session_key IN (SELECT value FROM json_each(?))", [json.dumps(list(keys))]


def _occurrences(
    conn: sqlite3.Connection, plan: query.Plan, keys: Sequence[str] | None, fp: str
) -> int:
    table, expr = ("index_fts", plan.primary) if plan.primary else ("index_bigram", plan.bigram)
    extra, params = _key_filter(keys)
    sql = (
        f"SELECT count(*) FROM {table} JOIN index_rows r ON r.row_id = {table}.rowid"
        " JOIN transcripts t ON t.transcript_id = r.transcript_id"
        " JOIN index_state s ON s.transcript_id = r.transcript_id"
        f" WHERE {table} MATCH ? AND s.needs_rebuild = 0 AND s.claim_token IS NULL"
        f" AND s.redaction_fp = ?{extra}"
    )
    return int(conn.execute(sql, [expr, fp, *params]).fetchone()[0])


def _abandoned(conn: sqlite3.Connection, text: str) -> int:
    """User/assistant messages whose raw line holds the term but that are not indexed."""
    row = conn.execute(
        "SELECT count(*) FROM events e WHERE e.type = 'message' AND e.role IN ('user',"
        " 'assistant') AND instr(lower(e.raw), lower(?)) > 0 AND NOT EXISTS (SELECT 1 FROM"
        " index_rows r WHERE r.transcript_id = e.transcript_id AND r.seq = e.seq)",
        (text,),
    ).fetchone()
    return int(row[0])


def explain(
    conn: sqlite3.Connection,
    plan: query.Plan,
    *,
    keys: Sequence[str] | None,
    operator: bool,
    fingerprint: str,
    matched: bool,
) -> dict[str, Any]:
    """One agent's part of the explanation."""
    pending = stale_ids(conn, fingerprint)
    if keys is not None and pending:
        rows = conn.execute(
            "SELECT transcript_id FROM transcripts WHERE session_key IN"
            " (SELECT value FROM json_each(?))",
            (json.dumps(list(keys)),),
        )
        visible = {r[0] for r in rows}
        pending = [p for p in pending if p in visible]
    out: dict[str, Any] = {
        "terms": [{"text": t.text, "route": t.route} for t in plan.terms],
        "expressions": {"primary": plan.primary, "bigram": plan.bigram},
        "pendingSessions": len(pending),
    }
    if matched:
        return out
    reasons = []
    for term in plan.terms:
        sub = _term_plan(term)
        if sub is None or sub.empty:
            reasons.append({"term": term.text, "reason": "no letters or digits: ignored"})
            continue
        n = _occurrences(conn, sub, keys, fingerprint)
        item: dict[str, Any] = {"term": term.text, "indexedMatches": n}
        if n == 0:
            item["reason"] = "does not occur in indexed text"
            if operator:
                item["abandonedOrUnindexedMatches"] = _abandoned(conn, term.text)
        reasons.append(item)
    out["why"] = reasons
    if pending:
        out["note"] = f"{len(pending)} session(s) pending reconciliation are not searched yet"
    return out
