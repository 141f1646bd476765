"""No output of search (table, JSON, JSONL) or history ever carries a planted secret, and the
index never holds one: searching for a raw secret finds nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import Session, json_out, run_cli, write_store
from test_redact import CASES

USER_SECRET = "ACME-INTERNAL-7731-XYZ"


@pytest.fixture
def planted(tmp_path: Path, state: Path) -> list[str]:
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    s = Session("sec-1")
    secrets = []
    for i, (_name, text, secret) in enumerate(CASES):
        say = s.user if i % 2 else s.assistant
        say(f"zzplant note {i}: {text} end")
        secrets.append(secret)
    s.user(f"zzplant internal id {USER_SECRET} end")
    s.assistant("zzplant OPENROUTER_API_KEY=sk-or-v1-" + "0123456789abcdef" * 4)
    s.write(d / "sec-1.jsonl")
    write_store(d, {"agent:main:main": {"sessionId": "sec-1"}})
    state.mkdir(parents=True, exist_ok=True)
    (state / "openclaw.json").write_text(json.dumps({"logging": {"redactPatterns": [
        "ACME-INTERNAL-[0-9]{4}-[A-Z]{3}"]}}))  # fmt: skip
    assert run_cli("import", str(tmp_path / "src"), "--reindex").exit_code == 0
    return [*secrets, USER_SECRET, "0123456789abcdef" * 4]


def test_no_output_contains_a_secret(planted: list[str]) -> None:
    outputs = []
    js = run_cli("search", "zzplant", "--limit", "1000", "--json", "--max-bytes", "0")
    hits = json_out(js)["results"]
    assert len(hits) == len(planted) - 1 + 1  # every planted message is found
    outputs.append(js.stdout)
    outputs.append(run_cli("search", "zzplant", "--limit", "1000", "--jsonl").stdout)
    outputs.append(run_cli("search", "zzplant", "--limit", "1000", "--max-bytes", "0").stdout)
    outputs.append(run_cli("history", "agent:main:main", "--limit", "1000", "--json").stdout)
    outputs.append(run_cli("history", "agent:main:main", "--limit", "1000").stdout)
    around = hits[0]["messageId"]
    outputs.append(run_cli("history", "agent:main:main", "--around", around, "--json").stdout)
    for out in outputs:
        assert out.strip()
        for secret in planted:
            assert secret not in out, secret
    assert "sk-or-…cdef" in json.dumps(hits, ensure_ascii=False)


def test_searching_for_a_raw_secret_finds_nothing(planted: list[str]) -> None:
    for secret in planted:
        r = run_cli("search", "--json", "--", secret)
        assert r.exit_code in (0, 1)
        found = json_out(r)["results"]
        assert all(secret not in h["snippet"] for h in found)
        assert found == [] or len(secret) < 12, secret
