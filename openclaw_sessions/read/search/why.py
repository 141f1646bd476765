"""Why a search's answer is empty or partial, in one place: `search --explain` (how a query was
parsed and routed and, when nothing matched, why), the operator's `absence` (what an empty or
partial answer lacks and what lifts it), and the agent tool's reasons (mcp/reasons.py reads
the explanation asked with the caller's policy). Computed only when the answer needs it.

Counts only, never content, and only of text a search could show: redacted user and
assistant text, never raw lines (a tool call's arguments or a secret would otherwise be
recoverable one character at a time from a count), never incognito sessions. With --as, only
sessions the caller may see are counted, and nothing about abandoned branches is said (that
would reveal text the caller cannot read).
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Callable
from typing import Any, NamedTuple, Protocol

from openclaw_sessions.model import extract, wellformed
from openclaw_sessions.policy import cjk, fts_query
from openclaw_sessions.read.models import SearchResult
from openclaw_sessions.read.scope import OPERATOR_VISIBLE, SESSION_JOIN
from openclaw_sessions.read.tokens import tokens
from openclaw_sessions.store import pending, rawcodec
from openclaw_sessions.store.migrations import BIGRAM_TOKENIZER, PRIMARY_TOKENIZER

from .fts import JOINS, Filters, driving_index, kept_rows


class Rules(Protocol):
    """The redaction rules of a search (a Redactor, or a search call that builds one only
    when a text off the index must be redacted)."""

    @property
    def fingerprint(self) -> str: ...

    def redact_text(self, text: str) -> str: ...


# Messages off the index matched per term to count its matches there (bounded work; above it
# the count is a lower bound and says so).
SCAN_CAP = 10_000
# Absent terms looked for off the index, at most (each stored line is matched against each).
OFF_INDEX_TERMS = 32


def term_plan(term: fts_query.Term) -> fts_query.QueryPlan | None:
    if term.route == "ignored":
        return None
    return fts_query.build(term.text)


def occurrences(
    conn: sqlite3.Connection,
    plan: fts_query.QueryPlan,
    visible: str,
    fp: str,
    sessions: tuple[str, ...] | None = None,
    cap: int = -1,
) -> int:
    """The indexed messages the caller sees that match ``plan``, counted up to ``cap``
    (-1: all)."""
    table, expr = driving_index(plan)
    kept, params = kept_rows(Filters(sessions=sessions), f"{table}.rowid")
    sql = (
        f"SELECT 1 FROM {table} JOIN index_rows r ON r.row_id = {table}.rowid{JOINS}"
        f" WHERE {table} MATCH ?{kept} AND {pending.fresh()} AND {visible} LIMIT ?"
    )
    return int(
        conn.execute(f"SELECT count(*) FROM ({sql})", [expr, *params, fp, cap]).fetchone()[0]
    )


def _abandoned(
    conn: sqlite3.Connection,
    wanted: list[tuple[str, fts_query.QueryPlan]],
    visible: str,
    redactor: Rules,
) -> list[tuple[int, bool]]:
    """For each (term, plan) of ``wanted``: (count, capped), the user/assistant messages off
    the index (abandoned branches, sessions not indexed yet) whose redacted text matches the
    plan as the index would match it.

    One pass over the stored lines for every term (not one per term: 1,000 absent terms took
    minutes): a line is a candidate of each term it holds at all (up to ``SCAN_CAP`` per
    term); each candidate's text is extracted once as the index extracts it
    (index_rows.make_row), redacted, and matched with FTS5 in a scratch table: only that
    verdict is counted."""
    needles = [term.lower() for term, _ in wanted]
    cands: list[list[int]] = [[] for _ in wanted]
    texts: list[str] = []
    open_terms = set(range(len(wanted)))
    rows = conn.execute(
        "SELECT e.raw FROM events e JOIN transcripts t ON t.transcript_id = e.transcript_id"
        f"{SESSION_JOIN} WHERE e.type = 'message' AND e.role IN ('user', 'assistant')"
        f" AND {visible} AND NOT EXISTS (SELECT 1 FROM index_rows r"
        " WHERE r.transcript_id = e.transcript_id AND r.seq = e.seq)"
    )
    for (raw,) in rows:
        if not open_terms:
            break
        line = rawcodec.unpack_text(conn, raw)
        low = line.lower()
        held = [i for i in open_terms if needles[i] in low]
        if not held:
            continue
        text = _message_text(line, redactor)
        for i in held:
            if text is not None:
                cands[i].append(len(texts))
            if len(cands[i]) > SCAN_CAP:
                open_terms.discard(i)
        if text is not None:
            texts.append(text)
    capped = [len(ids) > SCAN_CAP for ids in cands]
    plans = [(plan, ids[:SCAN_CAP]) for (_, plan), ids in zip(wanted, cands, strict=True)]
    return _matching(texts, plans, capped)


def _message_text(line: str, redactor: Rules) -> str | None:
    """The redacted text the index would hold for a stored message line (None: none)."""
    try:
        obj = wellformed.loads(line)  # lone surrogates: U+FFFD
    except (ValueError, RecursionError):
        return None
    text = extract.message_text(obj.get("message") if isinstance(obj, dict) else None)
    return redactor.redact_text(text) if text.strip() else None


def _matching(
    texts: list[str], wanted: list[tuple[fts_query.QueryPlan, list[int]]], capped: list[bool]
) -> list[tuple[int, bool]]:
    """For each (plan, candidate texts): how many of those ``texts`` the index would return
    for the plan (same tokenizers), and whether the candidates were capped."""
    if not texts:
        return [(0, c) for c in capped]
    db = sqlite3.connect(":memory:")
    try:
        db.execute(f"CREATE VIRTUAL TABLE p USING fts5(text, tokenize='{PRIMARY_TOKENIZER}')")
        db.execute(f'CREATE VIRTUAL TABLE b USING fts5(cjk, tokenize="{BIGRAM_TOKENIZER}")')
        rows = [(i, t, cjk.index_bigram_text(t)) for i, t in enumerate(texts)]
        db.executemany("INSERT INTO p (rowid, text) VALUES (?, ?)", [r[:2] for r in rows])
        db.executemany("INSERT INTO b (rowid, cjk) VALUES (?, ?)", [(r[0], r[2]) for r in rows])
        out = []
        for (plan, ids), cap in zip(wanted, capped, strict=True):
            out.append((_count(db, plan, ids) if ids else 0, cap))
        return out
    finally:
        db.close()


def _count(db: sqlite3.Connection, plan: fts_query.QueryPlan, ids: list[int]) -> int:
    params: list[Any]
    if plan.primary is not None:
        sql, params = "SELECT count(*) FROM p WHERE p MATCH ?", [plan.primary]
        if plan.bigram is not None:
            sql += " AND rowid IN (SELECT rowid FROM b WHERE b MATCH ?)"
            params.append(plan.bigram)
    else:
        sql, params = "SELECT count(*) FROM b WHERE b MATCH ?", [plan.bigram]
    sql += " AND rowid IN (SELECT value FROM json_each(?))"
    return int(db.execute(sql, [*params, json.dumps(ids)]).fetchone()[0])


def explain(
    conn: sqlite3.Connection,
    plan: fts_query.QueryPlan,
    *,
    visible: str,
    operator: bool,
    redactor: Rules,
    matched: bool,
    sessions: tuple[str, ...] | None = None,
) -> dict[str, Any]:
    """One agent's part of the explanation. ``visible``: the per-row visibility condition of
    the caller (read/scope.py; incognito sessions are never counted in any mode);
    ``sessions``: the sessions a narrow caller sees, listed (scope.listed_sessions)."""
    fingerprint = redactor.fingerprint
    pending = pending_sessions(conn, fingerprint, visible)
    out: dict[str, Any] = {
        "terms": [{"text": t.text, "route": t.route} for t in plan.terms],
        "expressions": _expressions(plan),
        "pendingSessions": pending,
    }
    if matched:
        return out
    reasons = []
    off_index: list[tuple[dict[str, Any], str, fts_query.QueryPlan]] = []
    for term in fts_query.distinct(plan.terms, tokens):  # a repeated term is one question
        sub = term_plan(term)
        if sub is None or sub.empty:
            reasons.append({"term": term.text, "reason": "no letters or digits: ignored"})
            continue
        n = occurrences(conn, sub, visible, fingerprint, sessions)
        item: dict[str, Any] = {"term": term.text, "indexedMatches": n}
        if n == 0:
            item["reason"] = "does not occur in indexed text"
            if operator:
                off_index.append((item, term.text, sub))
        reasons.append(item)
    if len(off_index) > OFF_INDEX_TERMS:  # the rest are not looked for off the index
        out["offIndexUnchecked"] = [t for _, t, _ in off_index[OFF_INDEX_TERMS:]]
        off_index = off_index[:OFF_INDEX_TERMS]
    if off_index:
        counts = _abandoned(conn, [(t, sub) for _, t, sub in off_index], visible, redactor)
        for (item, _, _), (count, capped) in zip(off_index, counts, strict=True):
            item["abandonedOrUnindexedMatches"] = count
            if capped:
                item["abandonedOrUnindexedCapped"] = SCAN_CAP
    out["why"] = reasons
    if pending:
        out["note"] = f"{pending} session(s) pending reconciliation are not searched yet"
    return out


def _expressions(plan: fts_query.QueryPlan) -> dict[str, Any]:
    """The FTS5 expressions a plan runs: one per index, the rows a `-word` leaves out, and an
    OR across the indexes as its alternatives."""
    if plan.alternatives:
        return {"alternatives": [_expressions(p) for p in plan.alternatives]}
    out: dict[str, Any] = {"primary": plan.primary, "bigram": plan.bigram}
    for name, expr in (("excludePrimary", plan.not_primary), ("excludeBigram", plan.not_bigram)):
        if expr is not None:
            out[name] = expr
    return out


def pending_sessions(conn: sqlite3.Connection, fingerprint: str, visible: str) -> int:
    """Stale transcripts the caller may see: none at all is the O(1) answer of the common case;
    else each stale one (of the pending set, when it is kept for this fingerprint) is checked."""
    if not pending.any_stale(conn, fingerprint):
        return 0
    ids = pending.stale_ids(conn, fingerprint)
    row = conn.execute(
        f"SELECT count(*) FROM transcripts t{SESSION_JOIN} WHERE t.transcript_id IN"
        f" (SELECT value FROM json_each(?)) AND {visible}",
        (json.dumps(ids),),
    ).fetchone()
    return int(row[0])


class Absence(NamedTuple):
    """What an empty or partial operator answer lacks, added up over the agents."""

    not_found: dict[str, int]  # term -> indexed matches (0: found nowhere)
    off_index: dict[str, int]  # term -> matches on abandoned branches or unindexed messages
    pending: int


def why_empty(
    conn: sqlite3.Connection, plan: fts_query.QueryPlan, redactor: Rules, *, deep: bool
) -> Absence:
    """One agent's part: whether each term occurs in indexed text at all (at most one row
    read per term) and the sessions pending; ``deep`` (--explain asked for it): --explain's counts,
    with the matches off the index (a scan of every stored line)."""
    fp = redactor.fingerprint
    if not deep:
        found: dict[str, int] = {}
        for term in fts_query.distinct(plan.terms, tokens):  # a repeated term: one question
            sub = term_plan(term)
            if sub is not None and not sub.empty:
                found[term.text] = occurrences(conn, sub, OPERATOR_VISIBLE, fp, cap=1)
        return Absence(found, {}, pending_sessions(conn, fp, OPERATOR_VISIBLE))
    got = explain(
        conn, plan, visible=OPERATOR_VISIBLE, operator=True, redactor=redactor, matched=False
    )
    why = got.get("why", [])
    counts = {w["term"]: int(w["indexedMatches"]) for w in why if "indexedMatches" in w}
    off = {
        w["term"]: int(w["abandonedOrUnindexedMatches"])
        for w in why
        if w.get("abandonedOrUnindexedMatches")
    }
    return Absence(counts, off, int(got["pendingSessions"]))


def absence(
    conn_of: Callable[[str], sqlite3.Connection],
    agents: list[str],
    plan: fts_query.QueryPlan,
    redactor: Rules,
    result: SearchResult,
    *,
    deep: bool,
    relax_possible: Callable[[], bool],
    relaxed: bool,
) -> dict[str, Any] | None:
    """The JSON ``absence`` of an operator answer that is empty or partial (Call.why asks
    only then): why, and what lifts that. ``conn_of``: an agent's store (the operator's
    visibility registered); ``deep``: --explain's counts (why_empty); ``relax_possible``:
    whether --relax could loosen the query (asked only of an empty answer); ``relaxed``: it
    did."""
    empty, pending = not result.hits, result.indexing
    parts = []
    if empty or pending:
        parts = [why_empty(conn_of(agent), plan, redactor, deep=deep) for agent in agents]
    out: dict[str, Any] = {}
    lift: list[str] = []
    if empty and parts:
        terms: Counter[str] = Counter()
        off: Counter[str] = Counter()
        for p in parts:
            terms.update(p.not_found)
            off.update(p.off_index)
        # found nowhere: not in indexed text, nor (--explain reads them) in what is pending,
        # unindexed or abandoned; without --explain a pending message may hold it
        if deep or not pending:
            out["termsNotFound"] = [t for t, n in terms.items() if n == 0 and not off[t]]
        if off:
            out["abandonedOrUnindexed"] = dict(off)
        if not relaxed and relax_possible():
            lift.append("--relax")
    if relaxed:
        out["relaxed"] = "no message matches every word: these match most of them"
    if pending:
        out["pendingSessions"] = max(sum(p.pending for p in parts), 1) if parts else True
        lift.append("--wait")
    if result.unindexed:
        out["unindexedSessions"] = result.unindexed
    if result.cut_by is not None:
        shown, total = len(result.hits), result.total
        out["cut"] = {"by": result.cut_by, "shown": shown, "total": total}
        lift.append(
            f"--limit {max(total, shown + 1)}" if result.cut_by == "limit" else "--max-bytes 0"
        )
    if not out:
        return None
    if lift:
        out["lift"] = lift
    return out
