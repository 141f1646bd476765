"""No output of search (table, JSON, JSONL) or history ever carries a planted secret, and the
index never holds one: searching for a raw secret finds nothing."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from helpers import Session, json_out, run_cli, write_sessions_json
from redact_cases import CASES
from secret_shapes import shapes

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
    write_sessions_json(d, {"agent:main:main": {"sessionId": "sec-1"}})
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


# --- every shape, in every place a transcript can hold it, through every output -------------------
SHAPES = shapes()
WORDS = re.compile(r"[^\W_]+")


def _tokens(secret: str) -> set[str]:
    """What the index would hold of ``secret``'s hidden middle: its long unicode61-style tokens."""
    middle = secret[6:-4] if len(secret) >= 18 else secret
    return {t.lower() for t in WORDS.findall(middle) if len(t) >= 6}


@pytest.fixture
def everywhere(tmp_path: Path, state: Path) -> list[str]:
    """Each shape once: in user or assistant text, thinking, a tool call's arguments, a tool
    result, a custom entry, a session label, and a malformed line."""
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    s = Session("sec-all")
    store: dict[str, dict[str, object]] = {"agent:main:main": {"sessionId": "sec-all"}}
    for i, shape in enumerate(SHAPES):
        note = f"zzplant {i}: {shape.text} zzend"
        place = i % 7
        if place == 0:
            s.user(note)
        elif place == 1:
            s.assistant(note)
        elif place == 2:
            s.assistant(f"zzplant {i} thinking", thinking=note)
        elif place == 3:
            call = {"type": "toolCall", "id": f"c{i}", "name": "exec",
                    "arguments": {"command": note, "env": {"NOTE": shape.text}}}  # fmt: skip
            s.add({"message": {"role": "assistant", "content": [call]}})
        elif place == 4:
            s.tool(note)
        elif place == 5:
            s.add({"type": "custom_message", "customType": "note", "content": note,
                   "display": False})  # fmt: skip
            s.add({"type": "custom", "customType": "state", "data": {"note": note}})
        else:
            store[f"agent:main:telegram:direct:{i}"] = {"sessionId": f"lbl-{i}", "label": note}
    s.write(d / "sec-all.jsonl")
    bad = '{"type": "message", "id": "broken", "message": {"role": "user", "content": "'
    (d / "broken.jsonl").write_text(
        '{"type":"session","version":3,"id":"broken"}\n' + bad + SHAPES[0].text + "\n"
    )
    store["agent:main:broken"] = {"sessionId": "broken"}
    write_sessions_json(d, store)
    r = run_cli("import", str(tmp_path / "src"), "--reindex")
    assert r.exit_code in (0, 4), r.stderr
    return [r.stdout + r.stderr, run_cli("import", str(tmp_path / "src"), "--json").stdout]


def test_no_shape_leaves_through_any_output(everywhere: list[str], state: Path) -> None:
    outputs = list(everywhere)
    for args in (
        ["search", "zzplant", "--limit", "1000", "--max-bytes", "0"],
        ["search", "zzplant", "--limit", "1000", "--json", "--max-bytes", "0"],
        ["search", "zzplant", "--limit", "1000", "--jsonl"],
        ["search", "zzplant", "--explain"],
        ["search", "zzplant", "--explain", "--json"],
        ["history", "agent:main:main", "--limit", "1000"],
        ["history", "agent:main:main", "--limit", "1000", "--json"],
        ["history", "agent:main:main", "--limit", "1000", "--include-tools"],
        ["history", "agent:main:main", "--limit", "1000", "--include-tools", "--json"],
        ["status"],
        ["status", "--json"],
        ["reindex", "--full"],
    ):
        r = run_cli(*args)
        outputs.append(r.stdout + r.stderr)
    hits = json.loads(outputs[3])["results"]
    assert len(hits) >= len(SHAPES) * 2 // 7  # the user and assistant texts are all found
    around = run_cli("history", "agent:main:main", "--around", hits[0]["messageId"], "--json")
    outputs.append(around.stdout)
    seen = "\n".join(outputs)
    shown = json.loads(outputs[10])["messages"]  # history --include-tools --json
    kinds = {b.get("type") for m in shown if isinstance(m.get("content"), list)
             for b in m["content"] if "zzplant" in json.dumps(b)}  # fmt: skip
    assert {"text", "thinking", "toolCall"} <= kinds
    assert any(m["role"] == "toolResult" and "zzplant" in json.dumps(m) for m in shown)
    leaked = [(s.family, secret) for s in SHAPES for secret in s.secrets if secret in seen]
    assert not leaked


def test_no_shape_is_found_by_its_value_or_its_middle(everywhere: list[str]) -> None:
    for shape in SHAPES:
        for secret in shape.secrets:
            for query in {secret, secret[6:-4] if len(secret) >= 18 else secret}:
                r = run_cli("search", "--json", "--", query)
                assert r.exit_code in (0, 1), (shape.family, r.stderr)
                assert json_out(r)["results"] == [], (shape.family, query)


def test_no_shape_is_in_the_index_vocabulary(everywhere: list[str], state: Path) -> None:
    conn = sqlite3.connect(state / "agents" / "main" / "openclaw-sessions.sqlite")
    vocab: set[str] = set()
    for table in ("index_fts", "index_bigram"):
        conn.execute(f"CREATE VIRTUAL TABLE temp.v_{table} USING fts5vocab(main, {table}, row)")
        vocab |= {t for (t,) in conn.execute(f"SELECT term FROM temp.v_{table}")}
    conn.close()
    assert "zzplant" in vocab
    found = [(s.family, t) for s in SHAPES for secret in s.secrets for t in _tokens(secret)
             if t in vocab]  # fmt: skip
    assert not found


V1_FINGERPRINT = "207403ceb0fd66b8"  # the default rules before issue 16 (REDACTION_VERSION 1)


def test_an_index_built_under_the_old_rules_is_reindexed(tmp_path: Path, state: Path) -> None:
    from openclaw_sessions.redact import REDACTION_VERSION, build_redactor

    assert REDACTION_VERSION >= 2
    assert build_redactor().fingerprint != V1_FINGERPRINT
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    s = Session("old-1")
    shape = next(x for x in SHAPES if x.family == "env-DB_PASS")  # not masked by the old rules
    s.user(f"zzold {shape.text} zzend")
    s.write(d / "old-1.jsonl")
    write_sessions_json(d, {"agent:main:main": {"sessionId": "old-1"}})
    assert run_cli("import", str(tmp_path / "src"), "--reindex").exit_code == 0
    db = state / "agents" / "main" / "openclaw-sessions.sqlite"
    conn = sqlite3.connect(db)
    with conn:  # as the previous release left it
        conn.execute("UPDATE index_state SET redaction_fp = ?", (V1_FINGERPRINT,))
    conn.close()
    r = run_cli("status", "--json")
    assert r.exit_code == 4
    assert json_out(r)["redactionCurrent"] is False
    assert run_cli("reindex", "--quiet").exit_code == 0
    st = json_out(run_cli("status", "--json"))
    assert st["redactionCurrent"] is True
    conn = sqlite3.connect(db)
    fps = {fp for (fp,) in conn.execute("SELECT redaction_fp FROM index_state")}
    texts = [t for (t,) in conn.execute("SELECT text FROM index_rows")]
    conn.close()
    assert fps == {st["redactionFingerprint"]}
    assert texts
    assert not any(shape.secrets[0] in t for t in texts)
