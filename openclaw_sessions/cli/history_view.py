"""`history` for people: a header per message (role, time, id), its parts below.

Off a terminal (a pipe, a file) every text is printed as stored, redacted: never cropped,
wrapped or re-rendered, so `| less`, `> file` and `grep` see what the store holds. On a
terminal assistant text is rendered as Markdown (with every link and image target shown, raw
HTML kept as text), thinking and tool output shrink to one line unless the whole history was
asked for (`--full`), and a history longer than the screen goes through the pager.
Either way control characters are visible escapes (output.safe).
"""

from __future__ import annotations

import json
import sys
from io import StringIO
from typing import TYPE_CHECKING, Any, NamedTuple

from . import output, style
from .output import field, write_text
from .render import _safe_deep, console
from .style import Times

if TYPE_CHECKING:
    from rich.markdown import Markdown

    from openclaw_sessions.read.models import HistoryResult

_ROLE_STYLE = {"user": "bold cyan", "assistant": "bold green"}
_TOOL_ROLES = ("toolResult", "tool")


class Part(NamedTuple):
    """One piece of a message: a label (``thinking: ``, ``→ ``…) and its text."""

    label: str
    text: str
    style: str = ""
    markdown: bool = False  # assistant text: Markdown on a terminal
    brief: bool = False  # one line on a terminal, unless the whole history was asked


def parts(m: dict[str, Any]) -> list[Part]:
    role = m.get("role")
    content = m.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
    out: list[Part] = []
    if role == "bashExecution":
        out.append(Part("$ ", str(m.get("command", "")), "dim", brief=True))
        out.append(Part("→ ", str(m.get("output", "")), "dim", brief=True))
    for b in blocks if isinstance(blocks, list) else []:
        kind = b.get("type") if isinstance(b, dict) else None
        if kind == "text" and isinstance(b.get("text"), str):
            out.append(_text_part(m, b["text"]))
        elif kind == "thinking":
            out.append(Part("thinking: ", str(b.get("thinking", "")), "dim italic", brief=True))
        elif kind == "toolCall":
            args = json.dumps(b.get("arguments"), ensure_ascii=False)
            out.append(Part(f"→ {b.get('name')}(", args + ")", "dim", brief=True))
        elif kind == "image":
            size = f", {b['bytes']} bytes" if "bytes" in b else ""
            out.append(Part("", f"[image {b.get('mimeType', '')}{size} omitted]", "dim"))
    if m.get("errorMessage"):
        out.append(Part("error: ", str(m["errorMessage"]), "red", brief=True))
    return out


def _text_part(m: dict[str, Any], text: str) -> Part:
    role = m.get("role")
    if role in _TOOL_ROLES:
        name = m.get("toolName") or "tool"
        return Part(f"← {name}: ", text, "dim red" if m.get("isError") else "dim", brief=True)
    if role == "assistant":
        return Part("", text, markdown=True)
    return Part("", text, "italic dim" if text.startswith("[sessions_history omitted") else "")


def msg_id(m: dict[str, Any]) -> str:
    """A message's id: the operator's ``id``, an agent's ``__openclaw.id`` (upstream's)."""
    if "id" in m:
        return str(m.get("id") or "")
    meta = m.get("__openclaw")
    return str(meta.get("id") or "") if isinstance(meta, dict) else ""


def _marked(result: HistoryResult, m: dict[str, Any]) -> bool:
    return result.anchor is not None and msg_id(m) == result.anchor


def boundary_line(b: dict[str, Any], times: Times) -> str:
    """The operator's marker for a reset or compaction: where it happened, when, its id."""
    return f"── {b.get('kind')}  {times(b.get('timestamp'))}  {field(str(b.get('id') or ''))} ──"


def _placed(result: HistoryResult) -> tuple[dict[str, list[dict[str, Any]]], list[dict[str, Any]]]:
    """The boundaries by the id of the message they precede, and those after the last."""
    ids = {msg_id(m) for m in result.messages}
    before: dict[str, list[dict[str, Any]]] = {}
    after: list[dict[str, Any]] = []
    for b in result.boundaries:
        if b.get("before") in ids:
            before.setdefault(str(b["before"]), []).append(b)
        else:
            after.append(b)
    return before, after


_SGR = {"user": "1;36", "assistant": "1;32"}  # the terminal view's role colours, as SGR codes


def plain(result: HistoryResult, times: Times, *, color: bool = False) -> str:
    """Every message as stored: a header line, each part whole, a blank line after. With
    ``color`` (--color always: an fzf preview) only the header lines are coloured."""
    out: list[str] = []
    before, after = _placed(result)
    for raw in result.messages:
        out += [boundary_line(b, times) + "\n\n" for b in before.get(msg_id(raw), [])]
        m = _safe_deep(raw)
        role = str(m.get("role"))
        rest = f"  {times(m.get('timestamp'))}  {field(msg_id(raw))}"
        if color:
            role = f"\x1b[{_SGR.get(role, '1')}m{role}\x1b[0m"
            rest = f"\x1b[2m{rest}\x1b[0m"
        head = role + rest
        if _marked(result, raw):
            on, off = ("\x1b[1;33m", "\x1b[0m") if color else ("", "")
            head = f"{on}▶ {off}{head}{on}  ◀ this message{off}"
        out.append(head + "\n")
        out += [p.label + p.text + "\n" for p in parts(m)]
        out.append("\n")
    out += [boundary_line(b, times) + "\n\n" for b in after]
    return "".join(out)


def show(
    result: HistoryResult, times: Times, *, whole: bool, liftable: bool, use_pager: bool
) -> None:
    """The conversation, oldest first, on stdout; notes on stderr. ``whole``: --full was
    asked; ``liftable``: the caps could be lifted (no --as)."""
    if not sys.stdout.isatty():
        write_text(plain(result, times, color=style.colored(sys.stdout)))
    else:  # (a pipe never needs the pager, nor shutil and subprocess: ~4 ms of start-up)
        import shutil

        from . import pager

        size = shutil.get_terminal_size()
        buf = StringIO()
        _rich(result, times, whole, console(file=buf, width=size.columns))
        text = buf.getvalue()
        if not (use_pager and text.count("\n") >= size.lines and pager.page(text)):
            write_text(text)
    footer(result, whole=whole, liftable=liftable)


def more(result: HistoryResult, times: Times) -> None:
    """Messages that arrived (history --follow): as show() prints them, with no pager and no
    notes, flushed at once."""
    if not sys.stdout.isatty():
        write_text(plain(result, times, color=style.colored(sys.stdout)))
    else:
        import shutil

        _rich(result, times, False, console(width=shutil.get_terminal_size().columns))
    sys.stdout.flush()


def _rich(result: HistoryResult, times: Times, whole: bool, out: Any) -> None:
    from rich.padding import Padding
    from rich.text import Text

    before, after = _placed(result)
    for raw in result.messages:
        for b in before.get(msg_id(raw), []):
            out.print(Text(boundary_line(b, times), style="bold magenta"))
        m, marked = _safe_deep(raw), _marked(result, raw)
        role = str(m.get("role"))
        head = Text("▶ " if marked else "  ", style="bold yellow")
        head.append(role, style=_ROLE_STYLE.get(role, "dim" if "tool" in role else "bold"))
        head.append(f"  {times(m.get('timestamp'))}  {field(msg_id(raw))}", style="dim")
        if marked:
            head.append("  ◀ this message", style="bold yellow")
        out.print(head)
        for p in parts(m):
            if p.markdown:
                shown: Any = markdown(p.text)
            else:
                text = p.text if whole or not p.brief else _one_line(p.text)
                shown = Text(p.label + text, style=p.style)
            out.print(Padding(shown, (0, 0, 0, 4), expand=False))
    for b in after:
        out.print(Text(boundary_line(b, times), style="bold magenta"))


def _one_line(text: str, width: int = 120) -> str:
    lines = text.strip().splitlines() or [""]
    head = lines[0][:width] + ("…" if len(lines[0]) > width else "")
    return head + (f"  (+{len(lines) - 1} lines)" if len(lines) > 1 else "")


def markdown(text: str) -> Markdown:
    """Rich's Markdown, but nothing of the text is dropped: links and images show their
    targets (``Docs (https://…)``), raw HTML stays text."""
    from markdown_it import MarkdownIt
    from markdown_it.token import Token
    from rich.markdown import Markdown

    md = Markdown(text, hyperlinks=False)
    parser = MarkdownIt("commonmark", {"html": False}).enable("strikethrough").enable("table")
    md.parsed = parser.parse(text)
    for tok in md.parsed:
        kids = tok.children or []
        for i, child in enumerate(kids):
            if child.type == "image":
                alt = "".join(c.content for c in child.children or [])
                src = child.attrs.get("src", "")
                kids[i] = Token("text", "", 0, content=f"[image: {alt}] ({src})")
    return md


def footer(result: HistoryResult, *, whole: bool = False, liftable: bool = False) -> None:
    """Notes on stderr, as plain lines (no Rich: a piped history starts faster)."""
    lift = " (--full lifts the caps)" if liftable else ""
    notes: list[str] = []
    if result.total_messages is not None:
        notes.append(
            f"{len(result.messages)} of {result.total_messages} messages shown"
            f" ({field(result.session_key)}, session {field(result.session_id or '-')})"
        )
    if result.has_more:
        notes.append(f"older messages: --offset {result.next_offset}")
    if result.dropped_messages:
        notes.append(f"some messages were left out to stay under 80 KiB{lift}")
    # only what the reader misses: dropped usage or signatures show nowhere, cut or not
    if result.texts_cut and not whole:
        notes.append(f"long texts were cut{lift}")
    if result.data_omitted:
        notes.append("image data was left out (export --format jsonl keeps it)")
    if not result.messages:
        notes.append(
            f"message {result.anchor} is not on the active branch"
            if result.anchor
            else "no messages"
        )
    for note in notes:
        output.note(note)
