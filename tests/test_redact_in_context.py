"""Issues 33 and 34: the shapes in context (tests/secret_shapes_in_context.py) are masked in
every output and the index, in every context, as the ungated rules mask them; the references and
public identifiers beside them stay readable and searchable; quoted, form and query values of a
secret's key are masked whole, as upstream masks them."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from helpers import json_out, run_cli
from redact_cases import IN_A_LINE, in_every_context, index_shapes, leaks, shown
from secret_shapes_in_context import LANGUAGES, READABLE, Shape4, shapes

from openclaw_sessions.redact import build_redactor

RED = build_redactor()
SHAPES = shapes()
# Families that only hold on their own lines (a list under its heading, a pair over two lines).
_LINE_FAMILIES = ("codes-", "k8s-", "compose-", "terraform-", "aws-configure", "jwk-oct")


def test_the_corpus_is_broad() -> None:
    families = {s.family.split("-")[0] for s in SHAPES}
    for family in ("form", "query", "digest", "aws4", "aws", "mms", "key", "json", "k8s", "ecs",
                   "call", "lang", "jwk", "codes", "app"):  # fmt: skip
        assert family in families, family
    assert len([s for s in SHAPES if s.family.startswith("lang-")]) == len(LANGUAGES) >= 30
    assert len({s.text for s in SHAPES}) == len(SHAPES)


@pytest.mark.parametrize("shape", SHAPES, ids=[s.family for s in SHAPES])
def test_shape_is_masked(shape: Shape4) -> None:
    out = RED.redact_text(shape.text)
    for secret in shape.secrets:
        assert secret not in out, out
        assert not leaks(secret, out), out


@pytest.mark.parametrize("shape", SHAPES, ids=[s.family for s in SHAPES])
def test_shape_is_gated_like_ungated_in_every_context(shape: Shape4) -> None:
    once = RED.redact_text(shape.text)
    assert RED.redact_text(once) == once
    assert RED._run(shape.text, [], gate=False) == once
    line_only = shape.family.startswith(_LINE_FAMILIES)
    in_every_context(RED, shape, lambda template: line_only and template in IN_A_LINE)


@pytest.mark.parametrize("text", READABLE)
def test_references_and_public_identifiers_stay_readable(text: str) -> None:
    assert RED.redact_text(text) == text
    assert RED._run(text, [], gate=False) == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"apiKey": "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvWx"}', '{"apiKey": "***"}'),
        ("client_secret = 'NI7Z9kWrKnR4Ae28UZ5ErtPp'", "client_secret = '***'"),
        ("body: token=PjBSnAuxKfvI3cZoKVGSom5lSe1Zkl&grant_type=refresh",
         "body: token=***&grant_type=refresh"),
        ("https://x.io/cb?code=1&client_secret=Zq8xW2vB7nM4kL9pR3tYabc",
         "https://x.io/cb?code=1&client_secret=***"),
        ('response="6629fae49393a05397450978507c4ef1", opaque="x"', None),
        ("x-pomerium-jwt-assertion:\nnext line here", "x-pomerium-jwt-assertion:\nnext line here"),
        ("X-OpenClaw-Token: \n  next line here", "X-OpenClaw-Token: \n  next line here"),
        # a token after a quote keeps its readable kind when it is no key's value
        ("here: ghp_6tcVy4DHkmLrDzq9qStxuUsNh6AV1iB8PP1X", "here: ghp_6t…PP1X"),
    ],
)  # fmt: skip
def test_masked_forms(text: str, expected: str | None) -> None:
    assert RED.redact_text(text) == (text if expected is None else expected)


def test_a_bare_aws_secret_needs_upstreams_shape() -> None:
    """40 characters of the key alphabet with both cases and a digit; not hex, not in a URL."""
    key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"  # AWS's documented example
    assert key not in RED.redact_text(f"key {key} here")
    for kept in ("3f2a9c1e8b7d6f5a4c3b2a1908e7d6c5b4a39281",  # a commit: hex
                 "abcdefghijklmnopqrstuvwxyzabcdefghijklmn",  # one case
                 f"https://example.com/{key}"):  # fmt: skip
        assert RED.redact_text(kept) == kept


def test_call_arguments_that_are_no_passwords_stay() -> None:
    for text in ('login("alice", "bob")', 'connect("db.example.com", "user1")',
                 'auth=("bob", os.environ["PW"])',
                 'client.login(user, "${PASSWORD}")'):  # fmt: skip
        assert RED.redact_text(text) == text


# --- the index and the outputs ------------------------------------------------------------------
WORDS = re.compile(r"[A-Za-z0-9]+")


@pytest.fixture
def indexed(tmp_path: Path, state: Path) -> Path:
    index_shapes(tmp_path / "src", "r4-all", "zzfour", SHAPES, READABLE)
    return state / "agents" / "main" / "openclaw-sessions.sqlite"


def test_no_shape_in_context_reaches_an_output_or_the_index(indexed: Path) -> None:
    outputs = [
        run_cli(*args).stdout
        for args in (
            ["search", "zzfour", "--limit", "1000", "--json", "--max-bytes", "0"],
            ["history", "agent:main:main", "--limit", "1000", "--include-tools", "--json"],
        )
    ]
    seen = "\n".join(outputs)
    assert "zzfour" in seen
    assert not shown(SHAPES, seen)
    conn = sqlite3.connect(indexed)
    rows = "\n".join(t for (t,) in conn.execute("SELECT text FROM index_rows"))
    conn.close()
    assert not shown(SHAPES, rows)


@pytest.mark.parametrize(
    "query", ["secretsmanager", "publishable", "NEXT_PUBLIC_STRIPE_KEY",
              "getpass", "bearerAuth", "LOG_LEVEL"],
)  # fmt: skip
def test_references_are_found_by_search(indexed: Path, query: str) -> None:
    hits = json_out(run_cli("search", "--json", "--limit", "100", "--", query))["results"]
    assert any("zzref" in h["snippet"] for h in hits), query
