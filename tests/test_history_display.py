"""`history --as` shows messages as upstream's sessions_history returns them: after the
gateway's display projection (chat.history's projectChatDisplayMessages). The operator's
view (no --as) keeps what was stored. Through the real CLI on real SQLite files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import Session, installed, json_out, run_cli, write_sessions_json

from openclaw_sessions.policy import display, sanitize

KEY = "agent:main:main"
AS = ("--as", KEY)


def sig(phase: str | None, item: str = "msg_1") -> str:
    """A text block's textSignature as upstream writes it."""
    return json.dumps({"v": 1, "id": item, **({"phase": phase} if phase else {})})


def text(t: str, phase: str | None = None) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": t}
    if phase is not None:
        block["textSignature"] = sig(phase)
    return block


CALL = {"type": "toolCall", "id": "call_1", "name": "exec", "arguments": {"cmd": "ls"}}


def assistant(s: Session, content: Any, **extra: Any) -> str:
    return s.add({"message": {"role": "assistant", "content": content, **extra}})


def load(root: Path, s: Session) -> None:
    sessions = root / "agents" / "main" / "sessions"
    s.write(sessions / f"{s.session_id}.jsonl")
    write_sessions_json(sessions, {KEY: {"sessionId": s.session_id}})
    r = run_cli("import", str(root), "--reindex")
    assert r.exit_code == 0, r.stderr


def hist(*args: str) -> dict[str, Any]:
    r = run_cli("history", KEY, *args, "--json")
    assert r.exit_code in (0, 1), r.stderr
    out: dict[str, Any] = json_out(r)
    return out


def mid(m: dict[str, Any]) -> str:
    """A message's id: the operator's ``id``, an agent's ``__openclaw.id`` (upstream's)."""
    return str(m["id"] if "id" in m else m["__openclaw"]["id"])


def by_id(out: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {mid(m): m for m in out["messages"]}


def test_phased_text_keeps_the_final_answer_and_commentary_only_turns_are_hidden(
    tmp_path: Path,
) -> None:
    s = Session()
    s.user("plan it")
    both = assistant(
        s,
        [
            {"type": "thinking", "thinking": "weighing"},
            text("Let me check the files.", "commentary"),
            text("[[reply_to_current]] Done: 3 files.", "final_answer"),
        ],
    )
    only_commentary = assistant(s, [text("Looking around first.", "commentary")])
    said_commentary = assistant(s, [text("Working on it.")], phase="commentary")
    said_final = assistant(s, [text("Final words.")], phase="final_answer")
    unphased = assistant(s, [text("No phase at all.")])
    load(tmp_path / "src", s)

    shown = hist(*AS)
    got = by_id(shown)
    assert got[both]["content"] == [
        {"type": "thinking", "thinking": "weighing"},
        {"type": "text", "text": " Done: 3 files."},
    ]
    assert only_commentary not in got
    assert said_commentary not in got  # upstream drops them
    assert got[said_final]["phase"] == "final_answer"
    assert got[said_final]["content"] == [{"type": "text", "text": "Final words."}]
    assert got[unphased]["content"] == [{"type": "text", "text": "No phase at all."}]
    # offsets count the stored messages (upstream's transcript records): the page is short
    assert "totalMessages" not in shown  # upstream: paging fields only when offset was given
    shown = hist(*AS, "--offset", "0")
    assert shown["totalMessages"] == 6
    assert len(shown["messages"]) == 4
    assert shown["hasMore"] is False
    assert "nextOffset" not in shown

    mine = by_id(hist())  # the operator: what was stored (signatures dropped, as always)
    assert len(mine) == 6
    assert mine[said_commentary]["phase"] == "commentary"
    assert [b.get("text") for b in mine[both]["content"]] == [
        None,
        "Let me check the files.",
        "[[reply_to_current]] Done: 3 files.",
    ]


def test_text_with_tool_calls_is_shown_as_its_text_and_tool_call_only_turns_stay(
    tmp_path: Path,
) -> None:
    s = Session()
    s.user("list files")
    mixed = assistant(
        s,
        [{"type": "thinking", "thinking": "hm"}, text("Listing now. [[audio_as_voice]]"), CALL],
        phase="commentary",
        stopReason="toolUse",
    )
    calls_only = assistant(s, [CALL], stopReason="toolUse")
    s.tool("a.txt b.txt")
    answer = assistant(s, [text("Two files.")])
    load(tmp_path / "src", s)

    got = by_id(hist(*AS))
    assert got[mixed]["content"] == [{"type": "text", "text": "Listing now. "}]
    assert "phase" not in got[mixed]
    assert got[mixed]["stopReason"] == "toolUse"
    assert got[calls_only]["content"] == [CALL]  # no text to show: kept as it is
    assert got[answer]["content"] == [{"type": "text", "text": "Two files."}]
    tools = by_id(hist(*AS, "--include-tools"))
    assert len(tools) == 5
    assert tools[mixed]["content"] == got[mixed]["content"]

    mine = by_id(hist())
    assert mine[mixed]["phase"] == "commentary"
    assert len(mine[mixed]["content"]) == 3


def test_directive_tags_are_removed_as_the_gateway_removes_them(tmp_path: Path) -> None:
    """stripInlineDirectiveTagsForDisplay: the tag goes, the spaces around it stay; any
    case and inner spaces; Markdown code keeps its examples; every role."""
    s = Session()
    asked = s.user("[[reply_to: 123]] please answer")
    a = assistant(s, [text("[[reply_to_current]] Hello")])
    b = assistant(s, [text("Sure [[ Reply_To : msg-9 ]] thing\n[[AUDIO_AS_VOICE]]")])
    c = assistant(s, [text("Use `[[reply_to_current]]` like this.")])
    d = s.add({"message": {"role": "assistant", "content": "plain [[audio_as_voice]]string"}})
    empty = s.user("[[reply_to_current]]")  # nothing left: upstream hides the user turn
    load(tmp_path / "src", s)

    got = by_id(hist(*AS))
    assert got[asked]["content"] == [{"type": "text", "text": " please answer"}]
    assert got[a]["content"][-1] == {"type": "text", "text": " Hello"}
    assert got[b]["content"][-1]["text"] == "Sure  thing\n"
    assert got[c]["content"][-1]["text"] == "Use `[[reply_to_current]]` like this."
    assert got[d]["content"] == "plain string"
    assert empty not in got

    mine = by_id(hist())
    assert mine[a]["content"][-1]["text"] == "[[reply_to_current]] Hello"
    assert mine[empty]["content"] == [{"type": "text", "text": "[[reply_to_current]]"}]


def test_caps_and_bytes_count_what_is_shown(tmp_path: Path) -> None:
    """The 4000-unit cut and the 80 KiB page apply to the projected messages."""
    s = Session()
    s.user("go")
    long = assistant(s, [text("x" * 5000, "commentary"), text("y" * 4500, "final_answer")])
    for i in range(30):  # 30 x 3 KiB of commentary the page no longer carries
        assistant(s, [text(f"{i} " + "c" * 3000, "commentary"), text(f"short {i}", "final_answer")])
    load(tmp_path / "src", s)

    shown = hist(*AS)
    assert by_id(shown)[long]["content"] == [
        {"type": "text", "text": "y" * 4000 + sanitize.TRUNCATED_SUFFIX}
    ]
    pending = sanitize.json_bytes(shown["pendingInputs"])  # upstream counts it in
    assert shown["bytes"] == sanitize.json_bytes(shown["messages"]) + pending < 16 * 1024
    assert shown["contentTruncated"] is True
    assert shown["droppedMessages"] is False
    assert len(shown["messages"]) == 32

    mine = hist()  # the operator's page carries the commentary: the 80 KiB cap drops some
    assert mine["droppedMessages"] is True
    assert len(mine["messages"]) < 32


def test_what_the_gateway_removed_is_no_truncation(tmp_path: Path) -> None:
    """Upstream's gateway drops thinking signatures and image data before sessions_history
    looks, so its flags stay false; an image's bytes are the base64 text's length."""
    s = Session()
    s.user("hi")
    assistant(s, [{"type": "thinking", "thinking": "t", "thinkingSignature": "S" * 50}])
    image = {"type": "image", "data": "enl4aW1hZ2U=", "mimeType": "image/png"}
    s.add({"message": {"role": "user", "content": [image]}})
    load(tmp_path / "src", s)

    shown = hist(*AS)
    assert shown["contentTruncated"] is False
    assert shown["truncated"] is False
    assert "thinkingSignature" not in json.dumps(shown)
    assert shown["messages"][-1]["content"] == [
        {"type": "image", "mimeType": "image/png", "omitted": True, "bytes": 12}
    ]
    mine = hist()  # the operator's own sanitising flags them, and decodes the bytes
    assert mine["contentTruncated"] is True
    assert mine["messages"][-1]["content"][0]["bytes"] == 8


def test_paging_and_around_skip_hidden_messages(tmp_path: Path) -> None:
    s = Session()
    visible = []
    hidden = []
    for i in range(12):
        visible.append(s.user(f"q{i}"))
        hidden.append(assistant(s, [text(f"thinking aloud {i}", "commentary")]))
        visible.append(assistant(s, [text(f"answer {i}", "final_answer")]))
    load(tmp_path / "src", s)

    seen: list[str] = []
    offset = 0
    while True:
        page = hist(*AS, "--limit", "5", "--offset", str(offset))
        seen = [mid(m) for m in page["messages"]] + seen
        assert page["totalMessages"] == 36
        if not page["hasMore"]:
            break
        assert page["nextOffset"] > offset
        offset = page["nextOffset"]
    assert seen == visible

    r = run_cli("history", KEY, "--around", hidden[5], "--json", *AS)
    assert r.exit_code == 1
    assert json_out(r)["messages"] == []
    # --limit counts stored messages around the anchor (upstream reads that many transcript
    # records, then projects them): a4, q5 and the hidden commentary after q5
    around = hist("--around", visible[10], "--limit", "3", *AS)
    assert [mid(m) for m in around["messages"]] == [visible[9], visible[10]]
    assert len(hist("--around", hidden[5])["messages"]) > 0  # the operator sees it


def test_search_context_as_a_caller_is_projected(tmp_path: Path) -> None:
    s = Session()
    hit = s.user("zqneedle where is it")
    assistant(s, [text("searching", "commentary")])
    reply = assistant(s, [text("[[reply_to_current]] Here.", "final_answer")])
    load(tmp_path / "src", s)

    r = run_cli("search", "zqneedle", "--json", "-C", "2", *AS)
    assert r.exit_code == 0, r.stderr
    result = json_out(r)["results"][0]
    assert result["messageId"] == hit
    assert [(m["id"], m["content"]) for m in result["context"]["after"]] == [
        (reply, [{"type": "text", "text": " Here."}])
    ]
    mine = json_out(run_cli("search", "zqneedle", "--json", "-C", "2"))["results"][0]
    assert len(mine["context"]["after"]) == 2


def test_installed_command_shapes_the_as_view_only(tmp_path: Path) -> None:
    s = Session()
    s.user("hello")
    a = assistant(s, [text("[[reply_to_current]]Hi!", "final_answer"), CALL])
    load(tmp_path / "src", s)
    state = tmp_path / "state"
    r = installed("history", KEY, "--json", *AS, state=state)
    assert r.returncode == 0, r.stderr
    assert by_id(json.loads(r.stdout))[a]["content"] == [{"type": "text", "text": "Hi!"}]
    r = installed("history", KEY, "--json", state=state)
    assert len(by_id(json.loads(r.stdout))[a]["content"]) == 2


# --- the pure projection ------------------------------------------------------------------------
def test_signature_phases_follow_upstreams_parser() -> None:
    assert display.signature_phase(sig("commentary")) == "commentary"
    assert display.signature_phase(sig("final_answer")) == "final_answer"
    assert display.signature_phase(sig(None)) is None
    assert display.signature_phase("msg_plain_id") is None
    assert display.signature_phase('{"v": 2, "phase": "commentary"}') is None
    assert display.signature_phase('{"v": true, "phase": "commentary"}') is None
    assert display.signature_phase('{"v": 1.0, "phase": "commentary"}') == "commentary"
    assert display.signature_phase('{"v": 1, "phase": "other"}') is None
    assert display.signature_phase("{not json") is None
    assert display.signature_phase('{"v": NaN}') is None


def test_projection_edge_cases() -> None:
    mixed_phases = {"role": "assistant", "content": [text("a", "commentary"), text("b")]}
    assert display.project(mixed_phases) is None  # one phase among the phased blocks
    two = {"role": "assistant", "content": [text("a", "commentary"), text("b", "final_answer")]}
    assert display.project(two) == {"role": "assistant", "content": [text("b", "final_answer")]}
    emptied = {"role": "assistant", "phase": "final_answer", "content": [text("a", "commentary")]}
    assert display.project(emptied) == {"role": "assistant", "phase": "final_answer", "content": []}
    forwarded = {
        "role": "assistant",
        "phase": "commentary",
        "content": [text("x")],
        "provenance": {"kind": "inter_session", "sourceTool": "sessions_send"},
    }
    assert display.project(forwarded) == forwarded
    assert display.project({"role": "user", "content": "hi", "display": False}) is None
    fenced = "```\n[[reply_to_current]]\n```\n[[reply_to_current]]x"
    assert display.strip_directive_tags(fenced) == "```\n[[reply_to_current]]\n```\nx"
    details = {"role": "toolResult", "toolCallId": "c", "details": {"diff": "+a", "big": "b"}}
    assert display.project(details)["details"] == {"diff": "+a"}  # type: ignore[index]
    usage = {"role": "assistant", "content": [], "usage": {"weird": 1}, "cost": {"total": 0.1}}
    assert display.project(usage) == {"role": "assistant", "content": [], "cost": {"total": 0.1}}
