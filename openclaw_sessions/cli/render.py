"""Rich tables, progress bars and messages for people. JSON never goes through Rich.

stdout carries data (tables); stderr carries talk (progress, warnings, errors). Colour and bars
are off when NO_COLOR is set or the stream is not a terminal.

Data is never interpreted: every string from a transcript or a store goes through ``safe``
(C0/C1 control characters, ESC and OSC sequences included, become visible ``\\xNN`` escapes;
newline and tab stay) and Rich runs with markup, emoji codes and highlighting off, so
``[bold]`` or ``:thread:`` in a key or a message prints as typed.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import IO, TYPE_CHECKING, Any, cast

from openclaw_sessions.policy import wellformed

from .output import echo_json, json_text, safe

if TYPE_CHECKING:
    from rich.console import Console

    from openclaw_sessions.read.history import HistoryResult
    from openclaw_sessions.read.models import Hit, SearchResult


def _safe_deep(value: Any) -> Any:
    if isinstance(value, str):
        return safe(value)
    if isinstance(value, list):
        return [_safe_deep(v) for v in value]
    if isinstance(value, dict):
        return {safe(str(k)): _safe_deep(v) for k, v in value.items()}
    return value


def _console(stderr: bool) -> Console:
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    return Console(
        file=cast("IO[str]", _WellFormed(stream)),
        stderr=stderr,
        no_color=bool(os.environ.get("NO_COLOR")) or not stream.isatty(),
        highlight=False,
        markup=False,  # data is never markup ...
        emoji=False,  # ... nor emoji codes (":thread:" in a key stays text)
        soft_wrap=not stream.isatty(),
    )


class _WellFormed:
    """A text stream whose writes never carry a lone surrogate (the last guard: data is
    clean already, but a path or an argument may not be)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        return int(self._stream.write(wellformed.text(text)))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def info(message: str) -> None:
    print(wellformed.text(safe(message)), file=sys.stderr)


def fmt_time(ms: int | None, *, utc: bool = False) -> str:
    if not ms or not isinstance(ms, int | float):
        return "-"
    try:
        dt = datetime.fromtimestamp(ms / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):  # a time no calendar holds (old stores)
        return "-"
    if not utc:
        dt = dt.astimezone()
    return dt.strftime("%Y-%m-%d %H:%M" + ("Z" if utc else ""))


@contextmanager
def progress(
    label: str, *, enabled: bool, unit: str = "items"
) -> Iterator[Callable[[int, int], None] | None]:
    """A Rich bar with ETA and rate on stderr when it is a terminal; otherwise nothing. The bar
    (and the thread that redraws it) starts with the first update: a reindex forks its planning
    workers before that, never next to a thread."""
    if not enabled or not sys.stderr.isatty() or os.environ.get("NO_COLOR"):
        yield None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    class _Rate(ProgressColumn):
        def render(self, task: Any) -> Any:
            from rich.text import Text

            return Text(f"{task.speed or 0:,.0f} {unit}/s")

    columns: list[Any] = [TextColumn("{task.description}", style="bold", markup=False), BarColumn()]
    columns.append(TextColumn("{task.percentage:>3.0f}%") if unit == "B" else MofNCompleteColumn())
    columns += [TransferSpeedColumn() if unit == "B" else _Rate(), TimeRemainingColumn()]
    bar = Progress(*columns, console=_console(True), transient=True)
    task = bar.add_task(safe(label), total=None)

    def update(done: int, total: int) -> None:
        if not bar.live.is_started:
            bar.start()
        bar.update(task, completed=done, total=total)

    try:
        yield update
    finally:
        if bar.live.is_started:
            bar.stop()


def _highlight(text: str, spans: Sequence[tuple[int, int]]) -> Any:
    """The snippet with its matches in bold, each piece escaped (escapes change lengths)."""
    from rich.text import Text

    t, pos = Text(), 0
    for a, b in sorted(spans):
        a = max(a, pos)
        if b <= a:
            continue
        t.append(safe(text[pos:a]))
        t.append(safe(text[a:b]), style="bold yellow")
        pos = b
    t.append(safe(text[pos:]))
    return t


def _snippet_cell(h: Hit) -> Any:
    """The snippet, with its -C context above and below it, dim, one line per message."""
    snippet = _highlight(h.snippet, h.highlights)
    if h.context is None:
        return snippet
    from rich.console import Group
    from rich.text import Text

    def lines(mark: str, messages: Sequence[dict[str, Any]]) -> list[Any]:
        return [Text(f"{mark} " + safe(_context_line(m)), style="dim") for m in messages]

    return Group(*lines("↑", h.context.before), snippet, *lines("↓", h.context.after))


def _context_line(m: dict[str, Any]) -> str:
    """A context message as one line: its role and the start of its text."""
    content = m.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    texts = [b.get("text") for b in blocks or [] if isinstance(b, dict) and b.get("type") == "text"]
    text = " ".join(" ".join(t.split()) for t in texts if isinstance(t, str))
    return f"{m.get('role')}: {_one_line(text, 160) if text else '…'}"


def search_table(result: SearchResult, *, utc: bool = False) -> None:
    from rich.table import Table

    out = _console(False)
    if result.hits:
        table = Table(show_header=True, header_style="bold", expand=False, show_lines=False)
        table.add_column("time", no_wrap=True)
        table.add_column("session", overflow="fold")
        table.add_column("role", no_wrap=True)
        table.add_column("snippet", overflow="fold")
        for h in result.hits:
            table.add_row(
                fmt_time(h.timestamp, utc=utc),
                safe(f"{h.session_key}\n{h.message_id}"),
                safe(h.role),
                _snippet_cell(h),
            )
        out.print(table)
    search_footer(result)


def search_footer(result: SearchResult) -> None:
    """The notes under results, on stderr as plain lines: no Rich here, so `--jsonl` starts as
    fast as `--json`, and a long `explain:` JSON line is never wrapped."""

    def note(line: str) -> None:
        print(wellformed.text(safe(line)), file=sys.stderr)

    for warning in result.warnings(human=True):
        note(f"warning: {warning}")
    if result.truncated:
        note(f"more results exist ({_total(result)} matches): {_lift(result)}")
    if not result.hits:
        note("no matches")
    if result.explain is not None:
        note(f"explain: {json_text(result.explain)}")  # JSON-escaped: nothing left to escape


def _total(result: SearchResult) -> str:
    return f"{result.total}{'' if result.total_exact else '+'}"


def _lift(result: SearchResult) -> str:
    """What lifts the cap that actually cut the list."""
    shown = len(result.hits)
    return {
        "max-bytes": f"--max-bytes cut the list at {shown}; raise it (0: no cap) or narrow the"
        " query",
        "as-bytes": f"the 32 KiB cap of --as cut the list at {shown}; narrow the query",
        "as-limit": f"--as shows at most {shown}; narrow the query",
    }.get(result.cut_by or "", "raise --limit or narrow the query (--count counts them all)")


def search_counts(result: SearchResult, *, jsonl: bool) -> None:
    """`--count` (a number), `--count --by-session` (key, tab, count) and `--sessions` (keys),
    one per line, or as JSON lines; warnings on stderr."""
    if result.sessions is not None:
        for s in result.sessions:
            if jsonl:
                echo_json(s.to_json())
            else:
                line = s.session_key if result.match_count is None else (
                    f"{s.session_key}\t{s.matches}")  # fmt: skip
                print(wellformed.text(safe(line)))
    elif jsonl:
        echo_json({"count": result.match_count})
    else:
        print(result.match_count)
    for warning in result.warnings(human=True):
        print(wellformed.text(safe(f"warning: {warning}")), file=sys.stderr)


_ROLE_STYLE = {"user": "bold cyan", "assistant": "bold green"}


def _one_line(text: str, width: int = 120) -> str:
    lines = text.strip().splitlines() or [""]
    head = lines[0][:width] + ("…" if len(lines[0]) > width else "")
    return head + (f"  (+{len(lines) - 1} lines)" if len(lines) > 1 else "")


def _history_parts(m: dict[str, Any]) -> list[Any]:
    """A message's renderables: Markdown for assistant text, dim one-liners for the rest."""
    import json

    from rich.markdown import Markdown
    from rich.text import Text

    role = m.get("role")
    tool = role in ("toolResult", "tool")
    content = m.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
    parts: list[Any] = []
    if role == "bashExecution":
        parts.append(
            Text(f"$ {m.get('command', '')}  → {_one_line(str(m.get('output', '')))}", style="dim")
        )
    for b in blocks if isinstance(blocks, list) else []:
        kind = b.get("type") if isinstance(b, dict) else None
        if kind == "text" and isinstance(b.get("text"), str):
            if tool:
                name = m.get("toolName") or "tool"
                style = "dim red" if m.get("isError") else "dim"
                parts.append(Text(f"← {name}: {_one_line(b['text'])}", style=style))
            elif role == "assistant":
                parts.append(Markdown(b["text"]))
            else:
                parts.append(
                    Text(
                        b["text"],
                        style="italic dim"
                        if b["text"].startswith("[sessions_history omitted")
                        else "",
                    )
                )
        elif kind == "thinking":
            parts.append(
                Text(f"thinking: {_one_line(str(b.get('thinking', '')))}", style="dim italic")
            )
        elif kind == "toolCall":
            args = json.dumps(b.get("arguments"), ensure_ascii=False)
            parts.append(Text(f"→ {b.get('name')}({_one_line(args, 100)})", style="dim"))
        elif kind == "image":
            size = f", {b['bytes']} bytes" if "bytes" in b else ""
            parts.append(Text(f"[image {b.get('mimeType', '')}{size} omitted]", style="dim"))
    if m.get("errorMessage"):
        parts.append(Text(f"error: {_one_line(str(m['errorMessage']))}", style="red"))
    return parts


def history_view(result: HistoryResult, *, utc: bool = False) -> None:
    """The conversation, oldest first: a header per message, its parts indented below."""
    from rich.padding import Padding
    from rich.text import Text

    out = _console(False)
    for m in map(_safe_deep, result.messages):
        marked = result.anchor is not None and m.get("id") == safe(result.anchor)
        role = str(m.get("role"))
        head = Text("▶ " if marked else "  ", style="bold yellow")
        head.append(role, style=_ROLE_STYLE.get(role, "dim" if "tool" in role else "bold"))
        head.append(f"  {fmt_time(m.get('timestamp'), utc=utc)}  {m.get('id', '')}", style="dim")
        if marked:
            head.append("  ◀ this message", style="bold yellow")
        out.print(head)
        for part in _history_parts(m):
            out.print(Padding(part, (0, 0, 0, 4), expand=False))
    history_footer(result)


def history_footer(result: HistoryResult) -> None:
    err = _console(True)
    notes: list[str] = []
    if result.total_messages is not None:
        notes.append(
            f"{len(result.messages)} of {result.total_messages} messages shown"
            f" ({result.session_key}, session {result.session_id or '-'})"
        )
    if result.has_more:
        notes.append(f"older messages: --offset {result.next_offset}")
    if result.dropped_messages:
        notes.append("some messages were left out to stay under 80 KiB")
    if result.content_truncated:
        notes.append("long texts, images or metadata were cut")
    if not result.messages:
        notes.append(
            f"message {result.anchor} is not on the active branch"
            if result.anchor
            else "no messages"
        )
    for note in notes:
        err.print(safe(note))
