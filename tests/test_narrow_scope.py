"""A narrow caller (one that sees no agent whole) has its visible sessions listed, and its search
keeps to their rows: the list is exactly upstream's verdict over every session, and the work
done follows what the caller sees, not the size of the store."""

from __future__ import annotations

import itertools
from pathlib import Path

from helpers import Session, run_cli, visible_keys, write_sessions_json

from openclaw_sessions.policy import fts_query, visibility
from openclaw_sessions.read.scope import listed_sessions, register, visible_sql
from openclaw_sessions.read.search import fts
from openclaw_sessions.redact import build_redactor
from openclaw_sessions.store.db import open_store
from openclaw_sessions.store.sessions import session_ref

CALLER = "agent:main:telegram:direct:1"
RELATED = {
    "agent:main:subagent:a": {"spawnedBy": CALLER},
    "agent:main:telegram:direct:2": {"parentSessionKey": CALLER},
    "agent:main:subagent:c": {"ownerSessionKey": CALLER},
    "agent:main:dashboard:incognito-x1": {"spawnedBy": CALLER},
    "agent:ops:subagent:z": {"spawnedBy": CALLER},  # a native child across agents
    "agent:ops:cron:nightly": {"spawnedBy": CALLER},  # not native: stays in its agent
    "agent:main:subagent:grand": {"spawnedBy": "agent:main:subagent:a"},
}
HIDDEN = 120


def _build(root: Path) -> None:
    sessions: dict[str, dict[str, str]] = {"agent:main:main": {}, CALLER: {}, "global": {}}
    sessions.update(RELATED)
    sessions.update({f"agent:main:telegram:direct:h{i}": {} for i in range(HIDDEN)})
    d = root / "agents" / "main" / "sessions"
    store = {}
    for i, (key, entry) in enumerate(sessions.items()):
        s = Session(f"s{i}")
        hidden = key.endswith(tuple(f":h{j}" for j in range(HIDDEN)))
        for _ in range(3):  # the hidden sessions rank first: the word is denser there
            s.user("shared shared shared" if hidden else "shared word and more words here")
        s.write(d / f"s{i}.jsonl")
        store[key] = {"sessionId": f"s{i}", **entry}
    write_sessions_json(d, store)
    r = run_cli("import", "--state-dir", str(root), "--reindex")
    assert r.exit_code == 0, r.stderr


def _callers() -> list[visibility.Caller]:
    keys = ["agent:main:main", CALLER, "agent:main:subagent:a", "global", "agent:ops:subagent:z"]
    out = []
    for key, vis, sandboxed, a2a in itertools.product(
        keys, visibility.VISIBILITIES, (False, True), (False, True)
    ):
        agent = "ops" if key.startswith("agent:ops:") else "main"
        out.append(
            visibility.Caller(key, agent, vis, sandboxed=sandboxed, agent_to_agent_enabled=a2a)
        )
    return out


def test_listed_sessions_are_exactly_the_visible_ones(state: Path) -> None:
    _build(state)
    with open_store(state, "main") as conn:
        refs = [
            session_ref(r, "main")
            for r in conn.execute(
                "SELECT session_key, session_id, spawned_by, parent_session_key,"
                " owner_session_key FROM sessions"
            )
        ]
        narrow = 0
        for caller in _callers():
            policy = visibility.Policy(caller, refs)
            listed = listed_sessions(conn, "main", policy)
            wide = policy.sees_all_of("main") or policy.sees_all_of("ops")
            assert (listed is None) == wide, caller
            if listed is not None:
                narrow += 1
                assert list(listed) == visible_keys(policy, refs), caller
        assert narrow > 20  # self, tree and sandboxed callers, with and without children
        assert listed_sessions(conn, "main", None) is None  # the operator: never listed


def _work(conn: object, plan: fts_query.QueryPlan, f: fts.Filters) -> tuple[list, int]:
    """(the hits, the SQLite VM steps they took, in thousands)."""
    steps = [0]

    def tick() -> int:
        steps[0] += 1
        return 0

    conn.set_progress_handler(tick, 1000)  # type: ignore[attr-defined]
    try:
        hits, more = fts.find_hits(
            conn,  # type: ignore[arg-type]
            plan,
            f,
            build_redactor().fingerprint,
            limit=10,
        )
    finally:
        conn.set_progress_handler(None, 0)  # type: ignore[attr-defined]
    return [(h.session_key, h.message_id) for h in hits] + [more], steps[0]


def test_a_narrow_search_works_on_what_the_caller_sees(state: Path) -> None:
    _build(state)
    plan = fts_query.build("shared")
    with open_store(state, "main") as conn:
        refs = [
            session_ref(r, "main")
            for r in conn.execute(
                "SELECT session_key, session_id, spawned_by, parent_session_key,"
                " owner_session_key FROM sessions"
            )
        ]
        policy = visibility.Policy(visibility.Caller(CALLER, "main", "tree"), refs)
        register(conn, "main", policy)
        listed = listed_sessions(conn, "main", policy)
        # itself, three children of its agent, and a native subagent of another
        assert listed is not None
        assert len(listed) == 5
        per_row = fts.Filters(visible_sql(policy), agent="main")
        hits, slow = _work(conn, plan, per_row)
        same, fast = _work(conn, plan, per_row._replace(sessions=listed))
        assert hits == same
        assert len(hits) == 11  # 10 hits, and more exist
        assert {k for k, _ in hits[:-1]} <= set(listed)
        # every hidden match (360 of them, ranked first) was scored and joined per row before
        assert fast * 5 < slow, (fast, slow)
