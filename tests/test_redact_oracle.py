"""Byte-for-byte comparison with upstream OpenClaw's own redactor (``redactToolPayloadText`` of
the installed package, run under node: tests/upstream_oracle.py) on every shape these tests use:
the family cases, the three sets of secret shapes, the references and ordinary text.

Every output equals upstream's except the deliberate differences, each of a listed kind (the
README's redaction section has the same table, with these counts): where ours differs, the
difference must be one of these kinds; a secret upstream hides that ours shows, or a readable
text ours changes while upstream keeps it, is no kind and fails.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path
from typing import NamedTuple

import pytest
import secret_shapes
import secret_shapes_by_kind
import secret_shapes_in_context
import test_redact
import test_redact_recall
from redact_cases import CASES, leaks
from upstream_oracle import oracle_missing, upstream_redact

from openclaw_sessions.redact import build_redactor

RED = build_redactor()
README = Path(__file__).resolve().parent.parent / "README.md"

# The deliberate differences, by kind (the README's table names them the same way).
KINDS = {
    "more": "we mask a secret upstream leaves in clear",
    "whole": "both mask it; ours masks the whole value (`***`), upstream keeps 6+4 characters",
    "extent": "both mask it; the mask's edges or form differ",
    "readable": "a reference, public identifier or ordinary text: ours keeps it, upstream masks",
}


class Item(NamedTuple):
    name: str
    text: str
    secrets: tuple[str, ...]


def items() -> list[Item]:
    """Every shape the redaction tests use, with the secrets each holds (none: keep it all)."""
    out = [Item(f"case:{n}", t, (s,)) for n, t, s in CASES]
    out += [Item(f"shape:{s.family}", s.text, s.secrets) for s in secret_shapes.shapes()]
    out += [Item(f"by-kind:{s.family}", s.text, s.secrets) for s in secret_shapes_by_kind.shapes()]
    out += [
        Item(f"in-context:{s.family}", s.text, s.secrets) for s in secret_shapes_in_context.shapes()
    ]
    readable = secret_shapes_by_kind.references() + list(secret_shapes_in_context.READABLE)
    readable += test_redact.PROSE
    rng = random.Random(1)
    readable += [test_redact_recall._fill(rng, t) for t in test_redact_recall.PROSE]
    readable += [test_redact_recall._fill(rng, t) for t in test_redact_recall.CODE]
    readable += [test_redact_recall._fill(rng, t) for t in test_redact_recall.LOGS]
    out += [Item(f"readable:{i}", t, ()) for i, t in enumerate(readable)]
    return out


def _hidden(secret: str, out: str) -> bool:
    return secret not in out and not leaks(secret, out)


def kind(item: Item, ours: str, theirs: str) -> str:
    """The kind of a difference, or "" when it is none of the deliberate ones."""
    if not item.secrets:
        return "readable" if ours == item.text else ""
    if not all(_hidden(s, ours) for s in item.secrets):
        return ""  # ours shows a secret: never deliberate
    if not all(_hidden(s, theirs) for s in item.secrets):
        return "more"
    if ours.count("***") > theirs.count("***") and "…" in theirs:
        return "whole"
    return "extent"


@pytest.fixture(scope="module")
def compared() -> list[tuple[Item, str, str]]:
    if why := oracle_missing():
        pytest.skip(f"upstream's redactor cannot run: {why}")
    its = items()
    theirs = upstream_redact([i.text for i in its])
    return [(i, RED.redact_text(i.text), t) for i, t in zip(its, theirs, strict=True)]


def test_every_difference_is_a_deliberate_kind(compared: list[tuple[Item, str, str]]) -> None:
    bad = [(i.name, i.text, ours, theirs) for i, ours, theirs in compared
           if ours != theirs and not kind(i, ours, theirs)]  # fmt: skip
    assert not bad, bad[:5]


def test_most_shapes_are_byte_for_byte_upstreams(compared: list[tuple[Item, str, str]]) -> None:
    same = sum(ours == theirs for _, ours, theirs in compared)
    assert len(compared) >= 600
    assert same >= len(compared) // 3, (same, len(compared))


def test_the_readme_lists_the_differences(compared: list[tuple[Item, str, str]]) -> None:
    counts = Counter(kind(i, o, t) for i, o, t in compared if o != t)
    same = sum(o == t for _, o, t in compared)
    text = README.read_text(encoding="utf-8")
    row = re.search(r"\| identical to upstream's \| (\d+) \|", text)
    assert row, ("README: identical", same)
    assert int(row.group(1)) == same, ("README: identical", same)
    for k in KINDS:
        m = re.search(rf"\| `{k}`: [^|]*\| (\d+) \|", text)
        assert m, (k, counts[k])
        assert int(m.group(1)) == counts[k], (k, counts[k])
