"""Nothing hidden leaks out (issue #15 C): redaction of every field, explain counts, session-id
resolution, existence oracles, terminal injection, markup/emoji, import issues and errors."""

from __future__ import annotations

import json
import random
import re
import string
from pathlib import Path
from typing import Any

from conftest import Session, json_out, run_cli, write_store

_R = random.Random(15)
GHP = "ghp_" + "".join(_R.choice(string.ascii_letters + string.digits) for _ in range(36))
SK = "sk-ant-api03-" + "".join(_R.choice(string.ascii_letters + string.digits) for _ in range(60))
SECRETS = (GHP, SK)
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def leaked(text: str) -> list[str]:
    """The planted secrets whose unmasked middle appears in ``text``."""
    return [s for s in SECRETS if s[6:-4] in text]


def sdir(root: Path, agent: str = "main") -> Path:
    return root / "agents" / agent / "sessions"


def imported(root: Path) -> None:
    r = run_cli("import", str(root), "--reindex")
    assert r.exit_code in (0, 4), r.output


# --- C1: history --json --include-tools redacts every field ---------------------------------


def hostile_message_session(root: Path) -> None:
    s = Session("c1-1")
    s.user("hello zzc1")
    s.add({"message": {"role": "assistant", "content": {"kind": "object", "token": GHP}}})
    s.add({"message": {"role": "assistant", "content": [
        {"type": "redacted_thinking", "data": f"opaque {SK}"},
        {"type": "my_custom_block", "payload": {"nested": [f"x {GHP}"]}, GHP: "key is secret"},
        {"type": "text", "text": "visible zzc1 answer"},
        f"a bare string block {SK}",
    ], "metadata": {"note": f"api key {SK}"}, "provider": f"prov {GHP}",
        "attachments": [{"name": "a.txt", "body": f"file body {GHP}"}]}})  # fmt: skip
    s.tool(f"tool output {SK}")
    s.write(sdir(root) / "c1-1.jsonl")
    write_store(sdir(root), {"agent:main:main": {"sessionId": "c1-1"}})


def test_history_json_include_tools_redacts_every_field(tmp_path: Path) -> None:
    hostile_message_session(tmp_path / "src")
    imported(tmp_path / "src")
    for extra in ((), ("--include-tools",)):
        r = run_cli("history", "agent:main:main", "--json", *extra)
        assert r.exit_code == 0
        assert leaked(r.stdout) == [], extra
        out = json_out(r)
        assert out["contentRedacted"] is True
    body = json.dumps(out, ensure_ascii=False)
    # Walked, not dropped: the unknown fields are still there, masked.
    for kept in ("redacted_thinking", "my_custom_block", "payload", "metadata", "attachments",
                 "a bare string block", "file body", "tool output"):  # fmt: skip
        assert kept in body, kept
    assert "ghp_" + GHP[4:6] + "…" + GHP[-4:] in body  # the mask, also as an object key
    table = run_cli("history", "agent:main:main", "--include-tools")
    assert table.exit_code == 0 and leaked(table.stdout + table.stderr) == []


# --- C2: --explain counts only redacted, visible text -----------------------------------------


def explain_session(root: Path) -> None:
    s = Session("c2-1")
    s.user("first question")
    fork = s.leaf
    # An abandoned branch: a tool call carrying the secret, and plain text with a word.
    s.add({"message": {"role": "assistant", "content": [
        {"type": "toolCall", "id": "c", "name": "exec", "arguments": {"token": GHP}},
        {"type": "text", "text": f"the zzabandoned word and the key {GHP}"}]}})  # fmt: skip
    s.assistant("the active reply", parent=fork)
    s.write(sdir(root) / "c2-1.jsonl")
    inc = Session("c2-2")
    inc.user("zzincognito words")
    fork = inc.leaf
    inc.user("zzincabandoned words")
    inc.assistant("reply", parent=fork)
    inc.write(sdir(root) / "c2-2.jsonl")
    store = {"agent:main:main": {"sessionId": "c2-1"}}
    store["agent:main:dashboard:incognito-z"] = {"sessionId": "c2-2"}
    write_store(sdir(root), store)


def why(term: str) -> dict[str, Any]:
    r = run_cli("search", term, "--json", "--explain")
    assert r.exit_code == 1, (term, r.output)
    (item,) = json_out(r)["explain"]["agents"]["main"]["why"]
    return dict(item)


def test_explain_counts_only_redacted_visible_text(tmp_path: Path) -> None:
    explain_session(tmp_path / "src")
    imported(tmp_path / "src")
    assert why("zzabandoned")["abandonedOrUnindexedMatches"] == 1  # visible text still counts
    # A secret cannot be recovered one character at a time from the counts: neither its
    # characters in the tool call nor in the (masked) text are counted.
    for n in (8, 12, 20, 30, len(GHP)):
        assert why(GHP[:n])["abandonedOrUnindexedMatches"] == 0, n
    assert why(GHP[10:30])["abandonedOrUnindexedMatches"] == 0
    assert why("exec")["abandonedOrUnindexedMatches"] == 0  # a tool name is not text
    # Incognito sessions count nowhere: neither their indexed text nor their branches.
    inc = why("zzincognito")
    assert inc["indexedMatches"] == 0 and inc["abandonedOrUnindexedMatches"] == 0
    assert why("zzincabandoned")["abandonedOrUnindexedMatches"] == 0


def test_explain_counts_unindexed_sessions_with_the_index_rules(tmp_path: Path) -> None:
    s = Session("c2-3")
    s.user("Ünïcödé café crème zzpending")
    s.write(sdir(tmp_path / "src") / "c2-3.jsonl")
    write_store(sdir(tmp_path / "src"), {"agent:main:main": {"sessionId": "c2-3"}})
    assert run_cli("import", str(tmp_path / "src")).exit_code == 0  # not indexed
    w = why("zzpending")
    assert w["abandonedOrUnindexedMatches"] == 1 and "abandonedOrUnindexedCapped" not in w
