"""Resolution and scope by indexed lookups (store/sessions.SessionLookup, read/scope.py) answer
what a snapshot of every session reference of every store answered: the same references for a
key or a session id (any case, older generations included), the same agents, and the same
stores in which a caller sees anything, for every caller and visibility mode."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import Session, visible_keys, write_sessions_json
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from openclaw_sessions.ingest.importer import ImportOptions, import_sources
from openclaw_sessions.policy import keys, visibility
from openclaw_sessions.read.scope import stores_in_scope
from openclaw_sessions.store import db, paths
from openclaw_sessions.store.sessions import SessionLookup

WORLD = {
    "main": {
        "agent:main:main": ("m-main", {}),
        "agent:main:subagent:a": ("Sub-A", {"spawnedBy": "agent:main:main"}),
        "agent:main:telegram:direct:1": ("m-dm", {}),
        "agent:main:discord:group:g:thread:t": (
            "m-thr",
            {"parentSessionKey": "agent:main:telegram:direct:1"},
        ),
        "agent:main:cron:j:run:r": ("m-cron", {"ownerSessionKey": "agent:main:main"}),
        "agent:main:dashboard:incognito-q": ("m-inc", {}),
        "agent:codex:acp:child-1": ("m-acp", {"spawnedBy": "agent:main:main"}),
        "global": ("m-global", {}),
        "agent::main:odd": ("m-odd", {}),
        "agent:main:shared": ("dup-1", {}),
    },
    "work": {
        "agent:work:main": ("w-main", {}),
        "agent:work:subagent:kid": ("w-kid", {"spawnedBy": "agent:main:main"}),
        "agent:work:direct:carol": ("dup-1", {}),
        "global": ("w-global", {}),
        "agent:work:dashboard:incognito-z": ("w-inc", {}),
        # Native children of main's sessions, kept in work's store: each relation alone
        # brings a caller's search there.
        "agent:work:subagent:own": ("w-own", {"ownerSessionKey": "agent:main:telegram:direct:1"}),
        "agent:work:acp:par": ("w-par", {"parentSessionKey": "agent:main:subagent:a"}),
    },
    "empty": {},
}
CALLERS = ["agent:main:main", "agent:main:subagent:a", "agent:main:telegram:direct:1",
           "agent:work:main", "agent:work:subagent:kid", "global"]  # fmt: skip


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("lookups") / "state"
    for agent, sessions in WORLD.items():
        d = root / "agents" / agent / "sessions"
        d.mkdir(parents=True)
        for sid, _ in sessions.values():
            if sid != "m-main":  # written after its older generation
                Session(sid).write(d / f"{sid}.jsonl")
        write_sessions_json(d, {k: {"sessionId": sid, **e} for k, (sid, e) in sessions.items()})
    # main's main session had another id before a /reset: an older generation of its key.
    d = root / "agents" / "main" / "sessions"
    entries = {k: {"sessionId": sid, **e} for k, (sid, e) in WORLD["main"].items()}
    Session("m-main-old").write(d / "m-main-old.jsonl")
    write_sessions_json(d, entries | {"agent:main:main": {"sessionId": "m-main-old"}})
    import_sources(ImportOptions(state_dir=root))
    (d / "m-main-old.jsonl").rename(d / "m-main-old.jsonl.reset.2026-01-01T00-00-00.000Z")
    Session("m-main").write(d / "m-main.jsonl")
    write_sessions_json(d, entries)
    import_sources(ImportOptions(state_dir=root))
    return root


def by_store(root: Path) -> dict[str, list[keys.SessionRef]]:
    """Every reference of each store, as visibility's snapshot used to hold them."""
    out: dict[str, list[keys.SessionRef]] = {}
    for agent in paths.agents_with_db(root):
        refs = out.setdefault(agent, [])
        with db.open_store(root, agent) as conn:
            for r in conn.execute(
                "SELECT session_key, session_id, spawned_by, parent_session_key,"
                " owner_session_key FROM sessions"
            ):
                refs.append(keys.SessionRef(r[0], keys.agent_of(r[0]) or agent, *r[1:]))
            for key, sid in conn.execute(
                "SELECT DISTINCT t.session_key, t.session_id FROM transcripts t JOIN sessions s"
                " ON s.session_key = t.session_key WHERE t.session_id != coalesce(s.session_id,"
                " '')"
            ):
                refs.append(keys.SessionRef(key, keys.agent_of(key) or agent, sid))
    return out


def snapshot(root: Path) -> list[keys.SessionRef]:
    return [r for refs in by_store(root).values() for r in refs]


def test_lookups_answer_as_the_snapshot(root: Path) -> None:
    snap = keys.Snapshot(snapshot(root))
    older = [r for r in snap.refs if r.session_id == "m-main-old"]
    assert [r.key for r in older] == ["agent:main:main"]  # an older generation's id
    with SessionLookup(root, "main") as index:
        probes = {r.key for r in snap.refs} | {"agent:main:nope", "agent:ops:main"}
        for key in probes:
            assert sorted(index.with_key(key)) == sorted(snap.with_key(key)), key
        for sid in ("m-main", "M-MAIN", "sub-a", "SUB-A", "dup-1", "m-main-old", "nope"):
            assert sorted(index.with_session_id(sid)) == sorted(snap.with_session_id(sid)), sid
        for agent in ("main", "work", "codex", "ops", "empty"):
            assert index.has_agent(agent) == snap.has_agent(agent), agent


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.sampled_from(CALLERS),
    st.sampled_from(visibility.VISIBILITIES),
    st.booleans(),
    st.booleans(),
    st.sampled_from([(), ("main",), ("ma*", "work")]),
)
def test_the_stores_in_scope_are_those_with_a_visible_session(
    root: Path, caller: str, vis: str, sandboxed: bool, a2a: bool, allow: tuple[str, ...]
) -> None:
    stores = by_store(root)
    with SessionLookup(root, "main") as index:
        try:
            key = keys.resolve_caller_key(caller, "main", index)
        except Exception:
            return
        agent = keys.agent_of(key) or "main"
        c = visibility.Caller(key, agent, vis, sandboxed, "spawned", a2a, allow)
        got = stores_in_scope(index, visibility.Policy(c, index))
    policy = visibility.Policy(c, [r for refs in stores.values() for r in refs])
    assert got == [a for a, refs in stores.items() if visible_keys(policy, refs)]
