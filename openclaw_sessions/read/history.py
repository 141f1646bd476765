"""`history`: a session's conversation on its active branch, paged or around one message.

Mirrors upstream's ``chat.history`` + ``sessions_history`` pair: pick the generation, take the
active branch's messages, select a page (counted from the newest, like upstream's offsets) or
a window around a message (grown older/newer in turn), sanitise (sanitize.py) and apply the
80 KiB cap. Only the rows on screen are parsed. Returns a HistoryResult; never prints.

Two deliberate differences from upstream: offsets and limits count the messages this view
shows (tool results only with ``include_tools``), so a page is never short because hidden
tool output filled it; and paged answers always carry offset/hasMore/totalMessages.

With ``--as`` each message is first shaped as the gateway's display projection shapes it
(policy/display.py; some are hidden, so a page can be short, as upstream's). The operator
(no ``--as``) sees what was stored, and can lift the caps: ``full`` (or ``max_bytes=0``) gives every
message of the branch, each whole, still redacted.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any, NamedTuple

from openclaw_sessions.errors import NotFoundError, UsageError
from openclaw_sessions.model import wellformed
from openclaw_sessions.model.branch import Branch, Messages, Row
from openclaw_sessions.model.tree import Mark
from openclaw_sessions.model.when import to_epoch_ms
from openclaw_sessions.policy import display, keys, sanitize, visibility
from openclaw_sessions.policy.sanitize import TextRedactor
from openclaw_sessions.store import paths, rawcodec, tombstones
from openclaw_sessions.store.branches import active_branch
from openclaw_sessions.store.db import now_ms, open_store
from openclaw_sessions.store.paths import StateScope
from openclaw_sessions.store.sessions import SessionLookup

from . import window
from .generations import generations, pick
from .models import HistoryResult
from .scope import caller_policy, operator_policy

DEFAULT_LIMIT = 200  # upstream chat.history's default page
MMAP_BYTES = 256 * 1024 * 1024
MAX_LIMIT = 1000  # upstream CHAT_HISTORY_MAX_ENTRIES: the ceiling for tool callers (--as)
PENDING_BYTES = 22  # upstream's empty ``pendingInputs`` ({"items":[],"total":0}) counts in


class HistoryOptions(NamedTuple):
    """`history`'s options; each field declares the CLI parameter of its name (type, default)."""

    key: str  # a session key, a session id, main or current
    state_dir: Path | None = None
    agent: str = paths.DEFAULT_AGENT
    limit: int | None = None
    offset: int | None = None
    around: str | None = None  # upstream messageId
    session_id: str | None = None
    include_tools: bool = False
    as_key: str | None = None
    visibility: str | None = None
    sandboxed: bool = False
    max_bytes: int = sanitize.MAX_BYTES  # 0: no cap (as --full)
    full: bool = False  # every message, whole (operator only)

    @property
    def uncapped(self) -> bool:
        return self.full or self.max_bytes == 0


def validate(opts: HistoryOptions) -> None:
    """Upstream's parameter errors, named as the CLI's options."""
    if opts.limit is not None and opts.limit < 1:
        raise UsageError("limit must be a positive integer")
    if opts.offset is not None and opts.offset < 0:
        raise UsageError("offset must be a non-negative integer")
    if opts.around is not None and not opts.around.strip():
        raise UsageError("--around must not be empty")
    if opts.session_id is not None and opts.around is None:
        raise UsageError(
            "--session-id requires --around",
            hint="--session-id picks the generation of an --around message; "
            "to page an older generation pass its session id as KEY",
        )
    visibility.check_visibility(opts.visibility)
    if opts.as_key is not None and (opts.full or opts.max_bytes != sanitize.MAX_BYTES):
        raise UsageError(
            "--full and --max-bytes are for the operator: with --as, sessions_history's caps stay",
            hint="drop --as to read whole messages",
        )


def resolve(ctx: StateScope, opts: HistoryOptions) -> tuple[str, str, str]:
    """(the session key ``opts.key`` names, the agent whose store holds it, ``opts.key`` with
    a session id prefix made whole), if the caller (``--as``, else the operator) may read
    it. An unscoped key is the caller's agent's; a prefix names only sessions it may see."""
    with SessionLookup(ctx.root, ctx.agent) as index:
        if opts.as_key is not None:
            policy = caller_policy(ctx.agent, ctx.config, index, opts)
        else:
            policy = operator_policy(ctx, ctx.config, index)
        ref = policy.expand_id(opts.key)
        try:
            key = policy.resolve_target(ref)
        except NotFoundError:
            if opts.as_key is None:  # the operator is told what `delete` did, and the way back
                parsed = keys.parse_key(ref)
                tombstones.raise_if_deleted(ctx.root, parsed[0] if parsed else ctx.agent, ref)
            raise
    return key, keys.agent_of(key) or policy.agent, ref


def history(opts: HistoryOptions) -> HistoryResult:
    ctx = StateScope.at(opts.state_dir, opts.agent)
    if opts.around is not None:
        # Upstream's tool ignores offset whenever messageId is given (strict-schema clients
        # send 0 for an omitted integer): the anchor decides the window.
        opts = opts._replace(offset=None)
    validate(opts)
    redactor = ctx.redactor()
    key, agent, ref = resolve(ctx, opts)
    opts = opts._replace(key=ref)
    if not paths.db_path(ctx.root, agent).exists():  # a known agent's main, never written
        return _empty(key, None, opts)
    with open_store(ctx.root, agent) as conn:
        map_events(conn)
        gens = generations(conn, key)
        tid, sid, branch = pick(conn, gens, opts.key, opts.session_id, opts.around)
        if tid is None:
            return _empty(key, sid, opts)
        return read_generation(conn, tid, key, sid, redactor, opts, branch)


def map_events(conn: sqlite3.Connection) -> None:
    """The tree walk reads every event row of a transcript; rows carry their raw line, so a
    memory map halves that scan. Read-only use, this connection only."""
    conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")


def read_generation(
    conn: sqlite3.Connection,
    tid: int,
    key: str,
    sid: str | None,
    redactor: TextRedactor,
    opts: HistoryOptions,
    branch: Branch | None = None,
) -> HistoryResult:
    """Generation ``tid``'s active branch (``branch``, when read already) as history shows it:
    a page, or the window around ``opts.around`` (export's read: every message with
    ``opts.full``). The agent's view (``--as``) is upstream's window after the latest reset
    (window.py); the operator's keeps every message and lists the boundaries beside them."""
    if branch is None:
        branch = active_branch(conn, tid)
    agent = opts.as_key is not None
    if opts.uncapped and opts.limit is None:
        limit = max(len(branch.rows) + len(branch.marks), 1)  # every message
    else:
        limit = opts.limit or DEFAULT_LIMIT
        limit = min(limit, MAX_LIMIT) if agent else limit
    rows, marks, places = window.listed(branch, agent, opts.around)
    if not opts.include_tools:
        rows = rows.without_roles(sanitize.TOOL_ROLES)
    shown = _Shown(
        conn,
        tid,
        key,
        sid,
        rows,
        redactor,
        None if opts.uncapped else sanitize.MAX_TEXT_UNITS,
        agent,
        sys.maxsize if opts.uncapped else opts.max_bytes - (PENDING_BYTES if agent else 0),
        marks,
        places,
        branch,
    )
    return _around(shown, opts, limit) if opts.around is not None else _page(shown, opts, limit)


def _empty(key: str, sid: str | None, opts: HistoryOptions, total: int = 0) -> HistoryResult:
    """No messages: no transcript at all (a known agent's main session that was never
    written), or no window around an --around message that is unknown or hidden."""
    agent, paged = opts.as_key is not None, opts.offset is not None
    size = 2 + (PENDING_BYTES if agent else 0)
    if opts.around is not None:
        return HistoryResult(
            key, sid, (), bytes=size, total_messages=total, anchor=opts.around.strip(), agent=agent
        )
    return HistoryResult(
        key,
        sid,
        (),
        bytes=size,
        offset=opts.offset or 0,
        has_more=False,
        total_messages=0,
        agent=agent,
        paged=paged,
    )


class _Shown(NamedTuple):
    """The generation a history call shows, and how it reads and redacts its messages."""

    conn: sqlite3.Connection
    tid: int
    key: str
    sid: str | None
    rows: Messages  # what it pages through, oldest first, tool results left out unless asked
    redactor: TextRedactor
    max_units: int | None  # the cap of each text (None: whole)
    display: bool  # --as: the gateway's display projection (some messages hidden)
    max_bytes: int  # the page's byte cap
    marks: dict[int, Mark]  # the boundary lines among ``rows``, by seq (the agent's view)
    places: dict[int, int] | None  # each row's 1-based place upstream (None: operator shape)
    branch: Branch  # the whole active branch

    def window(self, first: int, end: int) -> tuple[list[sanitize.Sanitized], list[int]]:
        """Rows ``first:end`` as shown, and the row index of each (hidden ones left out): only
        these rows are parsed and sanitised. The operator's messages gain ``id`` and
        ``timestamp``; the agent's gain ``__openclaw`` (id, seq) as upstream's."""
        rows = self.rows[first:end]
        lines = self._lines([r.seq for r in rows])
        out: list[sanitize.Sanitized] = []
        at: list[int] = []
        now = now_ms()
        for i, r in enumerate(rows, first):
            obj = lines[r.seq]
            mark = self.marks.get(r.seq)
            if mark is not None and self.places is not None:
                s = sanitize.Sanitized(window.marker(mark, obj, self.places[r.seq], now))
            else:
                msg = obj.get("message") if isinstance(obj, dict) else None
                if not isinstance(msg, dict):
                    msg = {"role": r.role or "unknown", "content": ""}
                elif self.display and (msg := display.project(msg)) is None:
                    continue
                s = sanitize.sanitize_message(msg, self.redactor, max_units=self.max_units)
                s = s._replace(message=self._shaped(s.message, r, msg, obj))
            final, size = sanitize.well_formed(s.message)
            out.append(s._replace(message=final, size=size))
            at.append(i)
        return out, at

    def _lines(self, seqs: list[int]) -> dict[int, Any]:
        """The stored lines of ``seqs``, parsed: None for one edited by hand past reading."""
        raw = dict(
            self.conn.execute(
                "SELECT seq, raw FROM events WHERE transcript_id = ?"
                " AND seq IN (SELECT value FROM json_each(?))",
                (self.tid, json.dumps(seqs)),
            ).fetchall()
        )
        out: dict[int, Any] = {}
        for seq in seqs:
            try:
                out[seq] = wellformed.loads(rawcodec.unpack_text(self.conn, raw[seq]))
            except (ValueError, RecursionError, KeyError):  # shown empty
                out[seq] = None
        return out

    def _shaped(
        self, message: dict[str, Any], r: Row, stored: dict[str, Any], line: Any
    ) -> dict[str, Any]:
        if self.places is None:  # the operator's shape (search -C's too, --as or not)
            ts = r.ts if r.ts is not None else to_epoch_ms(stored.get("timestamp"))
            role = message.get("role", r.role)
            return {"role": role, **message, "timestamp": ts, "id": r.entry_id}
        return window.openclaw_meta(message, r.entry_id, line, self.places[r.seq])

    def finish(
        self, window: list[sanitize.Sanitized], start: int, end: int, size: int, **extra: Any
    ) -> HistoryResult:
        """The result of ``window[start:end]`` (``size`` bytes), with upstream's hard cap."""
        items, size, capped = sanitize.hard_cap(
            [s.message for s in window[start:end]], size, self.max_bytes
        )
        dropped = end - start < len(window)
        content_truncated, texts_cut, data_omitted = sanitize.cuts(window, agent=self.display)
        return HistoryResult(
            self.key,
            self.sid,
            tuple(items),
            truncated=dropped or content_truncated or capped,
            dropped_messages=dropped or capped,
            content_truncated=content_truncated,
            texts_cut=texts_cut,
            data_omitted=data_omitted,
            content_redacted=any(s.redacted for s in window),
            bytes=size + (PENDING_BYTES if self.display else 0),
            agent=self.display,
            boundaries=self._boundaries(items),
            **extra,
        )

    def _boundaries(self, items: list[dict[str, Any]]) -> tuple[dict[str, Any], ...]:
        """The operator's view: the resets and compactions among the messages shown."""
        if self.display or not self.branch.marks:
            return ()
        shown = [str(m.get("id")) for m in items]
        newest = not self.rows or (bool(shown) and shown[-1] == self.rows.ids[-1])
        found = window.boundaries(self.rows, self.branch.marks, shown, newest or not shown)
        lines = self._lines([m[0] for m, _b in found])
        out = []
        for m, before in found:
            obj = lines[m[0]]
            line = obj if isinstance(obj, dict) else {}
            ts = window.stamp(line, 0) or None
            out.append({"kind": m[2], "id": m[1], "timestamp": ts, "before": before})
        return tuple(out)


def _page(shown: _Shown, opts: HistoryOptions, limit: int) -> HistoryResult:
    """The ``limit`` messages before the newest ``offset`` ones, newest kept under the cap."""
    total, offset = len(shown.rows), opts.offset or 0
    end = max(0, total - offset)
    first = max(0, end - limit)
    window_, at = shown.window(first, end)
    start, size = sanitize.cap_newest([s.size for s in window_], shown.max_bytes)
    # Upstream: the next page starts right below the oldest message that survived the cap
    # (when even the newest alone is too big, cap_newest already stopped at it); past the
    # page's rows when all were hidden.
    next_offset = max(offset, total - at[start]) if window_ else offset + end - first
    more = next_offset < total
    return shown.finish(
        window_,
        start,
        len(window_),
        size,
        offset=offset,
        next_offset=next_offset if more else None,
        has_more=more,
        total_messages=total,
        paged=opts.offset is not None,
    )


def _around(shown: _Shown, opts: HistoryOptions, limit: int) -> HistoryResult:
    """A window centred on ``opts.around``; an unknown id gives an empty window."""
    anchor = (opts.around or "").strip()
    total = len(shown.rows)
    at = shown.rows.index_of(anchor)
    window_, kept = (
        shown.window(*sanitize.count_window(total, at, limit)) if at is not None else ([], [])
    )
    if at not in kept:  # unknown, or hidden by the display projection (--as): no window
        return _empty(shown.key, shown.sid, opts, total)
    start, end, size = sanitize.cap_around(
        [s.size for s in window_], kept.index(at), shown.max_bytes
    )
    return shown.finish(window_, start, end, size, total_messages=total, anchor=anchor)


def context_of(
    conn: sqlite3.Connection,
    key: str,
    session_id: str,
    message_id: str,
    n: int,
    redactor: TextRedactor,
    as_caller: bool = False,
) -> tuple[tuple[dict[str, Any], ...], tuple[dict[str, Any], ...]]:
    """The ``n`` messages before and after ``message_id`` on the active branch of generation
    ``session_id`` of ``key``, shaped, redacted and capped as the operator's `history` shows
    them (tool results left out; for a caller, display-projected, hidden ones left out):
    `search -C N`."""
    for tid, sid in generations(conn, key):
        if sid != session_id:
            continue
        b = active_branch(conn, tid)
        rows = b.rows.without_roles(sanitize.TOOL_ROLES)
        at = rows.index_of(message_id)
        if at is not None:
            cap = sanitize.MAX_TEXT_UNITS
            shown = _Shown(
                conn, tid, key, sid, rows, redactor, cap, as_caller, sys.maxsize, {}, None, b
            )
            before, _ = shown.window(max(0, at - n), at)
            after, _ = shown.window(at + 1, at + 1 + n)
            return tuple(s.message for s in before), tuple(s.message for s in after)
    return (), ()
