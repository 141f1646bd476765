"""`search` (and `log`) hits on a terminal: a table whose hit takes two rows, or, where the
keys leave the snippet too little room, one block per hit.

The table has three columns: time over role, the session key over the message id and the
chat's label, and the snippet. Keys stay whole (as `sessions` prints them); the snippet gives
way: it is cut to two lines of its column around its first match, with `…` where text was left
out. When that column would be narrower than ``MIN_SNIPPET`` (a long key on an 80-column
terminal), each hit is a block instead: key, id and label; time and role; three lines of
snippet. Off a terminal the plain lines (render.search_lines) carry every character.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .output import field, safe
from .render import _context_line, _highlight, console

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from openclaw_sessions.read.models import Hit, SearchResult

    from .style import Times

LABEL_ROOM = 28  # columns under a short key for the id and the label
MIN_SNIPPET = 32  # columns: a narrower snippet column reads as a word a line; blocks instead
TABLE_LINES = 2  # snippet lines per hit in the table
BLOCK_LINES = 3  # and in a block
# Between the three columns: one separator and a space of padding either side of it.
_GAPS = 2 * 3


def search_table(result: SearchResult, times: Times, *, use_pager: bool = False) -> None:
    """The hits as a table on a terminal (two rows a hit), through the pager when taller than
    the screen."""
    from .pager import paged

    with paged(use_pager, console) as out:
        table(result, times, out)


def table(result: SearchResult, times: Times, out: Console) -> None:
    if not result.hits:
        return
    firsts = [_first(h, times) for h in result.hits]
    keys = [field(h.session_key) for h in result.hits]
    # keys and ids stay whole; a label longer than its key is cut (it keeps LABEL_ROOM)
    key_w = max(len(k) for k in [*keys, *(_second(h, 0) for h in result.hits)])
    key_w = max(key_w, *(min(len(_second(h)), LABEL_ROOM) for h in result.hits))
    seconds = [_second(h, key_w) for h in result.hits]
    first_w = max(max(len(line) for line in cell) for cell in firsts)
    width = out.width - first_w - key_w - _GAPS
    if width < MIN_SNIPPET:
        _blocks(result, times, out)
        return
    from rich import box
    from rich.table import Table

    table = Table(show_header=True, header_style="bold", expand=False, box=box.SIMPLE_HEAD,
                  show_edge=False, pad_edge=False)  # fmt: skip
    table.add_column("time · role", no_wrap=True, width=first_w)
    table.add_column("session", no_wrap=True, width=key_w)
    table.add_column("snippet", no_wrap=True, max_width=width)
    for h, first, key, second in zip(result.hits, firsts, keys, seconds, strict=True):
        table.add_row("\n".join(first), f"{key}\n{second}", _cell(h, out, width))
    out.print(table)


def _first(h: Hit, times: Times) -> list[str]:
    """The first column's lines: the time, then the role with its operator marks."""
    role = safe(h.role) + (f" ×{h.copies}" if h.copies > 1 else "")
    role += (" · exchange" if h.exchange else "") + (" · semantic" if h.semantic else "")
    return [times(h.timestamp), role]


def _second(h: Hit, width: int | None = None) -> str:
    """Under the key: the message id, an archived generation's mark, the chat's label, in
    ``width`` columns (None: all of it; 0: the id and mark alone); only the label is cut."""
    head = field(h.message_id) + _archived(h)
    room = 1 << 30 if width is None else width - len(head) - 3
    if not h.label or room < 4:
        return head
    return f"{head} · {_cut(field(h.label), room)}"


def _archived(h: Hit) -> str:
    """The operator's mark on a hit from a generation cold-stored or deleted in OpenClaw."""
    if h.archived is None:
        return ""
    return f" ({'deleted in OpenClaw' if h.archived == 'deleted' else h.archived})"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def _cell(h: Hit, out: Console, width: int, lines: int = TABLE_LINES) -> Any:
    """The snippet in ``lines`` lines of ``width``, with its -C context (one line a message,
    dim) above and below it."""
    snippet = fitted(_highlight(h.snippet, h.highlights), h.highlights, out, width, lines)
    if h.context is None:
        return snippet
    from rich.console import Group
    from rich.text import Text

    def around(mark: str, messages: Sequence[dict[str, Any]]) -> list[Any]:
        return [
            Text(_cut(f"{mark} " + safe(_context_line(m)), width), style="dim", no_wrap=True)
            for m in messages
        ]

    return Group(*around("↑", h.context.before), snippet, *around("↓", h.context.after))


def fitted(
    text: Text, spans: Sequence[tuple[int, int]], out: Console, width: int, lines: int
) -> Text:
    """``text`` wrapped to ``width`` in at most ``lines`` lines that show its first match:
    when the match would fall below them the text starts shortly before it, after `…`; a `…`
    ends the last line when text was left out after it."""
    from rich.text import Text

    lead = len(text.plain) - len(text.plain.lstrip())  # FTS openings (" … text"): no indent
    text = text[lead:] if lead else text
    shown = _first_lines(text, out, width, lines)
    if spans and not _marked(shown):  # start a little before the first match, on a word
        at = min((s.start for s in text.spans if s.style), default=0)
        start = text.plain.rfind(" ", 0, max(at - width // 3, 0)) + 1
        shown = _first_lines(Text("…") + text[start:], out, width, lines)
    return Text("\n").join(shown)


def _first_lines(text: Text, out: Console, width: int, lines: int) -> list[Text]:
    wrapped = text.wrap(out, width)
    shown = list(wrapped)[:lines]
    if len(wrapped) > lines:
        last = shown[-1]
        last.rstrip()
        last.truncate(width - 1)
        last.append("…")
    return shown


def _marked(lines: list[Text]) -> bool:
    """A highlighted match is among ``lines`` (the snippet's only styled spans)."""
    return any(span.style for line in lines for span in line.spans)


def _blocks(result: SearchResult, times: Times, out: Console) -> None:
    """Keys too long for a table beside a readable snippet (or a narrow terminal): per hit its
    key, then id and label, time and role, then three lines of snippet."""
    from rich.text import Text

    width = out.width
    for h in result.hits:
        out.print(Text(field(h.session_key), style="bold"))
        first = _first(h, times)
        out.print(Text(_cut(f"{_second(h)} · {first[0]} · {first[1]}", width), style="dim"))
        out.print(_cell(h, out, width, BLOCK_LINES))
        out.print()
