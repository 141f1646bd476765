"""Redaction of the secret shapes people paste (tests/secret_shapes.py), disguises included,
and the folded view that matching runs on."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from redact_cases import FRAGMENTS, IN_A_LINE, in_every_context, leaks
from secret_shapes import Shape, shapes

from openclaw_sessions.redact import build_redactor
from openclaw_sessions.redact import view as redact_fold

RED = build_redactor()
SHAPES = shapes()


def test_the_corpus_is_broad() -> None:
    assert len(SHAPES) >= 80
    families = {s.family.split("-")[0] for s in SHAPES}
    for family in (
        "yaml",
        "env",
        "ini",
        "netrc",
        "pgpass",
        "mysql",
        "curl",
        "url",
        "pem",
        "pgp",
        "vendor",
        "azure",
        "discord",
        "escaped",
        "fullwidth",
        "cyrillic",
        "zero",
    ):
        assert family in families, family  # fmt: skip
    texts = [s.text for s in SHAPES]
    assert len(set(texts)) == len(texts)


@pytest.mark.parametrize("shape", SHAPES, ids=[s.family for s in SHAPES])
def test_shape_is_masked(shape: Shape) -> None:
    out = RED.redact_text(shape.text)
    assert out != shape.text
    for secret in shape.secrets:
        assert secret not in out, out
        assert not leaks(secret, out), out


@pytest.mark.parametrize("shape", SHAPES, ids=[s.family for s in SHAPES])
def test_shape_redaction_is_idempotent_and_gated_like_ungated(shape: Shape) -> None:
    once = RED.redact_text(shape.text)
    assert RED.redact_text(once) == once
    assert RED._run(shape.text, [], gate=False) == once


# Dash runs (a Markdown table's rule, a horizontal rule, "--" before a flag): the "-" pass
# checks a short anchor's own condition at the hit, so a run of dashes is no hit; next to one,
# every shape is still found as the ungated rules find it.
_LINE_FAMILIES = {"pgpass"}


@pytest.mark.parametrize("shape", SHAPES, ids=[s.family for s in SHAPES])
def test_shapes_in_tables_and_next_to_dashes_are_gated_like_ungated(shape: Shape) -> None:
    """The anchors only say when a rule must run: in every context the output is the one
    every rule run on the whole text gives, and no secret is left."""
    line_only = shape.family in _LINE_FAMILIES
    in_every_context(RED, shape, lambda template: line_only and template in IN_A_LINE)


def test_masks_keep_the_text_around_them_as_written() -> None:
    body = "Ab3" * 12
    out = RED.redact_text(f"« ｇｈｐ＿{body} »")
    assert out == f"« ｇｈｐ＿{body[:2]}…{body[-4:]} »"  # the kept edges are the original's
    out = RED.redact_text("key \u0455k-ant-api03-" + body + " ok")
    assert out == f"key \u0455k-ant…{body[-4:]} ok"
    zw = "ghp_" + body[:10] + "\u200b" + body[10:]
    assert RED.redact_text(f"x {zw} y") == f"x ghp_{body[:2]}…{body[-4:]} y"


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("ｇｈｐ＿abc", "ghp_abc"),  # full-width: NFKC
        ("\u0455k-ant", "sk-ant"),  # Cyrillic dze next to ASCII
        ("x\u03bfxb-1", "xoxb-1"),  # Greek omicron
        ("gh\u200bp_a\u200bb", "ghp_ab"),  # format characters inside a token
        ("ﬁle-x", "file-x"),  # a ligature: two characters from one
        ("密码：abc", "密码:abc"),  # a full-width colon before ASCII
    ],
)
def test_the_folded_view(text: str, folded: str) -> None:
    view = redact_fold.view(text)
    assert view is not None
    assert view.text == folded


@pytest.mark.parametrize(
    "text",
    [
        "hello world",
        "привет, как дела? пароль не скажу.",  # Cyrillic prose: homoglyphs touch no ASCII
        "注意：这是一个测试。",  # a full-width colon inside Chinese
        "family 👨\u200d👩\u200d👧 photo",  # emoji joiners
        "café naïve façade",
        "Ελληνικά κείμενα",
    ],
)
def test_ordinary_text_does_not_fold(text: str) -> None:
    assert redact_fold.view(text) is None


def test_offsets_map_back_across_removed_and_expanded_characters() -> None:
    text = "ab\u200b\u200bcd\ufb01gh"  # two removed, then one character that folds to two
    view = redact_fold.view(text)
    assert view is not None
    assert view.text == "abcdfigh"
    assert [view.start(i) for i in range(9)] == [0, 1, 4, 5, 6, 6, 7, 8, 9]
    assert [view.end(i) for i in range(9)] == [0, 1, 2, 5, 6, 7, 7, 8, 9]


def test_key_block_missing_its_end_line_is_masked_to_the_end_of_its_body() -> None:
    body = "\n".join("MII" + "Ab9" * 20 for _ in range(3))
    out = RED.redact_text(f"half:\n-----BEGIN RSA PRIVATE KEY-----\n{body}\n\nthen prose.")
    assert out == "half:\n-----BEGIN RSA PRIVATE KEY-----\n…redacted…\n\nthen prose."


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("password: see vault", "password: see vault"),  # a word followed by prose
        ("the token: it expires hourly", "the token: it expires hourly"),
        ("password: changeme", "password: ***"),  # a word alone on its line is a password
        ("db_password: ${DB_PASSWORD}", "db_password: ${DB_PASSWORD}"),  # references stay
        ("password: {{ vault_db_password }}", "password: {{ vault_db_password }}"),
        ("api_key = os.environ['API_KEY']", "api_key = os.environ['API_KEY']"),
        ("token = get_token()", "token = get_token()"),
        ("password_file: /run/secrets/db", "password_file: /run/secrets/db"),
        ("max_tokens: 4096", "max_tokens: 4096"),
        ("bos_token: <s>", "bos_token: <s>"),
        ("sessionKey: agent:main:main", "sessionKey: agent:main:main"),
        ("secret: true", "secret: true"),
        ("password: !vault |", "password: !vault |"),
        ("--password-file ./pw.txt", "--password-file ./pw.txt"),
        ("mkdir -p /srv/app && docker run -p 8080:80 nginx", None),
    ],
)
def test_names_and_values_that_are_not_secrets(text: str, expected: str | None) -> None:
    assert RED.redact_text(text) == (text if expected is None else expected)


NEW_FRAGMENTS = [
    "key-", "KEY-----", "-----BEGIN PGP PRIVATE KEY BLOCK-----", "password: ", "Password is ",
    " -p", " --password=", "mysql", " -u root", "curl -u a:", "keytool -storepass ", "\u0455",
    "\u200b", "：", "ｇｈｐ＿", "api_key", "DB_PASS=", "SECRET_KEY_BASE", "_b64", "://", "@",
    "https://", "token=", "&", "?", "sig=", "<password>", "</password>", "machine x login y ",
    "requirepass ", "\n", "  ", "|", "'", '"', "\\", "\\n", "echo x | ", "--password-stdin",
    "sudo -S", "chpasswd", "p\u0430ss", "AccountKey=", "xoxe.", "whsec_", "SK", "htpasswd -b ",
    ": |\n  ", "host:5432:db:user:", "IDENTIFIED BY '", "<add key=\"Password\" value=\"",
] + [s.text[:24] for s in SHAPES[::5]]  # fmt: skip


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(st.sampled_from(NEW_FRAGMENTS + FRAGMENTS), max_size=30))
def test_anchors_never_hide_a_match_of_the_new_families(parts: list[str]) -> None:
    """Each family's anchors are a necessary condition: gated equals ungated."""
    text = "".join(parts)
    assert RED._run(text, [], gate=True) == RED._run(text, [], gate=False)


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Password: Tr0ub4dor&3xyz", "Password: "),
        ("password: p@ss;w0rd!x", "password: "),
        ("token: ab&cd&ef12345678", "token: "),
        ("db_password=hunter2;x;y", "db_password="),
    ],
)
def test_separators_inside_a_bare_value_are_part_of_it(text: str, kept: str) -> None:
    out = build_redactor().redact_text(text)
    assert out.startswith(kept)
    secret = text[len(kept) :]
    assert not any(part in out for part in secret.replace(";", "&").split("&") if len(part) > 2)


def test_a_following_pair_still_ends_a_bare_value() -> None:
    r = build_redactor()
    assert r.redact_text("pass=foo&bar=baz&user=x").endswith("&bar=baz&user=x")
    assert r.redact_text("password: abc, user: bob").endswith(", user: bob")


def test_a_half_key_block_hides_its_short_last_line_and_keeps_the_prose_after() -> None:
    body = "MIIEowIBAAKCAQEA" + "q" * 40
    out = build_redactor().redact_text(
        f"-----BEGIN RSA PRIVATE KEY-----\n{body}\nXy7+ab\n\nThanks, what do you think?"
    )
    assert "Xy7+ab" not in out
    assert body[:20] not in out
    assert out.endswith("\n\nThanks, what do you think?")
