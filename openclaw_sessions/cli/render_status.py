"""`status` for people: one row per agent (messages, sessions, pending, quarantined, failed,
size, health) and under it each reason an agent needs attention; `--verbose` the full detail
table of each agent; `--problems` one line per problem, `path:line: code: message`, as
compilers print them (editors and `grep` read that)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .output import field, write_text
from .render import _safe_deep, console

if TYPE_CHECKING:
    from .style import Times


def human_bytes(n: int | None) -> str:
    """1536 → '1.5 KiB' (binary units, as `ls -lh` and `du -h` count)."""
    if n is None:
        return "-"
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{int(size)} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


def status_view(
    stats: Sequence[dict[str, Any]], times: Times, *, verbose: bool, problems: bool
) -> None:
    stats = [_safe_deep(st) for st in stats]
    if verbose:
        for st in stats:
            _details(st, times)
    else:
        _summary(stats)
    for st in stats:  # what to do, under the table: data too (stdout)
        for reason in st["reasons"]:
            write_text(f"{st['agentId']}: {st['health']}: {reason}\n")
    if problems:
        _problems(stats)


# Each count column and its width (header or widest usual value), in the order shown.
_COLUMNS = {"messages": 8, "sessions": 8, "pending": 7, "quarantined": 11, "failed": 6, "size": 10}


def _fitting(width: int, agents: Sequence[str]) -> list[str]:
    """The count columns that fit beside whole agent names and the health column: a narrow
    terminal keeps the first counts (the reasons under the table name whatever needs
    attention anyway), never a folded agent name."""
    room = width - max([5, *map(len, agents)]) - 12  # the agent, then health and the gaps
    shown: list[str] = []
    for name, w in _COLUMNS.items():
        room -= w + 2
        if room < 0:
            break
        shown.append(name)
    return shown


def _summary(stats: Sequence[dict[str, Any]]) -> None:
    """A table on a terminal; off one, tab-separated lines under a header line, as `search`
    and `sessions` print (cut, awk and sort read them), every column."""
    import sys

    rows = [(st["agentId"], _cells(st), st["health"]) for st in stats]
    if not sys.stdout.isatty():
        write_text("\t".join(["agent", *_COLUMNS, "health"]) + "\n")
        for agent, cells, health in rows:
            write_text("\t".join([field(agent), *cells.values(), health]) + "\n")
        return
    from rich.table import Table

    out = console(False)
    shown = _fitting(out.width, [st["agentId"] for st in stats])
    table = Table(show_header=True, header_style="bold", expand=False, box=None, pad_edge=False)
    table.add_column("agent", overflow="fold", min_width=5)
    for name in shown:
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("health", no_wrap=True, min_width=9)
    for agent, cells, health in rows:
        table.add_row(agent, *[cells[c] for c in shown], health)
    out.print(table)


def _cells(st: dict[str, Any]) -> dict[str, str]:
    if "sessions" not in st:  # a store that cannot be opened
        return dict.fromkeys(_COLUMNS, "-")
    return {
        "messages": str(st["indexedMessages"]),
        "sessions": str(st["sessions"]),
        "pending": str(st["pendingSessions"]),
        "quarantined": str(st["malformedLines"]),
        "failed": str(st["failedSessions"]),
        "size": human_bytes(st["databaseBytes"]),
    }


def _details(st: dict[str, Any], times: Times) -> None:
    from rich.table import Table

    out = console(False)
    table = Table(title=f"agent {st['agentId']}", show_header=False, title_justify="left")
    table.add_column("field", style="bold")
    table.add_column("value", overflow="fold")
    if "sessions" not in st:
        table.add_row("database", st["database"])
        table.add_row("config file", st.get("config") or "none (built-in defaults)")
        table.add_row("health", st["health"])
        out.print(table)
        return
    for label, key in (
        ("database", "database"),
        ("schema version", "schemaVersion"),
        ("sessions", "sessions"),
        ("transcripts", "transcripts"),
        ("events", "events"),
        ("indexed messages", "indexedMessages"),
        ("pending sessions", "pendingSessions"),
        ("dirty sessions", "dirtySessions"),
        ("failed sessions", "failedSessions"),
        ("malformed lines", "malformedLines"),
        ("vanished transcripts", "vanishedTranscripts"),
        ("import problems", "importProblems"),
        ("database size", "databaseBytes"),
        ("redaction fingerprint", "redactionFingerprint"),
    ):
        value = st[key]
        table.add_row(label, human_bytes(value) if key == "databaseBytes" else str(value))
    for label, key in (
        ("last import", "lastImportAt"),
        ("last reconcile", "lastReconcileAt"),
        ("oldest pending since", "oldestPendingAt"),
    ):
        table.add_row(label, times(st[key]))
    for name, idx in st["indexes"].items():
        size = human_bytes(idx["bytes"]) if idx["bytes"] is not None else "-"
        table.add_row(f"index {name}", f"{idx['rows']} rows, {size} ({idx['tokenizer']})")
    table.add_row("indexing now", "yes" if st["indexing"] else "no")
    table.add_row("config file", st.get("config") or "none (built-in defaults)")
    table.add_row("health", st["health"])
    out.print(table)
    for f in st["failures"]:  # safe already (_safe_deep)
        out.print(f"  not indexed: {field(f['sessionKey'])} [{field(f['path'])}]: {f['error']}")


def _problems(stats: Sequence[dict[str, Any]]) -> None:
    """`path:line: severity: code: message` per problem, on stdout (what was asked for)."""
    for st in stats:
        for p in st.get("problems", []):
            where = p["path"] or p["sessionKey"] or st["agentId"]
            if p["line"]:
                where += f":{p['line']}"
            write_text(field(f"{where}: {p['severity']}: {p['code']}: {p['message']}") + "\n")
