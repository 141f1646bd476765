"""Session rows: the session store's entries (table `sessions`), the references visibility
decides over (looked up one at a time: SessionLookup), and a transcript's lines as they were
imported (`raw_lines`). Deleting a session is delete.py's."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from openclaw_sessions.model.when import valid_updated_at
from openclaw_sessions.policy import keys

from . import db, paths, rawcodec, upstream_archived

# meta key prefix: the stat of a session store file whose entries were last stored (import
# skips storing them again while the file keeps it; `delete` forgets every one).
STORE_STAT = "store_stat:"


def upsert_sessions(
    conn: sqlite3.Connection, rows: Iterable[tuple[str, str, dict[str, object]]]
) -> None:
    """Store each (key, session id, store entry) in one statement (a sessions.json of
    100,000 entries is one executemany, not 100,000 calls)."""
    conn.executemany(
        "INSERT INTO sessions (session_key, session_id, spawned_by, parent_session_key,"
        " owner_session_key, label, updated_at, entry_json, derived, agent_id)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?) ON CONFLICT(session_key) DO UPDATE SET"
        " session_id = excluded.session_id, spawned_by = excluded.spawned_by,"
        " parent_session_key = excluded.parent_session_key,"
        " owner_session_key = excluded.owner_session_key, label = excluded.label,"
        " updated_at = excluded.updated_at, entry_json = excluded.entry_json, derived = 0",
        (_row(key, session_id, entry) for key, session_id, entry in rows),
    )


def _row(key: str, session_id: str, entry: dict[str, object]) -> tuple[object, ...]:
    def text(name: str) -> str | None:
        v = entry.get(name)
        return v.strip().lower() if isinstance(v, str) and v.strip() else None

    label = entry.get("label") or entry.get("displayName")
    return (
        key,
        session_id,
        text("spawnedBy"),
        text("parentSessionKey"),
        text("ownerSessionKey"),
        label if isinstance(label, str) else None,
        valid_updated_at(entry.get("updatedAt")),
        json.dumps(entry, ensure_ascii=False),
        keys.agent_of(key),
    )


_REF = "session_key, session_id, spawned_by, parent_session_key, owner_session_key"


def session_ref(row: sqlite3.Row | tuple[object, ...], agent: str) -> keys.SessionRef:
    """The reference of a `sessions` row (its _REF columns) in agent ``agent``'s store."""
    key = str(row[0])
    return keys.SessionRef(key, keys.agent_of(key) or agent, *row[1:5])


class SessionLookup:
    """The session stores of a state root as a keys.SessionIndex: each question is an indexed
    lookup in each agent's store (any store may hold any key; there are a few stores). An
    older generation's session id names its key too, with no relations (as the snapshot this
    replaces had it). Connections open on first use and close with the index."""

    def __init__(
        self,
        root: Path,
        default_agent: str,
        conn_of: Callable[[str], sqlite3.Connection] | None = None,
    ) -> None:
        """``conn_of``: the caller's own connection to a store (a search's: read/search/call.py),
        left open at the end; else the index opens its own."""
        self.root = root
        self.agents = paths.agents_with_db(root) or [paths.check_agent_id(default_agent)]
        self._conns: dict[str, sqlite3.Connection] = {}
        self._conn_of = conn_of
        # An agent's view (read/scope.caller_policy sets it): a session deleted in OpenClaw
        # is not there, as upstream has it (store/upstream_archived.py).
        self.hide_deleted = False
        self._deleted: dict[str, tuple[set[str], set[tuple[str, str]]]] = {}

    def _kept(self, agent: str, refs: Iterable[keys.SessionRef]) -> Iterator[keys.SessionRef]:
        if not self.hide_deleted:
            yield from refs
            return
        if agent not in self._deleted:
            self._deleted[agent] = upstream_archived.deleted(self.conn(agent))
        gone_keys, gone = self._deleted[agent]
        for r in refs:
            if r.key not in gone_keys and (r.key, r.session_id or "") not in gone:
                yield r

    def __enter__(self) -> SessionLookup:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for conn in self._conns.values():
            conn.close()
        self._conns.clear()

    def conn(self, agent: str) -> sqlite3.Connection:
        if self._conn_of is not None:
            return self._conn_of(agent)
        if agent not in self._conns:
            self._conns[agent] = db.connect(paths.db_path(self.root, agent))
        return self._conns[agent]

    def entry(self, key: str) -> dict[str, object]:
        """The store entry of session ``key`` as OpenClaw wrote it (empty when it has none)."""
        for _agent, (raw,) in self._ask(
            "SELECT entry_json FROM sessions WHERE session_key = ?", key
        ):
            if raw:
                try:
                    got = json.loads(str(raw))
                except ValueError:
                    continue
                if isinstance(got, dict):
                    return got
        return {}

    def _ask(self, sql: str, *args: object) -> list[tuple[str, tuple[object, ...]]]:
        out = []
        for agent in self.agents:
            try:
                out += [(agent, tuple(r)) for r in self.conn(agent).execute(sql, args)]
            except sqlite3.Error as exc:
                raise db.translate(exc, paths.db_path(self.root, agent)) from None
        return out

    def _refs(self, col: str, where: str, *args: object) -> list[keys.SessionRef]:
        """The sessions whose ``col`` meets ``where`` (``{c}`` stands for the column), then the
        older generations (a transcript whose id is not its key's current one) whose does."""
        rows = self._ask(f"SELECT {_REF} FROM sessions WHERE {where.format(c=col)}", *args)
        older = self._ask(
            "SELECT DISTINCT t.session_key, t.session_id FROM transcripts t JOIN sessions s"
            f" ON s.session_key = t.session_key WHERE {where.format(c='t.' + col)}"
            " AND t.session_id != coalesce(s.session_id, '')",
            *args,
        )
        refs = [(a, session_ref(r, a)) for a, r in rows] + [
            (a, keys.SessionRef(str(k), keys.agent_of(str(k)) or a, str(sid)))
            for a, (k, sid) in older
        ]
        return [r for a, r in refs if next(self._kept(a, [r]), None) is not None]

    def with_key(self, key: str) -> list[keys.SessionRef]:
        return self._refs("session_key", "{c} = ?", key)

    def with_session_id(self, session_id: str) -> list[keys.SessionRef]:
        # NOCASE folds ASCII only: the lower and upper forms also find a non-ASCII id stored
        # in either case; Python's lower() decides.
        forms = sorted({session_id, session_id.lower(), session_id.upper()})
        marks = ", ".join("?" * len(forms))
        refs = self._refs("session_id", f"{{c}} COLLATE NOCASE IN ({marks})", *forms)
        want = session_id.lower()
        return [r for r in refs if r.session_id and r.session_id.lower() == want]

    def with_session_id_prefix(self, prefix: str) -> list[keys.SessionRef]:
        # a range on the NOCASE indexes (ids are ASCII but for a few: Python decides)
        low = prefix.lower()
        where = "{c} COLLATE NOCASE >= ? AND {c} COLLATE NOCASE < ?"
        refs = self._refs("session_id", where, low, low + "\U0010ffff")
        return [r for r in refs if r.session_id and r.session_id.lower().startswith(low)]

    def has_agent(self, agent_id: str) -> bool:
        return bool(self._ask("SELECT 1 FROM sessions WHERE agent_id = ? LIMIT 1", agent_id))

    def related(self, agent: str, key: str) -> Iterator[keys.SessionRef]:
        """The sessions of one store that ``key`` is, spawned, parents or owns, one at a time
        (the caller stops at the first it needs)."""
        return self._kept(agent, related(self.conn(agent), agent, key))

    def of_agent(self, agent: str, of: str | None) -> Iterator[keys.SessionRef]:
        """The sessions of one store whose key names agent ``of`` (None: unscoped keys), one
        at a time."""
        sql = f"SELECT {_REF} FROM sessions WHERE agent_id IS ?"
        rows = self.conn(agent).execute(sql, (of,))
        yield from self._kept(agent, (session_ref(row, agent) for row in rows))

    def agents_named(self, agent: str) -> list[str]:
        """The agents the keys of one store name, each found by an index seek."""
        return agents_named(self.conn(agent))


def related(conn: sqlite3.Connection, agent: str, key: str) -> Iterator[keys.SessionRef]:
    """The sessions of agent ``agent``'s store that ``key`` is, spawned, parents or owns."""
    for col in ("session_key", "spawned_by", "parent_session_key", "owner_session_key"):
        for row in conn.execute(f"SELECT {_REF} FROM sessions WHERE {col} = ?", (key,)):
            yield session_ref(row, agent)


def agents_named(conn: sqlite3.Connection) -> list[str]:
    """The agents the keys of a store name, each found by an index seek."""
    out = list[str]()
    sql = "SELECT min(agent_id) FROM sessions WHERE agent_id > ?"
    while (found := conn.execute(sql, (out[-1] if out else "",)).fetchone()[0]) is not None:
        out.append(str(found))
    return out


def incognito_keys(conn: sqlite3.Connection) -> list[str]:
    """The store's incognito keys: no caller, not even the operator, searches them."""
    rows = conn.execute("SELECT session_key FROM sessions WHERE session_key GLOB '*:incognito-*'")
    return [r[0] for r in rows if keys.is_incognito(r[0])]


def raw_lines(conn: sqlite3.Connection, transcript_id: int) -> Iterator[bytes]:
    """The transcript's lines as imported, in file order, each without its "\\n": the stored
    events and the quarantined lines, each at its line number, and an empty line for every
    number between them (import stores no blank line). Joined with "\\n" after each, they
    are the bytes import consumed. The one reader of stored lines: how they are stored is
    this function's business.

    A quarantined line where an event now stands, or past the lines consumed, is left over
    from a rewritten revision and skipped; of two at one number, the later wins."""
    got = conn.execute(
        "SELECT lines_consumed FROM transcripts WHERE transcript_id = ?", (transcript_id,)
    ).fetchone()
    if got is None:
        return
    consumed = int(got[0])
    bad = dict(
        conn.execute(
            "SELECT line_no, raw FROM quarantine WHERE transcript_id = ? AND line_no <= ?"
            " ORDER BY quarantine_id",
            (transcript_id, consumed),
        ).fetchall()
    )
    at = 0  # the last line number given back
    cur = conn.cursor()
    cur.row_factory = None
    events = cur.execute(
        "SELECT line_no, raw FROM events WHERE transcript_id = ? ORDER BY seq", (transcript_id,)
    )
    for line_no, raw in events:
        yield from _between(bad, at, line_no)
        bad.pop(line_no, None)
        yield rawcodec.unpack(conn, raw)
        at = line_no
    yield from _between(bad, at, consumed + 1)


def _between(bad: dict[int, bytes], after: int, before: int) -> Iterator[bytes]:
    """The lines numbered after ``after`` and before ``before``: quarantined or blank."""
    for n in range(after + 1, before):
        yield bytes(bad.get(n, b""))
