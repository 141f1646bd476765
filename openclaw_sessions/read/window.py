"""Which of a branch's entries `history` shows around its resets and compactions (pure).

Since OpenClaw 2026.7 a routine reset (`/new`, `/reset`, idle, daily, `cron-stale`) appends a
`reset` line to the same transcript. Upstream's ``chat.history`` (src/config/sessions/
session-accessor.sqlite-reset-window.ts and -history-query.ts) then shows, and so does
``sessions_history``:

- after the latest reset on the active branch: the messages its ``firstKeptEntryId`` kept
  (the user and assistant messages from that entry up to the reset), the reset itself as a
  ``system`` "Reset" message, and everything after it;
- with no reset: every message;
- a compaction in what is shown, as a ``system`` "Compaction" message where it happened;
- a message before the latest reset, named as the anchor: the closed interval (previous reset,
  next reset] that holds it, ending with that reset's marker.

Each shown entry carries its 1-based place in that list (``__openclaw.seq``), counted before
tool results are left out. The operator's view shows every message and lists the boundaries
beside them (``boundaries``), each placed before the message it precedes.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from openclaw_sessions.model.branch import Branch, Messages, messages_of
from openclaw_sessions.model.tree import Mark
from openclaw_sessions.model.wellformed import finite
from openclaw_sessions.model.when import to_epoch_ms as _epoch_ms

KEPT_ROLES = ("user", "assistant")  # what a reset's kept tail shows (history scope)
LABELS = {"reset": "Reset", "compaction": "Compaction"}


def _merge(rows: Messages, keep_row: Any, marks: list[Mark]) -> tuple[Messages, dict[int, Mark]]:
    """The rows ``keep_row`` accepts and ``marks``, in seq order, as one list (a mark is a row
    with its id, no role and no time); the marks by seq."""
    by_seq = {m[0]: m for m in marks}
    kept = [rows[i] for i in range(len(rows)) if keep_row(i)]
    shown = [(m[0], m[1] or "", "system", None) for m in by_seq.values()]
    # both runs are in seq order (a line is a message or a mark): sorting them merges them
    return messages_of(sorted([*kept, *shown], key=itemgetter(0))), by_seq


def latest(rows: Messages, marks: list[Mark]) -> tuple[Messages, dict[int, Mark]]:
    """What upstream shows by default: the window after the latest reset (with its kept tail),
    compactions in place."""
    if not marks:
        return rows, {}  # the common case: nothing to merge
    resets = [m for m in marks if m[2] == "reset"]
    if not resets:
        return _merge(rows, lambda i: True, marks)
    reset_seq, _id, _kind, kept = resets[-1]

    def keep(i: int) -> bool:
        s = rows.seqs[i]
        return s > reset_seq or (kept is not None and kept <= s and rows.roles[i] in KEPT_ROLES)

    return _merge(rows, keep, [m for m in marks if m[0] >= reset_seq])


def interval(
    rows: Messages, marks: list[Mark], anchor_seq: int
) -> tuple[Messages, dict[int, Mark]] | None:
    """The closed interval (previous reset, next reset] around the entry at ``anchor_seq``;
    None when no reset follows it (it is in the latest window, or nowhere)."""
    resets = [m[0] for m in marks if m[2] == "reset"]
    closing = next((s for s in resets if s >= anchor_seq), None)
    if closing is None:
        return None
    opening = max((s for s in resets if s < closing), default=-1)
    inside = [m for m in marks if opening < m[0] <= closing]
    return _merge(rows, lambda i: opening < rows.seqs[i] <= closing, inside)


def listed(
    branch: Branch, agent: bool, around: str | None
) -> tuple[Messages, dict[int, Mark], dict[int, int] | None]:
    """(the rows to page through, the marks among them by seq, each row's place by seq): for
    the operator every message and no marks; for an agent upstream's window, or the closed
    interval that holds an anchor from before the latest reset."""
    if not agent:
        return branch.rows, {}, None
    rows, marks = latest(branch.rows, branch.marks)
    anchor = (around or "").strip()
    if anchor and anchor not in rows.ids:
        at = branch.rows.index_of(anchor)
        marked = (m[0] for m in branch.marks if m[1] == anchor)  # a reset or compaction
        seq = branch.rows.seqs[at] if at is not None else next(marked, None)
        found = interval(branch.rows, branch.marks, seq) if seq is not None else None
        if found is not None:
            rows, marks = found
    return rows, marks, {s: i + 1 for i, s in enumerate(rows.seqs)}


def marker(m: Mark, obj: Any, seq: int, now_ms: int) -> dict[str, Any]:
    """Upstream's boundary message for mark ``m`` (its line ``obj``) at place ``seq``."""
    kind = m[2]
    line = obj if isinstance(obj, dict) else {}
    meta: dict[str, Any] = {"kind": kind}
    if m[1] is not None:
        meta["id"] = m[1]
    if kind == "compaction":
        own = line.get("__openclaw")
        own = own if isinstance(own, dict) else {}
        meta |= {k: own[k] for k in ("runId", "itemId") if isinstance(own.get(k), str)}
        meta |= {k: line[k] for k in ("tokensBefore", "tokensAfter") if finite(line.get(k))}
    meta["seq"] = seq
    return {
        "role": "system",
        "content": [{"type": "text", "text": LABELS[kind]}],
        "timestamp": stamp(line, now_ms),
        "__openclaw": meta,
    }


def openclaw_meta(message: dict[str, Any], entry_id: str, line: Any, place: int) -> dict[str, Any]:
    """Upstream's ``attachOpenClawTranscriptMeta``: the message as stored, with its entry id,
    idempotency key, entry time and place under ``__openclaw`` (what it had there kept, less
    ``upstreamUserText``; the storage position upstream adds is not ours to give)."""
    meta = message.get("__openclaw")
    merged: dict[str, Any] = dict(meta) if isinstance(meta, dict) else {}
    merged.pop("upstreamUserText", None)
    merged["id"] = entry_id
    key = message.get("idempotencyKey")
    if isinstance(key, str) and key.strip():
        merged["idempotencyKey"] = key
    stamp = line.get("timestamp") if isinstance(line, dict) else None
    ms = _epoch_ms(stamp) if isinstance(stamp, str) else stamp
    if finite(ms):
        merged["recordTimestampMs"] = ms
    merged["seq"] = place
    return {**message, "__openclaw": merged}


def stamp(line: dict[str, Any], now_ms: int) -> int | float:
    """``Date.parse(record.timestamp)``, else the time of reading (as upstream)."""
    ts = line.get("timestamp")
    ms = _epoch_ms(ts) if isinstance(ts, str) else None
    return ms if ms is not None else now_ms


def boundaries(
    rows: Messages, marks: list[Mark], shown: list[str], newest: bool
) -> list[tuple[Mark, str | None]]:
    """The operator's view: each mark whose place is among ``shown`` (the ids on screen, in
    order) with the id of the row it precedes; a mark after the last row only when ``newest``
    (the page ends with the branch's newest message)."""
    if not marks:
        return []
    on_screen = set(shown)
    out: list[tuple[Mark, str | None]] = []
    i = 0
    for m in marks:
        while i < len(rows) and rows.seqs[i] < m[0]:
            i += 1
        before = rows.ids[i] if i < len(rows) else None
        if (before is None and newest) or (before is not None and before in on_screen):
            out.append((m, before))
    return out
