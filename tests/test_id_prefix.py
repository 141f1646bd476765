"""A unique prefix (4 characters or more) of a session id works wherever a session id is
taken, as git takes a short SHA: history KEY, export KEY, delete, search --session, history
--session-id. A key or a whole id always wins; an ambiguous prefix is exit 2 saying how many
sessions match; with --as, only the sessions the caller may see count."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import Session, json_out, run_cli, write_sessions_json

SESSIONS = {  # key: (session id, spawnedBy)
    "agent:main:one": ("abcd1234-aaaa", None),
    "agent:main:two": ("abcd5678-bbbb", None),
    "agent:main:three": ("ffee0000-cccc", None),
    "agent:main:subagent:k1": ("kid98765", "agent:main:one"),
    "agent:main:subagent:k2": ("abcd9999-dddd", "agent:main:two"),
    "agent:main:short": ("beef", None),
    "agent:main:longer": ("beef0001", None),
}


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """The sessions above, each saying walrus; agent:main:one also has an older generation
    (old-gen-1111, a /reset archive)."""
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    old = Session("old-gen-1111", ts0=1_700_000_000_000)
    old.user("walrus of old", id="m-old")
    old.write(d / "old-gen-1111.jsonl")
    write_sessions_json(d, {"agent:main:one": {"sessionId": "old-gen-1111"}})
    assert run_cli("import", str(tmp_path / "src")).exit_code == 0
    (d / "old-gen-1111.jsonl").rename(d / "old-gen-1111.jsonl.reset.2026-01-01T00-00-00.000Z")
    entries = {}
    for key, (sid, spawned) in SESSIONS.items():
        s = Session(sid)
        s.user(f"walrus in {key}", id=f"m-{sid[:6]}")
        s.write(d / f"{sid}.jsonl")
        entries[key] = {"sessionId": sid, **({"spawnedBy": spawned} if spawned else {})}
    write_sessions_json(d, entries)
    assert run_cli("import", str(tmp_path / "src"), "--reindex").exit_code == 0
    return d


def history(*args: str) -> tuple[int, dict | str]:
    r = run_cli("history", *args, "--json")
    return r.exit_code, (json_out(r) if r.exit_code == 0 else r.stderr)


def test_history_takes_a_unique_prefix(store: Path) -> None:
    code, doc = history("ffee")
    assert code == 0
    assert isinstance(doc, dict)
    assert (doc["sessionKey"], doc["sessionId"]) == ("agent:main:three", "ffee0000-cccc")
    code, doc = history("ABCD1")  # any case, as whole ids
    assert code == 0
    assert isinstance(doc, dict)
    assert doc["sessionKey"] == "agent:main:one"
    code, doc = history("old-gen")  # an older generation: its own
    assert code == 0
    assert isinstance(doc, dict)
    assert (doc["sessionKey"], doc["sessionId"]) == ("agent:main:one", "old-gen-1111")


def test_an_ambiguous_prefix_says_how_many_match(store: Path) -> None:
    code, err = history("abcd")
    assert code == 2
    assert isinstance(err, str)
    assert err.startswith("error: session id prefix abcd is ambiguous: 3 sessions match")
    assert "abcd1234" not in err  # how many, never which


def test_a_whole_id_and_a_key_win_over_a_prefix(store: Path) -> None:
    code, doc = history("beef")  # a whole id, and a prefix of beef0001
    assert code == 0
    assert isinstance(doc, dict)
    assert doc["sessionKey"] == "agent:main:short"
    code, doc = history("beef0")
    assert code == 0
    assert isinstance(doc, dict)
    assert doc["sessionKey"] == "agent:main:longer"
    code, doc = history("three")  # a bare rest of a key
    assert code == 0
    assert isinstance(doc, dict)
    assert doc["sessionKey"] == "agent:main:three"


def test_fewer_than_four_characters_is_no_prefix(store: Path) -> None:
    code, err = history("ffe")
    assert code == 2
    assert isinstance(err, str)
    assert "Session not found: ffe" in err


def test_as_resolves_only_among_visible_sessions(store: Path) -> None:
    """agent:main:one with visibility tree sees itself and k1; of the three sessions whose id
    starts with abcd it sees one, so the prefix is that one, not ambiguous; a prefix of only
    hidden sessions names nothing (not found, as an unknown id: it never says one exists)."""
    caller = ("--as", "agent:main:one", "--visibility", "tree")
    code, doc = history("abcd", *caller)
    assert code == 0
    assert isinstance(doc, dict)
    assert doc["sessionKey"] == "agent:main:one"
    code, doc = history("kid9", *caller)
    assert code == 0
    assert isinstance(doc, dict)
    assert doc["sessionKey"] == "agent:main:subagent:k1"
    code, err = history("ffee", *caller)
    assert code == 2
    assert isinstance(err, str)
    assert "Session not found: ffee" in err
    assert "agent:main:three" not in err
    assert "ffee0000" not in err
    r = run_cli("search", "walrus", "--session", "abcd", *caller, "--json")
    assert r.exit_code == 0
    assert {h["sessionKey"] for h in json_out(r)["results"]} == {"agent:main:one"}


def test_export_takes_a_prefix(store: Path) -> None:
    r = run_cli("export", "ffee0", "--json")
    assert r.exit_code == 0
    assert [g["sessionId"] for g in json_out(r)["generations"]] == ["ffee0000-cccc"]
    r = run_cli("export", "old-g", "--json")  # names its own generation, as a whole id does
    assert [g["sessionId"] for g in json_out(r)["generations"]] == ["old-gen-1111"]
    r = run_cli("export", "abcd", "--json")
    assert r.exit_code == 2
    assert "ambiguous" in r.stderr


def test_search_session_takes_a_prefix(store: Path) -> None:
    r = run_cli("search", "walrus", "--session", "old-gen", "--json")
    assert r.exit_code == 0
    assert {(h["sessionKey"], h["sessionId"]) for h in json_out(r)["results"]} == {
        ("agent:main:one", "old-gen-1111")
    }  # an id keeps the operator's search to that generation
    r = run_cli("search", "walrus", "--session", "abcd", "--json")
    assert r.exit_code == 2
    assert "3 sessions match" in r.stderr


def test_history_session_id_takes_a_prefix(store: Path) -> None:
    code, doc = history("agent:main:one", "--around", "m-old", "--session-id", "old-gen")
    assert code == 0
    assert isinstance(doc, dict)
    assert doc["sessionId"] == "old-gen-1111"
    code, err = history("agent:main:one", "--around", "m-old", "--session-id", "nope-nope")
    assert code == 2
    assert "not a generation" in str(err)


@pytest.mark.slow
def test_delete_takes_a_prefix(store: Path) -> None:
    r = run_cli("delete", "abcd", "--yes")
    assert r.exit_code == 2
    assert "3 sessions match" in r.stderr
    assert run_cli("delete", "old-gen", "--yes").exit_code == 0  # that generation only
    code, doc = history("agent:main:one")
    assert code == 0
    assert isinstance(doc, dict)
    assert doc["sessionId"] == "abcd1234-aaaa"
    assert run_cli("export", "old-gen-1111", "--json").exit_code == 2
    assert run_cli("delete", "ffee", "--yes").exit_code == 0
    assert history("agent:main:three")[0] == 2
