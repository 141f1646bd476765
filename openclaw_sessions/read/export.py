"""`export`: a session's transcripts, to take elsewhere.

- ``jsonl``: each generation's lines as import read them, byte for byte (the store's
  ``raw_lines``), checked against the fingerprint import took of them: what goes back into
  OpenClaw or onto another machine. Raw and unredacted, so the operator's only.
- ``md`` and ``json``: each generation's active branch as ``history --full`` reads it, every
  text redacted (with ``--as``, sessions_history's caps stay).

One generation by default (the current one, or the one a session id names), every generation
of the key with ``all_generations``, oldest first. Returns values and iterators; the CLI
renders and writes them.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from openclaw_sessions.errors import StoreError, UsageError
from openclaw_sessions.policy import bundle
from openclaw_sessions.store import paths, upstream_archived
from openclaw_sessions.store.db import open_store
from openclaw_sessions.store.paths import StateScope
from openclaw_sessions.store.sessions import raw_lines

from . import history
from .generations import generations
from .history import HistoryOptions
from .models import HistoryResult

FORMATS = ("md", "json", "jsonl")
_SHA256 = re.compile("[0-9a-f]{64}")  # a file's fingerprint (other sources keep other tags)


class ExportOptions(NamedTuple):
    """`export`'s options; each field declares the CLI parameter of its name (type, default)."""

    # a session key, a session id, main or current; None: every session of the agent (or of
    # every agent), as a bundle (whole())
    key: str | None = None
    state_dir: Path | None = None
    agent: str = paths.DEFAULT_AGENT
    all_agents: bool = False
    fmt: str | None = None  # md, json or jsonl; None: md for a KEY, jsonl (a bundle) without
    all_generations: bool = False
    include_tools: bool = False
    as_key: str | None = None
    visibility: str | None = None
    sandboxed: bool = False


class Generation(NamedTuple):
    """One stored transcript of the key."""

    transcript_id: int
    session_id: str
    kind: str  # current | reset | deleted | backup | orphan | vanished
    archived_at: str | None
    file_name: str  # the name it had (decompressed: no .zst), for a directory of files
    fingerprint: str  # what import recorded of the lines it consumed


class Export(NamedTuple):
    root: Path
    agent: str
    session_key: str
    generations: tuple[Generation, ...]  # oldest first
    opts: ExportOptions
    entry: dict[str, Any] | None = None  # the key's store entry as imported (None: derived)
    current: Generation | None = None  # the key's current generation, exported or not


def history_options(o: ExportOptions) -> HistoryOptions:
    """How each generation is read for md and json: whole, unless a caller's caps stay."""
    return HistoryOptions(
        key=o.key or "",
        include_tools=o.include_tools,
        as_key=o.as_key,
        visibility=o.visibility,
        sandboxed=o.sandboxed,
        full=o.as_key is None,
    )


def validate(opts: ExportOptions) -> None:
    if opts.key is None:  # every session, as a bundle
        if opts.as_key is not None:
            raise UsageError(
                "a whole agent is the operator's to export, not --as", hint="give a KEY"
            )
        if opts.fmt not in (None, "jsonl"):
            raise UsageError(
                "without a KEY, export writes every session as a bundle: --format jsonl",
                hint="give a KEY for md or json",
            )
        return
    opts = opts._replace(fmt=opts.fmt or "md")
    if opts.all_agents:
        raise UsageError("--all-agents exports every session: give no KEY with it")
    if opts.fmt not in FORMATS:
        raise UsageError(f"format must be one of {', '.join(FORMATS)}")
    if opts.fmt == "jsonl" and opts.as_key is not None:
        raise UsageError(
            "--format jsonl is the raw, unredacted transcript: for the operator only, not --as",
            hint="use --format md or json (redacted) with --as",
        )
    history.validate(history_options(opts))


def export(opts: ExportOptions) -> Export:
    """What to export: the key the caller may read, and its generations."""
    validate(opts)
    opts = opts._replace(fmt=opts.fmt or "md")
    ctx = StateScope.at(opts.state_dir, opts.agent)
    key, agent, ref = _resolve(ctx, opts)
    opts = opts._replace(key=ref)  # a session id prefix made whole
    return _of_key(ctx, opts, key, agent)


def _resolve(ctx: StateScope, opts: ExportOptions) -> tuple[str, str, str]:
    """As history resolves a key, but for the operator an incognito session is data like any
    other (a migration must carry it); an agent (``--as``) never sees one."""
    ref = str(opts.key)
    if opts.as_key is None:
        from openclaw_sessions.policy import keys

        parsed = keys.parse_key(ref)
        agent, rest = parsed or (ctx.agent, ref)
        key = keys.scoped(rest, agent)
        if keys.is_incognito(key) and _stored(ctx.root, agent, key):
            return key, agent, ref
    return history.resolve(ctx, history_options(opts))


def _stored(root: Path, agent: str, key: str) -> bool:
    if not paths.db_path(root, agent).exists():
        return False
    with open_store(root, agent) as conn:
        return bool(_keys(conn, key))


def _keys(conn: sqlite3.Connection, only: str | None = None) -> list[str]:
    """The agent's session keys with a transcript or a store entry (``only``: that one)."""
    where = "" if only is None else " WHERE session_key = ?1"
    sql = (
        f"SELECT session_key FROM transcripts{where} UNION SELECT session_key FROM sessions"
        f"{where}{' AND' if only else ' WHERE'} entry_json IS NOT NULL ORDER BY 1"
    )
    return [r[0] for r in conn.execute(sql, () if only is None else (only,))]


def whole(opts: ExportOptions) -> Iterator[Export]:
    """Every session of the agent (``all_agents``: of every agent), incognito ones included,
    every generation, for a bundle: what a migration carries."""
    validate(opts)
    opts = opts._replace(fmt="jsonl")
    ctx = StateScope.at(opts.state_dir, opts.agent, opts.all_agents)
    for agent in ctx.agents():
        if not paths.db_path(ctx.root, agent).exists():
            continue
        with open_store(ctx.root, agent) as conn:
            every = _keys(conn)
        for key in every:
            one = opts._replace(key=key, agent=agent, all_generations=True)
            yield _of_key(ctx, one, key, agent)


def _of_key(ctx: StateScope, opts: ExportOptions, key: str, agent: str) -> Export:
    if not paths.db_path(ctx.root, agent).exists():  # a known agent's main, never written
        return Export(ctx.root, agent, key, (), opts)
    with open_store(ctx.root, agent) as conn:
        every = generations(conn, key)  # the current first, then newest first
        if opts.as_key is not None:  # a generation deleted in OpenClaw is not the agent's
            states = upstream_archived.by_session_id(conn)
            every = [g for g in every if states.get(g[1]) != "deleted"]
        named = [g for g in every if g[1].lower() == str(opts.key).strip().lower()]
        gens = every if opts.all_generations else (named or every)[:1]
        found = {
            r[0]: r
            for r in conn.execute(
                "SELECT transcript_id, session_id, kind, archived_at, source_name, prefix_sha256"
                " FROM transcripts WHERE session_key = ?",
                (key,),
            )
        }
        entry = _entry(conn, key)
    chosen = [_generation(*found[tid]) for tid, _sid in reversed(gens) if tid in found]
    current = None
    if entry is not None and every and every[0][1] == entry["sessionId"] and every[0][0] in found:
        current = _generation(*found[every[0][0]])
    return Export(ctx.root, agent, key, tuple(chosen), opts, entry, current)


def _entry(conn: sqlite3.Connection, key: str) -> dict[str, Any] | None:
    """The key's store entry as imported, its sessionId the store's (None: a derived key)."""
    row = conn.execute(
        "SELECT session_id, entry_json FROM sessions WHERE session_key = ? AND entry_json"
        " IS NOT NULL",
        (key,),
    ).fetchone()
    if row is None or row[0] is None:
        return None
    try:
        entry = json.loads(row[1])
    except ValueError:
        entry = None
    return {**(entry if isinstance(entry, dict) else {}), "sessionId": row[0]}


def bundle_entry(exp: Export) -> dict[str, Any] | None:
    """The key's entry for a bundle's `sessions.json` (policy/bundle.py): as the store holds
    it (label, links, times and the rest), naming the current transcript by the name it is
    exported under (``sessionFile``, relative: a path from another machine means nothing
    here) and listing the exported older generations. None for a derived key (no entry:
    import derives the same key from the file's name)."""
    if exp.entry is None:
        return None
    entry = dict(exp.entry)
    default = f"{entry['sessionId']}.jsonl"
    name = exp.current.file_name if exp.current is not None else default
    if "sessionFile" in entry or name != default:
        entry["sessionFile"] = name
    cur = exp.current.transcript_id if exp.current is not None else None
    older = [g.file_name for g in exp.generations if g.transcript_id != cur]
    return bundle.with_generations(bundle.without_generations(entry), older)


def _generation(
    tid: int, sid: str, kind: str, archived_at: str | None, source: str, fingerprint: str
) -> Generation:
    file_name = Path(source).name.removesuffix(".zst")
    if source.startswith(("upstream:", "live:")) or file_name in ("", ".", ".."):
        file_name = f"{sid}.jsonl"
    return Generation(tid, sid, kind, archived_at, file_name, fingerprint)


def messages(exp: Export, gen: Generation) -> HistoryResult:
    """The generation's active branch, redacted (``md`` and ``json``)."""
    redactor = StateScope(exp.root, exp.agent).redactor()
    with open_store(exp.root, exp.agent) as conn:
        history.map_events(conn)
        return history.read_generation(
            conn,
            gen.transcript_id,
            exp.session_key,
            gen.session_id,
            redactor,
            history_options(exp.opts),
        )


def lines(exp: Export, gen: Generation) -> Iterator[bytes]:
    """The generation's lines as imported, each with its "\\n" (``jsonl``). Once the last is
    given, they are checked against the fingerprint import took: StoreError when they differ
    (a line of blanks other than an empty one is not kept, for one)."""
    if exp.opts.as_key is not None:  # export() refuses it; a second lock on the raw door
        raise UsageError("--format jsonl is for the operator only")
    import hashlib  # (here: OpenSSL's set-up costs the redacted formats ~2 ms of start-up)

    digest = hashlib.sha256()
    with open_store(exp.root, exp.agent) as conn:
        for raw in raw_lines(conn, gen.transcript_id):
            line = raw + b"\n"
            digest.update(line)
            yield line
    if _SHA256.fullmatch(gen.fingerprint) and digest.hexdigest() != gen.fingerprint:
        raise StoreError(
            f"the stored lines of {gen.file_name} differ from the file import read",
            hint="re-import the file, then export again",
        )
