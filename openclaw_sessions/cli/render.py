"""Rich tables, progress bars and messages for people. JSON never goes through Rich.

stdout carries data (tables, plain lines); stderr carries talk (progress, warnings, errors).
Colour follows --color (style.py): by default off when NO_COLOR is set or the stream is not a
terminal; bars only ever go to a terminal. `history` has its own module (history_view.py).

Data is never interpreted: every string from a transcript or a store goes through ``safe``
(C0/C1 control characters, ESC and OSC sequences included, become visible ``\\xNN`` escapes;
newline and tab stay) and Rich runs with markup, emoji codes and highlighting off, so
``[bold]`` or ``:thread:`` in a key or a message prints as typed.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING, Any, cast

from openclaw_sessions.model import wellformed

from . import output, style
from .output import echo_json, field, json_text, safe, write_text
from .style import Times

if TYPE_CHECKING:
    from rich.console import Console

    from openclaw_sessions.read.models import Hit, SearchResult


def _safe_deep(value: Any) -> Any:
    if isinstance(value, str):
        return safe(value)
    if isinstance(value, list):
        return [_safe_deep(v) for v in value]
    if isinstance(value, dict):
        return {safe(str(k)): _safe_deep(v) for k, v in value.items()}
    return value


def console(stderr: bool = False, file: Any = None, width: int | None = None) -> Console:
    """A Rich console for ``file`` (default: stdout, or stderr), coloured as --color says."""
    stream = sys.stderr if stderr else sys.stdout
    color = style.colored(stream)
    out = _console_class()(
        file=cast("IO[str]", _WellFormed(file or stream)),
        stderr=stderr,
        force_terminal=True if color and (style.forced() or file is not None) else None,
        color_system=None if style.never() else "standard" if style.forced() else "auto",
        no_color=not color,
        width=width,
        highlight=False,
        markup=False,  # data is never markup ...
        emoji=False,  # ... nor emoji codes (":thread:" in a key stays text)
        soft_wrap=not stream.isatty(),
    )
    if out.width < MIN_WIDTH:  # COLUMNS=0 printed nothing, 10 dropped a table's keys
        out.width = MIN_WIDTH  # the terminal wraps what is wider: nothing is lost to a width
    return out


# The narrowest width tables and blocks are laid out for, whatever $COLUMNS or the terminal
# says: each table's must-have columns (keys, index state) fit in it.
MIN_WIDTH = 40


@functools.cache
def _console_class() -> type[Console]:
    """Rich's Console, except when stdout's reader goes away: Rich exits 1 then; we raise
    BrokenPipeError, which guard.failing ends quietly with 0 (as every other output)."""
    from rich.console import Console

    class Quiet(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError

    return Quiet


class _WellFormed:
    """A text stream whose writes never carry a lone surrogate (the last guard: data is
    clean already, but a path or an argument may not be)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        return int(self._stream.write(wellformed.text(text)))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


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
    bar = Progress(*columns, console=console(True), transient=True)
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


def _pieces(text: str, spans: Sequence[tuple[int, int]]) -> Iterator[tuple[str, bool]]:
    """``text`` cut at its matches: (piece, is a match), in order."""
    pos = 0
    for a, b in sorted(spans):
        a = max(a, pos)
        if b <= a:
            continue
        yield text[pos:a], False
        yield text[a:b], True
        pos = b
    yield text[pos:], False


def _highlight(text: str, spans: Sequence[tuple[int, int]]) -> Any:
    """The snippet with its matches in bold, each piece escaped (escapes change lengths)."""
    from rich.text import Text

    t = Text()
    for piece, match in _pieces(text, spans):
        t.append(safe(piece), style="bold yellow" if match else "")
    return t


_BREAKS = re.compile(r"[\t\n\r]+")
_MATCH_ON, _MATCH_OFF = "\x1b[1;33m", "\x1b[0m"  # the table's "bold yellow"


def _field(text: str) -> str:
    """One tab-separated field: tabs and line breaks become one space, controls escaped."""
    return safe(_BREAKS.sub(" ", text))


def search_lines(result: SearchResult, times: Times, *, pick: bool = False) -> None:
    """One hit per line, `sessionKey messageId time role snippet` separated by tabs, for
    cut, awk, sort and fzf; matches in colour only when --color says so. With -C, each hit's
    context messages are lines of the same shape around it (their whole text), every line
    led by a field that says which is which, as grep -C's separators do (`:` a hit, `-`
    context); windows that overlap merge into one group, and groups are separated by `--`."""
    color = style.colored(sys.stdout)
    if pick:
        write_text("".join(pick_line(h, times) for h in result.hits))
        return
    lines = [_hit_line(h, times, color) for h in result.hits if h.context is None]
    groups = _context_groups(result.hits)
    for i, group in enumerate(groups):
        lines.append("--\n" if i else "")
        for h, m in group:
            line = _hit_line(h, times, color) if m is None else _context_fields(h, m, times)
            lines.append(("-\t" if m is not None else ":\t") + line)
    write_text("".join(lines))


def _hit_line(h: Hit, times: Times, color: bool) -> str:
    snippet = "".join(
        _MATCH_ON + _field(p) + _MATCH_OFF if match and color else _field(p)
        for p, match in _pieces(h.snippet, h.highlights)
    )
    fields = (field(h.session_key), field(h.message_id), times(h.timestamp), _field(h.role))
    return "\t".join([*fields, snippet]) + "\n"


CHAT_WIDTH = 20  # pick's chat column: a label, else the key's distinctive ends


def pick_line(h: Hit, times: Times) -> str:
    """`pick`'s list line: key<TAB>id<TAB>then, for people, the chat (label, else a short
    key), the time, the role and the snippet in space-aligned columns (fzf shows the third
    field; tabs would align on its tab stops, not on columns)."""
    chat = field(h.label) if h.label else _short_key(field(h.session_key))
    if len(chat) > CHAT_WIDTH:
        chat = chat[: CHAT_WIDTH - 1] + "…"
    shown = f"{chat:<{CHAT_WIDTH}}  {times(h.timestamp):>8}  {_field(h.role):<9}  "
    return f"{field(h.session_key)}\t{field(h.message_id)}\t{shown}{_field(h.snippet).strip()}\n"


def _short_key(key: str) -> str:
    """``agent:main:telegram:group:-100123:topic:42`` → ``main:telegram:g…00123:topic:42``:
    the `agent:` prefix goes, and a long key keeps its agent and its distinctive end."""
    key = key.removeprefix("agent:")
    if len(key) <= CHAT_WIDTH:
        return key
    head = key.split(":", 1)[0][:6] + ":"
    return head + "…" + key[-(CHAT_WIDTH - len(head) - 1) :]


def _context_fields(h: Hit, m: dict[str, Any], times: Times) -> str:
    ts = m.get("timestamp")
    fields = (
        field(h.session_key),
        field(str(m.get("id", ""))),
        times(ts if isinstance(ts, int) else None),
        _field(str(m.get("role", ""))),
        _field(context_text(m)),
    )
    return "\t".join(fields) + "\n"


# a -C line: a hit (None) or one of its context messages
Line = tuple["Hit", "dict[str, Any] | None"]


def _context_groups(hits: Sequence[Hit]) -> list[list[Line]]:
    """The -C windows in the hits' order, those of one generation that share a message merged
    into one (each message once; a message that is a hit anywhere is shown as the hit)."""
    groups: list[tuple[tuple[str, str], list[str], dict[str, Line]]] = []
    for h in hits:
        if h.context is None:
            continue
        where = (h.session_key, h.session_id)
        window: list[Line] = [(h, m) for m in h.context.before]
        window += [(h, None), *((h, m) for m in h.context.after)]
        ids = [h.message_id if m is None else str(m.get("id", "")) for _, m in window]
        mine = dict(zip(ids, window, strict=True))
        for gw, gids, lines in groups:
            if gw == where and set(gids) & set(ids):
                gids[:] = _union(gids, ids)
                for mid, line in mine.items():
                    if mid not in lines or line[1] is None:
                        lines[mid] = line
                break
        else:
            groups.append((where, ids, mine))
    return [[lines[mid] for mid in gids] for _, gids, lines in groups]


def _union(a: list[str], b: list[str]) -> list[str]:
    """Two overlapping windows of one branch (each a run of consecutive messages) as one."""
    if b[0] in a:
        return a + b[len(a) - a.index(b[0]) :]
    if a[0] in b:
        return b + a[len(b) - b.index(a[0]) :]
    return a + [x for x in b if x not in a]  # (not reached: they overlap)


def context_text(m: dict[str, Any]) -> str:
    """A context message's text (its text blocks, joined), as history shows it."""
    content = m.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    texts = [b.get("text") for b in blocks or [] if isinstance(b, dict) and b.get("type") == "text"]
    return " ".join(t for t in texts if isinstance(t, str))


def _context_line(m: dict[str, Any]) -> str:
    """A context message as one line: its role and the start of its text."""
    text = " ".join(context_text(m).split())
    if len(text) > 160:
        text = text[:160] + "…"
    return f"{m.get('role')}: {text or '…'}"


def search_footer(result: SearchResult) -> None:
    """The notes under results, on stderr as plain lines: no Rich here, so `--jsonl` starts as
    fast as `--json`, and a long `explain:` JSON line is never wrapped."""
    note = output.note
    for warning in result.warnings(human=True):
        note(f"warning: {warning}")
    if result.truncated:
        note(f"more results exist ({_total(result)} matches): {_lift(result)}")
    if any(h.relaxed for h in result.hits):
        note("relaxed: no message matches every word; these match most of them")
    for h in result.hits:
        if h.exchange:  # the words sit in one exchange: name its matching messages
            note(f"exchange: {field(h.message_id)} answers with {' '.join(map(field, h.exchange))}")
    if result.semantic is not None:
        note(_semantic_note(result.semantic, bool(result.hits)))
    if not result.hits:
        note("no matches")
    absence = result.absence or {}
    if not result.hits and absence.get("termsNotFound"):
        lift = " (try --relax)" if "--relax" in absence.get("lift", []) else ""
        note(f"found nowhere: {' '.join(absence['termsNotFound'])}{lift}")
    if not result.hits and "semantic" in absence:  # the operator's empty page: what helps
        note(_empty_advice(absence))
    if result.explain is not None:
        note(f"explain: {json_text(result.explain)}")  # JSON-escaped: nothing left to escape


def _semantic_note(info: dict[str, Any], found: bool) -> str:
    """The label of a page the [semantic] extra answered: by meaning, which model, coverage."""
    cover = f"{info['embeddedMessages']} of {info['messages']} messages embedded"
    if info["embeddedMessages"] < info["messages"]:
        cover += "; `openclaw-sessions reindex --embed` embeds the rest"
    if not found:
        return f"semantic: nothing near enough in meaning ({info['model']}, {cover})"
    return f"semantic: no message holds these words; nearest in meaning ({info['model']}, {cover})"


def _empty_advice(absence: dict[str, Any]) -> str:
    """An empty operator page: fewer words, --relax, and the semantic fallback's next step."""
    tips = ["fewer or other words"]
    if "--relax" in absence.get("lift", []):
        tips.append("--relax (most of the words)")
    how = absence["semantic"]
    tips.append(f"meaning instead of words: {how['enable']}")
    return "try " + "; ".join(tips)


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


def search_counts(result: SearchResult, jsonl: list[dict[str, Any]] | None) -> None:
    """`--count` (a number), `--count --by-session` (key, tab, count) and `--sessions` (keys),
    one per line, or ``jsonl``'s JSON lines; warnings on stderr."""
    if jsonl is not None:
        for line in jsonl:
            echo_json(line)
    elif result.sessions is not None:
        for s in result.sessions:
            count = "" if result.match_count is None else f"\t{s.matches}"
            write_text(field(s.session_key) + count + "\n")
    else:
        write_text(f"{result.match_count}\n")
    for warning in result.warnings(human=True):
        output.note(f"warning: {warning}")
