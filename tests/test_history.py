"""`history` through the real CLI on real SQLite files: paging, windows, caps, visibility."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers import (
    Session,
    active_seqs,
    branchy,
    expected_ids,
    json_out,
    parse_entries,
    query,
    run_cli,
    write_sessions_json,
)

from openclaw_sessions.model.when import to_epoch_ms
from openclaw_sessions.policy import sanitize

CAP = 80 * 1024


def sdir(root: Path, agent: str = "main") -> Path:
    return root / "agents" / agent / "sessions"


def load(root: Path, sessions: dict[str, Session], agent: str = "main") -> None:
    """Write transcripts + store for one agent under ``root`` and import them."""
    for s in sessions.values():
        s.write(sdir(root, agent) / f"{s.session_id}.jsonl")
    write_sessions_json(
        sdir(root, agent), {k: {"sessionId": s.session_id} for k, s in sessions.items()}
    )
    r = run_cli("import", str(root))
    assert r.exit_code == 0, r.stderr


def hist(*args: str) -> tuple[int, dict[str, Any]]:
    r = run_cli("history", *args, "--json")
    return r.exit_code, (json_out(r) if r.stdout.strip() else {"stderr": r.stderr})


def ids(out: dict[str, Any]) -> list[str]:
    return [m["id"] for m in out["messages"]]


def all_pages(key: str, *extra: str, limit: int | None = None) -> list[str]:
    """Page from the newest back with nextOffset; returns ids oldest first."""
    pages: list[list[str]] = []
    offset = 0
    while True:
        args = [key, "--offset", str(offset), *extra]
        if limit is not None:
            args += ["--limit", str(limit)]
        code, out = hist(*args)
        assert code in (0, 1), out
        pages.append(ids(out))
        assert out["offset"] == offset
        if not out["hasMore"]:
            assert "nextOffset" not in out
            break
        assert out["nextOffset"] > offset
        offset = out["nextOffset"]
    return [i for page in reversed(pages) for i in page]


# ---------------------------------------------------------------------------------------------
# Paging


@pytest.mark.slow
@pytest.mark.parametrize("limit", [1, 7, 50, None])
@pytest.mark.parametrize("tools", [False, True])
def test_paging_covers_every_active_message_exactly_once(
    tmp_path: Path, limit: int | None, tools: bool
) -> None:
    s = branchy()
    load(tmp_path / "src", {"agent:main:main": s})
    extra = ["--include-tools"] if tools else []
    got = all_pages("main", *extra, limit=limit)
    assert got == expected_ids(s, tools=tools)
    assert len(got) == len(set(got))


def test_default_page_is_the_newest_200_oldest_first(tmp_path: Path) -> None:
    s = Session()
    for i in range(125):
        s.user(f"u{i}")
        s.assistant(f"a{i}")
    load(tmp_path / "src", {"agent:main:main": s})
    code, out = hist("main")
    want = expected_ids(s)
    assert code == 0
    assert ids(out) == want[-200:]
    assert (out["offset"], out["nextOffset"], out["hasMore"], out["totalMessages"]) == (
        0,
        200,
        True,
        250,
    )
    ts = [m["timestamp"] for m in out["messages"]]
    assert ts == sorted(ts)
    code, out = hist("main", "--offset", "200")
    assert ids(out) == want[:50]
    assert out["hasMore"] is False
    code, out = hist("main", "--offset", "250")
    assert code == 1
    assert out["messages"] == []
    assert out["hasMore"] is False


@pytest.mark.slow
def test_abandoned_branches_never_appear(tmp_path: Path) -> None:
    s = branchy(20)
    load(tmp_path / "src", {"agent:main:main": s})
    abandoned = [x["id"] for x in s.lines if "abandoned" in json.dumps(x)]
    abandoned += [x["id"] for x in s.lines if "first try 0" in json.dumps(x)]  # regenerated away
    assert abandoned
    code, out = hist("main", "--include-tools", "--limit", "1000")
    text = json.dumps(out)
    assert code == 0
    assert "abandoned" not in text
    assert "first try 0" not in text
    for mid in abandoned:
        code, out = hist("main", "--around", mid)
        assert code == 1
        assert out["messages"] == []


def test_tools_hidden_by_default_and_shown_capped_with_the_flag(tmp_path: Path) -> None:
    s = Session()
    s.user("run it")
    s.add(
        {
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "toolCall", "id": "c1", "name": "exec", "arguments": {"cmd": "ls"}}
                ],
            }
        }
    )
    s.tool("x" * 5000)
    s.assistant("done")
    load(tmp_path / "src", {"agent:main:main": s})
    code, out = hist("main")
    assert [m["role"] for m in out["messages"]] == ["user", "assistant", "assistant"]
    assert out["totalMessages"] == 3
    assert out["contentTruncated"] is False
    code, out = hist("main", "--include-tools")
    roles = [m["role"] for m in out["messages"]]
    assert roles == ["user", "assistant", "toolResult", "assistant"]
    tool = out["messages"][2]["content"][0]["text"]
    assert tool == "x" * 4000 + "\n…(truncated)…"
    assert out["contentTruncated"] is True
    assert out["truncated"] is True
    assert out["droppedMessages"] is False


# ---------------------------------------------------------------------------------------------
# Sanitising


def test_usage_cost_details_signatures_and_images(tmp_path: Path) -> None:
    s = Session()
    s.add(
        {
            "message": {
                "role": "user",
                "content": [
                    {"type": "image", "data": "enl4aW1hZ2U=", "mimeType": "image/png"},
                    {"type": "text", "text": "look"},
                ],
            }
        }
    )
    s.add(
        {
            "message": {
                "role": "assistant",
                "usage": {"input": 5},
                "cost": 1,
                "content": [
                    {"type": "thinking", "thinking": "hm", "thinkingSignature": "S" * 300},
                    {"type": "text", "text": "ok"},
                ],
            }
        }
    )
    load(tmp_path / "src", {"agent:main:main": s})
    code, out = hist("main")
    user, assistant = out["messages"]
    assert user["content"][0] == {
        "type": "image",
        "mimeType": "image/png",
        "omitted": True,
        "bytes": 8,
    }
    assert "usage" not in assistant
    assert "cost" not in assistant
    assert "thinkingSignature" not in json.dumps(out)
    assert out["contentTruncated"] is True
    assert out["droppedMessages"] is False
    assert set(user) >= {"role", "content", "timestamp", "id"}
    assert out["sessionId"] == "s1"
    assert out["sessionKey"] == "agent:main:main"


SECRETS = {
    "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789",
    "ghp_abcdefghijklmnopqrstuvwxyz0123456789AB",
    "hunter2hunter2hunter2",
}


def test_secrets_are_masked_everywhere(tmp_path: Path) -> None:
    s = Session()
    s.user("my key is sk-proj-abcdefghijklmnopqrstuvwxyz0123456789 ok")
    s.assistant(
        "noted ghp_abcdefghijklmnopqrstuvwxyz0123456789AB",
        thinking="PASSWORD=hunter2hunter2hunter2",
    )
    s.add(
        {
            "message": {
                "role": "assistant",
                "content": [
                    {
                        "type": "toolCall",
                        "id": "c",
                        "name": "exec",
                        "arguments": {"cmd": "export TOKEN=hunter2hunter2hunter2"},
                    }
                ],
            }
        }
    )
    s.tool("output: api_key=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789")
    load(tmp_path / "src", {"agent:main:main": s})
    code, out = hist("main", "--include-tools")
    text = json.dumps(out, ensure_ascii=False)
    assert code == 0
    assert out["contentRedacted"] is True
    for secret in SECRETS:
        assert secret not in text
    r = run_cli("history", "main", "--include-tools")
    for secret in SECRETS:
        assert secret not in r.stdout


# ---------------------------------------------------------------------------------------------
# Byte caps, exact at the boundaries


def _user_blocks(s: Session, nbytes: int, fill: str) -> str:
    """Add a user message whose output JSON (with its id and timestamp) takes ``nbytes``."""
    eid = f"{len(s.lines):08x}"
    ms = s.ts0 + (s.n + 1) * 1000  # the timestamp Session.add will give the line

    def shaped(blocks: list[str]) -> dict[str, Any]:
        return {
            "role": "user",
            "content": [{"type": "text", "text": b} for b in blocks],
            "timestamp": ms,
            "id": eid,
        }

    blocks: list[str] = []
    while sanitize.json_bytes(shaped([*blocks, fill * 4000])) <= nbytes:
        blocks.append(fill * 4000)
    rest = nbytes - sanitize.json_bytes(shaped([*blocks, ""]))
    assert 0 <= rest <= 4000
    blocks.append(fill * rest)
    msg = shaped(blocks)
    assert sanitize.json_bytes(msg) == nbytes
    del msg["timestamp"], msg["id"]
    return s.add({"message": msg}, id=eid)


@pytest.mark.parametrize("over", [0, 1])
def test_page_cap_boundary(tmp_path: Path, over: int) -> None:
    s = Session()
    a = _user_blocks(s, 40_000 + over, "a")
    b = _user_blocks(s, CAP - 3 - 40_000, "b")
    load(tmp_path / "src", {"agent:main:main": s})
    code, out = hist("main")
    assert code == 0
    if not over:
        assert ids(out) == [a, b]
        assert out["bytes"] == CAP
        assert not out["droppedMessages"]
        assert not out["truncated"]
        assert not out["hasMore"]
    else:
        assert ids(out) == [b]
        assert out["bytes"] == CAP - 40_001
        assert out["droppedMessages"]
        assert out["truncated"]
        assert not out["contentTruncated"]
        assert (out["hasMore"], out["nextOffset"]) == (True, 1)
        assert ids(hist("main", "--offset", "1")[1]) == [a]
    body = sanitize.dumps(out["messages"]).encode()
    assert out["bytes"] == len(body)


@pytest.mark.parametrize("over", [0, 1])
def test_single_oversized_message_becomes_the_placeholder(tmp_path: Path, over: int) -> None:
    s = Session()
    first = s.user("before")
    big = _user_blocks(s, CAP - 2 + over, "z")
    load(tmp_path / "src", {"agent:main:main": s})
    code, out = hist("main")
    assert code == 0
    if not over:
        assert ids(out) == [big]
        assert out["bytes"] == CAP
    else:
        (msg,) = out["messages"]
        assert msg["content"] == "[sessions_history omitted: message too large]"
        assert msg["id"] == big
        assert msg["role"] == "assistant"
        assert out["bytes"] == len(sanitize.dumps(out["messages"]).encode())
    assert out["droppedMessages"]
    assert out["truncated"]
    assert out["nextOffset"] == 1
    assert ids(hist("main", "--offset", "1")[1]) == [first]


@pytest.mark.parametrize("over", [0, 1])
def test_around_cap_boundary_grows_older_first(tmp_path: Path, over: int) -> None:
    s = Session()
    old = _user_blocks(s, 20_000, "o")
    mid = _user_blocks(s, 20_000, "m")
    new = _user_blocks(s, CAP - 4 - 40_000 + over, "n")
    load(tmp_path / "src", {"agent:main:main": s})
    code, out = hist("main", "--around", mid)
    assert code == 0
    assert "offset" not in out
    assert out["totalMessages"] == 3
    if not over:
        assert ids(out) == [old, mid, new]
        assert out["bytes"] == CAP
        assert not out["droppedMessages"]
    else:
        assert ids(out) == [old, mid]
        assert out["droppedMessages"]
        assert out["truncated"]


def test_an_offset_beside_around_is_ignored(tmp_path: Path) -> None:
    """Upstream's sessions_history ignores offset whenever messageId is given, whatever its
    value (PR #141664: strict-schema clients send 0 for an omitted integer)."""
    s = Session()
    first = s.user("one")
    mid = s.user("two")
    s.user("three")
    load(tmp_path / "src", {"agent:main:main": s})
    alone = hist("main", "--around", mid)
    for extra in ([], ["--as", "main"]):
        assert hist("main", "--around", mid, "--offset", "0", *extra) == hist(
            "main", "--around", mid, *extra
        )
    assert alone[0] == 0
    assert ids(alone[1])[0] == first
    assert "offset" not in alone[1]
    for extra in ([], ["--as", "main"]):
        assert hist("main", "--offset", "4", "--around", mid, *extra) == hist(
            "main", "--around", mid, *extra
        )


def test_text_cut_flags_at_4000(tmp_path: Path) -> None:
    for n, cut in ((4000, False), (4001, True)):
        s = Session()
        s.user("q" * n)
        shutil.rmtree(tmp_path, ignore_errors=True)
        load(tmp_path / "src", {"agent:main:main": s})
        out = hist("main")[1]
        assert out["contentTruncated"] is cut
        assert out["truncated"] is cut
        assert out["messages"][0]["content"][0]["text"].endswith("…(truncated)…") is cut


# ---------------------------------------------------------------------------------------------
# --around, search hits and generations


def test_around_a_search_hit(tmp_path: Path) -> None:
    s = Session()
    for i in range(30):
        s.user(f"user words {i}" + (" zanzibarquux" if i == 17 else ""))
        s.assistant(f"reply {i}")
    load(tmp_path / "src", {"agent:main:main": s})
    assert run_cli("reindex").exit_code == 0
    hit = json_out(run_cli("search", "zanzibarquux", "--json"))["results"][0]
    code, out = hist(
        hit["sessionKey"],
        "--around",
        hit["messageId"],
        "--session-id",
        hit["sessionId"],
        "--limit",
        "5",
    )
    assert code == 0
    assert hit["messageId"] in ids(out)
    want = expected_ids(s)
    at = want.index(hit["messageId"])
    assert ids(out) == want[at - 2 : at + 3]
    assert out["totalMessages"] == 60
    assert "hasMore" not in out
    table = run_cli("history", "main", "--around", hit["messageId"], "--limit", "3")
    assert table.exit_code == 0
    marked = [ln for ln in table.stdout.splitlines() if "▶" in ln]
    assert len(marked) == 1
    assert hit["messageId"] in marked[0]
    assert "◀" in marked[0]


def test_around_at_the_edges_fills_from_the_other_side(tmp_path: Path) -> None:
    s = Session()
    for i in range(10):
        s.user(f"u{i}")
    load(tmp_path / "src", {"agent:main:main": s})
    want = expected_ids(s)
    assert ids(hist("main", "--around", want[0], "--limit", "4")[1]) == want[:4]
    assert ids(hist("main", "--around", want[-1], "--limit", "4")[1]) == want[-4:]
    assert ids(hist("main", "--around", want[5], "--limit", "100")[1]) == want


def test_older_generations(tmp_path: Path) -> None:
    src = tmp_path / "src"
    old = Session("gen-old")
    old.user("first life quasarword")
    old_mid = old.assistant("old reply")
    load(src, {"agent:main:main": old})
    (sdir(src) / "gen-old.jsonl").rename(sdir(src) / "gen-old.jsonl.reset.2026-01-02T00-00-00.000Z")
    new = Session("gen-new")
    new.user("second life")
    load(src, {"agent:main:main": new})
    code, out = hist("main")
    assert out["sessionId"] == "gen-new"
    assert [m["id"] for m in out["messages"]] == expected_ids(new)
    code, out = hist("main", "--around", old_mid)  # found in an older generation
    assert code == 0
    assert out["sessionId"] == "gen-old"
    assert old_mid in ids(out)
    code, out = hist("main", "--around", old_mid, "--session-id", "gen-old")
    assert code == 0
    assert old_mid in ids(out)
    code, out = hist("gen-old")  # a session id as KEY pages that generation
    assert out["sessionKey"] == "agent:main:main"
    assert out["sessionId"] == "gen-old"
    assert ids(out) == expected_ids(old)
    r = run_cli("history", "main", "--around", old_mid, "--session-id", "nope")
    assert r.exit_code == 2
    assert "--session-id is not a generation of this session" in r.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--session-id", "s1"], "--session-id requires --around"),
        (["--limit", "0"], "limit must be a positive integer"),
        (["--offset", "-1"], "offset must be a non-negative integer"),
        (["--visibility", "world", "--as", "main"], "visibility must be one of"),
    ],
)
def test_invalid_combinations(tmp_path: Path, args: list[str], message: str) -> None:
    load(tmp_path / "src", {"agent:main:main": branchy(2)})
    r = run_cli("history", "main", *args)
    assert r.exit_code == 2
    assert message in r.stderr
    assert "Traceback" not in r.stderr


def test_exit_codes_and_unknown_sessions(tmp_path: Path) -> None:
    load(tmp_path / "src", {"agent:main:discord:direct:bob": branchy(2, "bob")})
    assert hist("agent:main:discord:direct:bob")[0] == 0
    assert hist("bob")[0] == 0  # a session id
    code, out = hist("main")  # the agent's main exists by convention but has no transcript
    assert code == 1
    assert out["messages"] == []
    code, out = hist("agent:main:nosuch")
    assert (code, out["status"]) == (2, "error")
    assert out["error"] == "No session found: agent:main:nosuch"  # upstream's words for a key


# ---------------------------------------------------------------------------------------------
# Visibility: the same decisions as search


def _world(root: Path) -> None:
    keys = {
        "agent:main:main": ("m0", {}),
        "agent:main:subagent:kid": ("k0", {"spawnedBy": "agent:main:main"}),
        "agent:main:discord:direct:bob": ("b0", {}),
        "agent:main:dashboard:incognito-zz": ("i0", {}),
    }
    store = {}
    for key, (sid, extra) in keys.items():
        s = Session(sid)
        s.user("shared visibilityword")
        s.write(sdir(root) / f"{sid}.jsonl")
        store[key] = {"sessionId": sid, **extra}
    write_sessions_json(sdir(root), store)
    ops = Session("o0")
    ops.user("shared visibilityword")
    ops.write(sdir(root, "ops") / "o0.jsonl")
    write_sessions_json(sdir(root, "ops"), {"agent:ops:main": {"sessionId": "o0"}})
    assert run_cli("import", str(root), "--reindex").exit_code == 0


def _status(r: Any) -> tuple[str | None, str | None]:
    if r.exit_code != 2:
        return None, None
    out = json_out(r)
    return out["status"], out["error"].replace("search", "history")


@pytest.mark.slow
def test_visibility_denials_match_search(tmp_path: Path) -> None:
    _world(tmp_path / "src")
    targets = [
        "agent:main:main",
        "main",
        "agent:main:subagent:kid",
        "b0",
        "agent:ops:main",
        "agent:main:dashboard:incognito-zz",
        "agent:main:unknown",
    ]
    seen = set()
    for caller in ("main", "agent:main:subagent:kid", "agent:main:discord:direct:bob"):
        for vis in ("self", "tree", "agent", "all"):
            for sandboxed in ([], ["--sandboxed"]):
                for target in targets:
                    mode = ["--as", caller, "--visibility", vis, *sandboxed]
                    s = run_cli("search", "visibilityword", "--session", target, *mode, "--json")
                    h = run_cli("history", target, *mode, "--json")
                    assert _status(h) == _status(s), (caller, vis, sandboxed, target)
                    seen.add(_status(h)[0])
    assert seen == {None, "forbidden", "error"}
    r = run_cli("history", "agent:main:dashboard:incognito-zz", "--json")  # operator mode
    assert r.exit_code == 2
    assert json_out(r)["status"] == "forbidden"


# ---------------------------------------------------------------------------------------------
# Table mode


def test_off_a_terminal_text_is_printed_as_stored(tmp_path: Path) -> None:
    s = Session()
    s.user("how do I **bold**?")
    s.assistant("Use **double stars** like [this](https://example.com/x).\n\n" + "w " * 200)
    s.tool("tool line one\ntool line two")
    load(tmp_path / "src", {"agent:main:main": s})
    r = run_cli("history", "main", "--utc")
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert lines[0] == "user  2026-01-01 00:00 UTC  00000001"
    assert lines[1] == "how do I **bold**?"
    # no Markdown rendering, no wrapping, the link target kept: the text as stored
    assert "Use **double stars** like [this](https://example.com/x)." in lines
    assert ("w " * 200).rstrip() in [ln.rstrip() for ln in lines]
    assert "thinking: hmm" in r.stdout
    assert "tool line" not in r.stdout
    assert "2 of 2 messages shown" in r.stderr
    r = run_cli("history", "main", "--include-tools")
    assert "← exec: tool line one\ntool line two\n" in r.stdout  # whole, not one line


# ---------------------------------------------------------------------------------------------
# Real transcripts


@pytest.mark.slow
def test_real_corpus(corpus: Path, tmp_path: Path) -> None:
    files = sorted(p for p in corpus.rglob("*.jsonl*") if not p.name.endswith(".lock"))
    assert files
    assert run_cli("import", *map(str, files), "--reindex").exit_code in (0, 4)
    rows = query(
        tmp_path / "state",
        "SELECT transcript_id, session_key, session_id, source_path"
        " FROM transcripts ORDER BY transcript_id",
    )
    assert rows
    hits = query(
        tmp_path / "state", "SELECT transcript_id, message_id FROM index_rows WHERE seq % 7 = 0"
    )
    for tid, key, sid, path in rows:
        lines = [ln for ln in Path(path).read_text("utf-8").splitlines() if ln.strip()]
        entries = parse_entries(lines)
        want = [e for e in entries if e.type == "message"]
        active = set(active_seqs(entries))
        want_ids = [e.entry_id for e in want if e.seq in active]
        want_visible = [
            e.entry_id for e in want if e.seq in active and e.role not in ("toolResult", "tool")
        ]
        assert all_pages(sid) == want_visible, path
        assert all_pages(sid, "--include-tools", limit=40) == want_ids, path
        code, out = hist(sid, "--include-tools", "--limit", "1000")
        assert out["bytes"] == len(sanitize.dumps(out["messages"]).encode()) <= CAP
        for m in out["messages"]:
            assert to_epoch_ms(m["timestamp"]) is not None
            assert m["id"]
            assert not {"usage", "cost", "details"} & set(m)
            for b in m["content"] if isinstance(m.get("content"), list) else []:
                assert not any(k.endswith("Signature") for k in b)
                assert b.get("type") != "image" or ("data" not in b and b["omitted"] is True)
        for hit_tid, mid in hits:
            if hit_tid == tid:
                code, out = hist(key, "--around", mid, "--session-id", sid, "--limit", "9")
                assert code == 0, (path, mid)
                assert mid in ids(out), (path, mid)
                at = want_visible.index(mid)
                first, last = sanitize.count_window(len(want_visible), at, 9)
                window = want_visible[first:last]
                got = ids(out)
                if not out["droppedMessages"]:
                    assert got == window, (path, mid)
                else:  # the byte cap trimmed it: still a contiguous run around the anchor
                    k = window.index(got[0])
                    assert window[k : k + len(got)] == got


def test_lone_surrogates_do_not_break_the_output(tmp_path: Path) -> None:
    s = Session()
    s.user("placeholder")
    path = sdir(tmp_path / "src") / "s1.jsonl"
    s.write(path)
    path.write_text(path.read_text("utf-8").replace("placeholder", "bad \\ud800 pair"), "utf-8")
    write_sessions_json(sdir(tmp_path / "src"), {"agent:main:main": {"sessionId": "s1"}})
    assert run_cli("import", str(tmp_path / "src")).exit_code == 0
    code, out = hist("main")
    assert code == 0
    assert out["messages"][0]["content"][0]["text"] == "bad \ufffd pair"
    assert out["bytes"] == len(sanitize.dumps(out["messages"]).encode())
    assert run_cli("history", "main").exit_code == 0


def test_as_caps_the_limit_at_upstreams_1000(tmp_path: Path) -> None:
    s = Session()
    for i in range(1005):  # no entry times: 1000 of them fit in 80 KiB with their metadata
        s.add({"message": {"role": "user", "content": "x"}, "timestamp": None}, id=f"{i:x}")
    load(tmp_path / "src", {"agent:main:main": s})
    code, out = hist("main", "--limit", "5000")
    assert len(out["messages"]) == 1005
    assert out["hasMore"] is False
    code, out = hist("main", "--limit", "5000", "--as", "main", "--offset", "0")
    assert len(out["messages"]) == 1000
    assert (out["nextOffset"], out["hasMore"]) == (1000, True)
    assert out["totalMessages"] == 1005
    assert not out["droppedMessages"]
    assert out["messages"][0]["__openclaw"]["seq"] == 6


def test_operator_reads_other_agents_and_current_means_main(tmp_path: Path) -> None:
    _world(tmp_path / "src")
    code, out = hist("agent:ops:main")
    assert code == 0
    assert out["sessionId"] == "o0"
    assert hist("current")[1]["sessionKey"] == "agent:main:main"
    assert hist("o0")[1]["sessionKey"] == "agent:ops:main"


def test_think_tags_and_tool_call_xml_are_kept_as_upstream_sessions_history_does(
    tmp_path: Path,
) -> None:
    """Decision (issue #14): upstream's docs say recalled assistant text loses `<think>` tags
    and tool-call XML, but its code does not do that in sessions_history: the tool
    (src/agents/tools/sessions-history-tool.ts, stored at 00d38cfd80ea) only redacts and cuts
    text blocks; the gateway's chat.history projection it reads
    (src/gateway/chat-display-projection.ts, 006148272b3c) strips inline directive tags and
    commentary-phase text, not think tags; the stripper
    (src/shared/text/assistant-visible-text.ts, profile "history") serves sessions_send and
    announce replies (src/agents/tools/chat-history-text.ts, 0190128d69a6); and the index
    (session-transcript-projection-append.ts) stores text blocks as they are. So we keep them,
    in `history` and in the index, redacted like any text."""
    text = ("<think>zqthinkword weighing options</think>Use the blue one. "
            '<tool_call>{"name": "exec", "arguments": {"cmd": "ls"}}</tool_call>')  # fmt: skip
    s = Session("think-1")
    s.user("which one")
    s.add({"message": {"role": "assistant", "content": [{"type": "text", "text": text}]}})
    load(tmp_path / "src", {"agent:main:main": s})
    assert run_cli("reindex", "--quiet").exit_code == 0
    code, out = hist("agent:main:main")
    assert code == 0
    assert out["messages"][-1]["content"] == [{"type": "text", "text": text}]
    r = run_cli("search", "zqthinkword", "--json")
    assert r.exit_code == 0
    assert "<think>" in json_out(r)["results"][0]["snippet"]


# ---------------------------------------------------------------------------------------------
# --full: the operator reads whole conversations


FULL_SECRET = "ghp_" + "Z" * 36


def _long_session(tmp_path: Path) -> Session:
    s = Session()
    for i in range(150):
        s.user(f"question {i}")
        s.assistant(f"answer {i}")
    s.user("the big one " + "y" * 90_000 + " token " + FULL_SECRET)
    load(tmp_path / "src", {"agent:main:main": s, "agent:main:subagent:k": Session("k")})
    return s


def test_full_gives_every_message_whole_still_redacted(tmp_path: Path) -> None:
    _long_session(tmp_path)
    code, capped = hist("main")
    assert code == 0
    assert len(capped["messages"]) == 200
    assert capped["hasMore"] is True
    assert capped["contentTruncated"] is True  # the 90,000-character text was cut
    code, full = hist("main", "--full")
    assert code == 0
    assert len(full["messages"]) == full["totalMessages"] == 301
    assert full["hasMore"] is False
    assert full["truncated"] is False
    big = full["messages"][-1]["content"][0]["text"]
    assert "y" * 90_000 in big
    assert FULL_SECRET not in big
    assert "ghp_ZZ" in big
    assert full["bytes"] > CAP  # no 80 KiB page either
    assert hist("main", "--max-bytes", "0")[1] == full  # the same, spelled as a cap of none
    assert len(hist("main", "--full", "--limit", "5")[1]["messages"]) == 5
    plain = run_cli("history", "main", "--full")
    assert "y" * 90_000 in plain.stdout
    assert FULL_SECRET not in plain.stdout
    assert "301 of 301 messages shown" in plain.stderr


def test_max_bytes_sets_the_page_cap(tmp_path: Path) -> None:
    _long_session(tmp_path)
    code, out = hist("main", "--max-bytes", "2000")
    assert code == 0
    assert out["bytes"] <= 2000
    assert out["droppedMessages"] is True
    assert run_cli("history", "main", "--max-bytes", "-1").exit_code == 2


@pytest.mark.parametrize("lift", [["--full"], ["--max-bytes", "0"], ["--max-bytes", "100"]])
def test_full_and_max_bytes_are_refused_with_as(tmp_path: Path, lift: list[str]) -> None:
    _long_session(tmp_path)
    r = run_cli("history", "main", *lift, "--as", "agent:main:main")
    assert r.exit_code == 2
    assert r.stderr.startswith("error: --full and --max-bytes are for the")
    assert r.stderr.count("\n") == 1
    assert r.stdout == ""
