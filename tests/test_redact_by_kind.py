"""Issue 23 part 3: the shapes by kind (tests/secret_shapes_by_kind.py) are masked in every
output, the index and its vocabulary, with the readable part of a multi-part token kept; the
references and ordinary technical text beside them stay readable and searchable."""

from __future__ import annotations

import json
import re
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from helpers import json_out, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from redact_cases import IN_A_LINE, in_every_context, index_shapes, leaks, shown
from secret_shapes_by_kind import Shape3, b58check, references, shapes

from openclaw_sessions.redact import build_redactor
from openclaw_sessions.redact.rules import files as redact_files

RED = build_redactor()
SHAPES = shapes()
REFS = references()
KINDS = ("keylist", "envname", "chat", "files", "ai", "azdo", "csv", "wallet", "wifi",
         "presigned", "login", "authfile", "admin", "plain", "disguise")  # fmt: skip
# Families that only hold on their own line or with their table (a header and its rows).
_LINE_FAMILIES = {
    "csv",
    "keylist-table",
    "chat-zuliprc",
    "login-heroku",
    "wallet-phrase-24",
    "disguise-wrapped-token",
    "disguise-wrapped-backslash",
}


def test_the_corpus_is_broad() -> None:
    assert len(SHAPES) >= 150
    counts = Counter(s.kind for s in SHAPES)
    assert set(counts) == set(KINDS), counts
    assert all(n >= 2 for n in counts.values()), counts
    texts = [s.text for s in SHAPES]
    assert len(set(texts)) == len(texts)


@pytest.mark.parametrize("shape", SHAPES, ids=[s.family for s in SHAPES])
def test_shape_is_masked_and_its_readable_part_kept(shape: Shape3) -> None:
    out = RED.redact_text(shape.text)
    for secret in shape.secrets:
        assert secret not in out, out
        assert not leaks(secret, out), out
    for kept in shape.kept:
        assert kept in out, out


@pytest.mark.parametrize("shape", SHAPES, ids=[s.family for s in SHAPES])
def test_shape_is_gated_like_ungated_in_every_context(shape: Shape3) -> None:
    once = RED.redact_text(shape.text)
    assert RED.redact_text(once) == once
    assert RED._run(shape.text, [], gate=False) == once
    line_only = shape.kind in _LINE_FAMILIES or shape.family in _LINE_FAMILIES
    in_every_context(RED, shape, lambda t: line_only and (t in IN_A_LINE or t.startswith("| ")))


@pytest.mark.parametrize("text", REFS)
def test_references_and_technical_text_stay_readable(text: str) -> None:
    assert RED.redact_text(text) == text
    assert RED._run(text, [], gate=False) == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("token: ${{ secrets.GITHUB_TOKEN }}", None),
        ("Authorization: Bearer $TOKEN", None),
        ("apiKey: process.env.OPENAI_API_KEY", None),
        ('"apiKey": "${OPENAI_API_KEY}"', None),
        ("secret: db-credentials", None),
        ("use nvapi-" + "Ab3" * 22 + " now", "use nvapi-Ab3Ab3…3Ab3 now"),
        ("WIFI:T:WPA;S:Home;P:Tr0ub4dor&3xyz;;", "WIFI:T:WPA;S:Home;P:***;;"),
    ],
)
def test_masked_forms(text: str, expected: str | None) -> None:
    assert RED.redact_text(text) == (text if expected is None else expected)


def test_wif_needs_its_checksum() -> None:
    good = b58check(b"\x80" + bytes(range(32)) + b"\x01")
    assert redact_files.b58check(good) is not None
    bad = good[:-1] + ("2" if good[-1] != "2" else "3")
    assert RED.redact_text(f"importprivkey {good}") != f"importprivkey {good}"
    assert RED.redact_text(f"id {bad} ok") == f"id {bad} ok"  # a random base58 string stays


def test_a_table_without_a_secret_column_stays() -> None:
    text = "name,role,team\nbob,admin,ops\nalice,dev,web"
    assert RED.redact_text(text) == text
    text = "We need the user, token\nthen call it, done"  # prose with commas
    assert RED.redact_text(text) == text


FRAGMENTS = [s.text[: n] for s in SHAPES[::3] for n in (12, 40)] + [
    " key ", " is ", "password ", "login ", "WIFI:", ";P:", "/hooks/", ",Secret access key",
    "\t", "|", "[1,2,", "JQQJ", "AZDO", "xprv", "K", "L", "5", "c", "9", "SEC", "dG9rO", " | ",
    "net use ", "\\\\", "sqlplus ", "a/", "@", "\n", " ", "_SECRET_", "=", ":", "0x", "-----",
]  # fmt: skip


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=25))
def test_anchors_never_hide_a_match_of_the_families_by_kind(parts: list[str]) -> None:
    text = "".join(parts)
    assert RED._run(text, [], gate=True) == RED._run(text, [], gate=False)


@pytest.mark.parametrize("name", ["pro_SECRET_https", "db_token_x", "A_PWD_v1"])
def test_a_secret_word_inside_a_short_name_is_anchored(name: str) -> None:
    """Found by the property above: `NAME_SECRET_x: value` with fewer than 8 characters
    between the word's `_` and the separator was never tried with the anchors on."""
    text = f"Host: db.{name}://chat.example.com/v1/spaces/AAAAxyz?key=1"
    assert RED._run(text, [], gate=True) == RED._run(text, [], gate=False)
    assert "spaces/AAAA" not in RED.redact_text(text)


# --- through the CLI: every output, the index and its vocabulary --------------------------------
WORDS = re.compile(r"[^\W_]+")


def _middles(secret: str) -> set[str]:
    middle = secret[6:-4] if len(secret) >= 18 else secret
    return {t.lower() for t in WORDS.findall(middle) if len(t) >= 8}


@pytest.fixture
def indexed(tmp_path: Path, state: Path) -> Path:
    index_shapes(tmp_path / "src", "r3-all", "zzthree", SHAPES, REFS)
    return state / "agents" / "main" / "openclaw-sessions.sqlite"


def test_no_shape_by_kind_reaches_an_output_or_the_index(indexed: Path) -> None:
    outputs = [
        run_cli(*args).stdout
        for args in (
            ["search", "zzthree", "--limit", "1000", "--json", "--max-bytes", "0"],
            ["search", "zzthree", "--limit", "1000", "--max-bytes", "0"],
            ["history", "agent:main:main", "--limit", "1000", "--include-tools", "--json"],
        )
    ]
    seen = "\n".join(outputs)
    assert "zzthree" in seen
    assert not shown(SHAPES, seen)
    conn = sqlite3.connect(indexed)
    rows = "\n".join(t for (t,) in conn.execute("SELECT text FROM index_rows"))
    conn.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, index_fts, row)")
    vocab = {t for (t,) in conn.execute("SELECT term FROM temp.v")}
    conn.close()
    assert not shown(SHAPES, rows)
    assert not [(s.family, t) for s in SHAPES for x in s.secrets for t in _middles(x)
                if t in vocab]  # fmt: skip


@pytest.mark.parametrize(
    "query",
    ["OPENAI_API_KEY", "process", "GITHUB_TOKEN", "secrets", "credentials", "creds",
     "TOKEN", "print-access-token", "wildcard"],
)  # fmt: skip
def test_references_are_found_by_search(indexed: Path, query: str) -> None:
    hits = json_out(run_cli("search", "--json", "--limit", "100", "--", query))["results"]
    assert any("zzref" in h["snippet"] or query.lower() in json.dumps(h).lower() for h in hits)
