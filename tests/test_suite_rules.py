"""How the tests themselves are kept readable: what they share comes from tests/helpers.py
(fixtures from conftest.py, which pytest loads; no test imports it), and files are named after
what they test, never after a round of work (`_r3`, `round3`)."""

from __future__ import annotations

import ast
import re

from helpers import REPO

TESTS = REPO / "tests"


def _imported_modules(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_no_test_imports_conftest() -> None:
    importing = [
        f.name
        for f in sorted(TESTS.glob("*.py"))
        if f.name != "conftest.py"
        and {"conftest", "tests.conftest"} & _imported_modules(ast.parse(f.read_text("utf-8")))
    ]
    assert importing == []


def test_no_file_is_named_after_a_round() -> None:
    rounds = [f.name for f in TESTS.glob("*.py") if re.search(r"_r\d+\b|round_?\d", f.stem)]
    assert rounds == []
