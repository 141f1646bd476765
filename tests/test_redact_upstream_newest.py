"""Upstream's newest redact.test.ts cases (tests/redact_upstream_newest.py): ours hides every value
upstream's test says must not survive and keeps what it keeps; and, compared byte for byte with
upstream's own redactor (the installed package under node: tests/upstream_oracle.py), each case
is identical or one of the deliberate kinds of tests/test_redact_oracle.py, listed in DIFFERENT
(a case that turns identical or changes kind fails, so the table cannot go stale)."""

from __future__ import annotations

import pytest
from redact_cases import leaks
from redact_upstream_newest import CASES
from test_redact_oracle import Item, kind
from upstream_oracle import oracle_missing, upstream_redact

from openclaw_sessions.redact import build_redactor

RED = build_redactor()
IDS = [c[0] for c in CASES]

# case -> kind of its deliberate difference from upstream's redactor: test_redact_oracle.KINDS,
# and two kinds of values ours keeps readable on purpose (names.placeholder):
# "placeholder": words that repeat their key or name a secret object (`jwt=jwt-secret-123`);
# "reference": `$NAME`, a variable's name, is a reference (upstream masks it unless NAME is
# the key's own name).
DIFFERENT: dict[str, str] = {
    "aws-secret-json": "whole", "query-access-token": "whole", "json-token": "whole",
    "json-payment": "whole", "object-inspection": "whole", "query-payment": "whole",
    "query-opaque-keys": "whole", "diagnostic-quoted": "extent", "object-auth-headers": "extent",
    "auth-digest-aws4": "extent", "auth-hawk": "extent", "header-api-keys": "extent",
    "gateway-headers": "extent",
    "form-percent-encoded-keys": "extent", "placeholder-values": "placeholder",
    "env-literal-default": "whole",
    "env-reference-other-name": "reference",
}  # fmt: skip
# Not deliberate: what upstream's newest rules mask and ours does not yet (or over-masks). Each
# is asserted to still differ (a fix flips it: then move or drop its entry).
GAPS: dict[str, str] = {
    "diagnostic-names-kept": "over-mask: `{mytoken=visible}` (no secret key name) is masked",
}
_DELIBERATE_SHOWN = {"placeholder-values", "env-reference-other-name"}


def test_the_cases_are_upstreams_count() -> None:
    assert len(CASES) == len(set(IDS)) >= 39


def _holds(text: str, secrets: tuple[str, ...]) -> bool:
    out = RED.redact_text(text)
    if not secrets:
        return out == text
    return all(s not in out and not leaks(s, out) for s in secrets)


@pytest.mark.parametrize(("name", "text", "secrets"), CASES, ids=IDS)
def test_case_holds(name: str, text: str, secrets: tuple[str, ...]) -> None:
    if name in GAPS or name in _DELIBERATE_SHOWN:
        assert not _holds(text, secrets), f"{name} holds now: update GAPS/DIFFERENT"
    else:
        assert _holds(text, secrets), (name, RED.redact_text(text))


@pytest.fixture(scope="module")
def upstream() -> list[str]:
    if why := oracle_missing():
        pytest.skip(f"upstream's redactor cannot run: {why}")
    return upstream_redact([t for _, t, _ in CASES])


def test_upstreams_redactor_holds_its_own_cases(upstream: list[str]) -> None:
    """The cases are ported faithfully: upstream's redactor hides what its test says."""
    for (name, text, secrets), theirs in zip(CASES, upstream, strict=True):
        if not secrets:
            assert theirs == text, name
        assert all(s not in theirs for s in secrets), (name, theirs)


def test_each_case_is_identical_or_a_listed_difference(upstream: list[str]) -> None:
    got = {}
    for (name, text, secrets), theirs in zip(CASES, upstream, strict=True):
        ours = RED.redact_text(text)
        if ours != theirs:
            item = Item(name, text, secrets)
            got[name] = kind(item, ours, theirs) or DIFFERENT.get(name) or f"NONE: {ours!r}"
    assert got == {**DIFFERENT, **{n: f"NONE: {RED.redact_text(t)!r}" for n, t, _ in CASES
                                   if n in GAPS}}  # fmt: skip
