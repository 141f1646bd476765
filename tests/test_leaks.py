"""Nothing hidden leaks out (issue #15 C): redaction of every field, explain counts, session-id
resolution, existence oracles, terminal injection, markup/emoji, import issues and errors."""

from __future__ import annotations

import json
import random
import re
import string
from pathlib import Path

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
