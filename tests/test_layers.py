"""The package's layers, read from its imports (ast): every import, at module level or inside a
function, under TYPE_CHECKING or not, points down the order below or stays in its own layer;
no module imports itself back through others; only the CLI talks to Typer and Rich.

    errors < settings < reports < model < policy | redact < config < secretrefs < store < index
    < ingest | read < live < mcp | remote < cli

`policy` and `redact` share a rank, and so do `ingest` and `read`, and `mcp` and `remote`:
neither imports the other (policy's sanitising takes any object with ``redact_text``). The
order is the data flow of the README's "How it is built": import -> store -> index -> read ->
render.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import REPO

PKG = REPO / "openclaw_sessions"
NAME = "openclaw_sessions"
ORDER: list[set[str]] = [
    {"__init__"},  # the version
    {"errors"},  # the one error family and its exit codes
    {"settings"},  # every OPENCLAW_* environment variable
    {"reports"},  # what import and reindex report
    {"model"},  # the transcript model, pure: entries, tree, branch, times
    {"policy", "redact"},  # upstream's rules, pure; secret redaction, pure
    {"config"},  # upstream's openclaw.json, validated against policy's values
    {"secretrefs"},  # the values of its SecretRefs, for redaction
    {"store"},  # our SQLite store
    {"index"},  # the full-text index and its reconciliation
    {"ingest", "read"},  # import and live appends; search, history, status
    {"live"},  # the append API
    {"mcp", "remote"},  # the MCP server (the [mcp] extra); the fleet (a central PostgreSQL)
    {"cli"},  # argv in, output and exit code out
    {"__main__"},  # python -m openclaw_sessions
]
RANK = {unit: i for i, units in enumerate(ORDER) for unit in units}
ONLY_CLI = ("typer", "rich", "click")


def modules() -> dict[str, Path]:
    """Dotted name -> file, for every module of the package."""
    out = {}
    for f in sorted(PKG.rglob("*.py")):
        parts = f.relative_to(REPO).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = f
    return out


MODULES = modules()


def unit(module: str) -> str:
    """The layer a module belongs to: its subpackage, or itself at the top level."""
    parts = module.split(".")
    if len(parts) == 1:
        return "__init__"
    return parts[1]


def imports(module: str) -> Iterator[tuple[str, int]]:
    """(imported name, line): package modules resolved to their dotted names, others as given."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                yield (full if full in MODULES else base), node.lineno


def graph() -> dict[str, set[str]]:
    return {m: {n for n, _ in imports(m) if n in MODULES and n != m} for m in MODULES}


def test_every_unit_has_a_rank() -> None:
    assert {unit(m) for m in MODULES} <= set(RANK), {unit(m) for m in MODULES} - set(RANK)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_only_the_cli_talks_to_typer_and_rich(module: str) -> None:
    if unit(module) == "cli":
        return
    for name, line in imports(module):
        assert name.split(".")[0] not in ONLY_CLI, f"{module}:{line} imports {name}"


PURE = ("model", "policy", "redact")


@pytest.mark.parametrize("module", sorted(m for m in MODULES if unit(m) in PURE))
def test_policy_touches_no_database(module: str) -> None:
    assert "sqlite3" not in {n for n, _ in imports(module)}, module


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in edges:
        if v not in index:
            visit(v)
    return found


def allowed(importer: str, imported: str) -> bool:
    mine, theirs = unit(importer), unit(imported)
    return theirs == mine or RANK[theirs] < RANK[mine]


@pytest.mark.slow
@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_down_the_order(module: str) -> None:
    for name, line in imports(module):
        if name == NAME or name.startswith(NAME + "."):
            assert allowed(module, name), f"{module}:{line} imports {name}"


@pytest.mark.slow
def test_no_import_cycles() -> None:
    assert not cycles(graph())


def test_the_checks_can_fail() -> None:
    """A cycle and an upward or sideways import are seen; relative and absolute imports are
    resolved alike (so the tests above can fail)."""
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert not allowed("openclaw_sessions.model.tree", "openclaw_sessions.store.db")
    assert not allowed("openclaw_sessions.read.search", "openclaw_sessions.ingest.importer")
    assert not allowed("openclaw_sessions.live", "openclaw_sessions.cli.run")
    assert allowed("openclaw_sessions.read.search", "openclaw_sessions.index.locks")
    store = {n for n, _ in imports("openclaw_sessions.store.sessions")}
    assert "openclaw_sessions.store.db" in store  # `from . import db`
    assert "openclaw_sessions.policy.keys" in store  # absolute
