"""What `history` does to a transcript message before showing it (pure: no I/O).

Upstream's ``sessions_history`` rules (agents/tools/sessions-history-tool.ts): drop ``details``,
``usage`` and ``cost``; drop thinking signatures; redact every text, thinking and partial-JSON
string, then cut it at 4000 UTF-16 code units plus ``"\\n…(truncated)…"``; images lose their
base64 ``data`` and gain ``omitted: true`` and the decoded ``bytes``. Each removal or cut sets
the message's ``truncated`` flag, any redaction its ``redacted`` flag. What a reader of the
text misses is told apart for the operator's view: ``texts_cut`` (a text cut at the cap) and
``data_omitted`` (image data left out); dropped metadata (``usage``, signatures) is neither.
As in upstream's code (not its docs), assistant text keeps ``<think>`` tags and tool-call XML.

Beyond upstream (which leaks them): every string of the message is redacted and cut, whatever
field it sits in: tool-call arguments, bash command/output, error texts, object-valued
``content``, blocks of types we do not know (``redacted_thinking.data``, custom blocks),
message-level extras (``metadata``, ``provider``, ``attachments[].body``) and object keys. Unknown
fields are walked, not dropped: an operator reading ``--include-tools`` output sees them,
masked. Every ``*Signature`` field is dropped at any depth, not only thinking's.

The operator can lift the caps (``history --full``, ``export``): ``max_units=None`` redacts every
string and cuts none; image data is still left out (it is no text). The byte caps count
compact JSON's UTF-8 bytes, as upstream's count ``JSON.stringify``'s (json_bytes).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, NamedTuple, Protocol

from openclaw_sessions.model import wellformed

from .cut import cut_units, utf16_len

MAX_TEXT_UNITS = 4000  # UTF-16 code units, as JavaScript's String.length counts
TRUNCATED_SUFFIX = "\n…(truncated)…"
MAX_BYTES = 80 * 1024
OMITTED_TEXT = "[sessions_history omitted: message too large]"
TOOL_ROLES = frozenset({"toolResult", "tool"})
_SHORT = 64  # characters: far under any cap, so a short string is only redacted

_SIGNATURES = frozenset(
    {"thinkingSignature", "openclawReasoningReplay", "textSignature", "thoughtSignature"}
)
_IMAGE_DROPPED = _SIGNATURES | {"data"}
_MESSAGE_DROPPED = _SIGNATURES | {"details", "usage", "cost"}


class TextRedactor(Protocol):
    def redact_text(self, text: str) -> str: ...

    def __hash__(self) -> int: ...  # immutable: short results are cached per redactor


class Sanitized(NamedTuple):
    message: dict[str, Any]
    truncated: bool = False
    redacted: bool = False
    size: int = 0  # JSON bytes of message, once it is final
    texts_cut: bool = False  # a text was cut at the cap (the operator's --full lifts it)
    data_omitted: bool = False  # image data was left out (even --full leaves it out)


class _Flags:
    """One message's walk: what it did (truncated, redacted) and its cap (None: no cut)."""

    __slots__ = ("truncated", "redacted", "max_units", "texts_cut", "data_omitted")

    def __init__(self, max_units: int | None) -> None:
        self.truncated = False
        self.redacted = False
        self.texts_cut = False
        self.data_omitted = False
        self.max_units = max_units


def cap_text(
    text: str, redactor: TextRedactor, max_units: int | None = MAX_TEXT_UNITS
) -> tuple[str, bool, bool]:
    """Redact, then cut: (text, truncated, redacted). Redacting first keeps cut secrets whole."""
    clean = redactor.redact_text(text)
    redacted = clean != text
    if max_units is None or utf16_len(clean) <= max_units:
        return clean, False, redacted
    return cut_units(clean, max_units) + TRUNCATED_SUFFIX, True, redacted


def base64_decoded_bytes(data: str) -> int:
    """Upstream's estimate: whitespace ignored, 3 bytes per 4 characters minus padding."""
    s = "".join(data.split())
    if not s:
        return 0
    pad = 2 if s.endswith("==") else 1 if s.endswith("=") else 0
    return max(0, len(s) * 3 // 4 - pad)


@lru_cache(maxsize=4096)
def _short_text(redactor: TextRedactor, value: str) -> str:
    return redactor.redact_text(value)


def _text(value: str, redactor: TextRedactor, flags: _Flags) -> str:
    if len(value) <= _SHORT:  # keys, roles, types, ids: few and repeated, so remembered
        out = _short_text(redactor, value)
        flags.redacted |= out != value
        return out
    out, cut, red = cap_text(value, redactor, flags.max_units)
    flags.truncated |= cut
    flags.texts_cut |= cut
    flags.redacted |= red
    return out


# Objects and arrays nested deeper than this are shown as their compact JSON text (redacted
# and capped as any string): a message whose unknown field nests 600 levels (valid JSON, below
# the parser's limit) still shows, and nothing downstream recurses that deep.
MAX_DEPTH = 64


def _deep(value: Any, redactor: TextRedactor, flags: _Flags, depth: int = 0) -> Any:
    """Any JSON value: every string in it (values and keys) redacted and capped, every object
    treated as a block (signatures dropped, image data omitted)."""
    if isinstance(value, str):
        return _text(value, redactor, flags)
    if isinstance(value, list | dict) and depth >= MAX_DEPTH:
        return _text(flat_json(value), redactor, flags)
    if isinstance(value, list):
        return [_deep(v, redactor, flags, depth + 1) for v in value]
    if isinstance(value, dict):
        return sanitize_block(value, redactor, flags, depth)
    return value


class _Raw(str):
    """A piece of JSON syntax on flat_json's stack (not a value to encode)."""


def flat_json(value: Any) -> str:
    """Compact JSON of ``value`` however deep it nests: iterative, never a RecursionError."""
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, _Raw):
            out.append(v)
        elif isinstance(v, list):
            parts: list[Any] = [_Raw("[")]
            for i, x in enumerate(v):
                parts += [_Raw(",")] * bool(i) + [x]
            stack.extend(reversed([*parts, _Raw("]")]))
        elif isinstance(v, dict):
            parts = [_Raw("{")]
            for i, (k, x) in enumerate(v.items()):
                parts += [_Raw(("," if i else "") + dumps(str(k)) + ":"), x]
            stack.extend(reversed([*parts, _Raw("}")]))
        else:
            out.append(json.dumps(v, ensure_ascii=False))
    return "".join(out)


def sanitize_block(block: Any, redactor: TextRedactor, flags: _Flags, depth: int = 0) -> Any:
    """One content block (or any object inside a message), whatever its type: known fields
    and unknown ones alike are walked, so no string leaves unredacted."""
    if not isinstance(block, dict):
        return _deep(block, redactor, flags, depth)
    image = block.get("type") == "image"
    out = _fields(block, _IMAGE_DROPPED if image else _SIGNATURES, redactor, flags, depth + 1)
    if image:
        data = block.get("data")
        flags.data_omitted |= "data" in block
        size = base64_decoded_bytes(data) if isinstance(data, str) else block.get("bytes")
        out["omitted"] = True
        if isinstance(size, int | float) and not isinstance(size, bool):
            out["bytes"] = size
    return out


def sanitize_message(
    message: dict[str, Any], redactor: TextRedactor, *, max_units: int | None = MAX_TEXT_UNITS
) -> Sanitized:
    """A copy of ``message`` with upstream's removals, redaction and cuts applied to every
    field, the ones upstream knows and any other (metadata, attachments, custom blocks).
    ``max_units=None``: nothing is cut (the operator's whole text), all is still redacted."""
    flags = _Flags(max_units)
    out = _fields(message, _MESSAGE_DROPPED, redactor, flags, 0)
    return Sanitized(
        out,
        flags.truncated,
        flags.redacted,
        texts_cut=flags.texts_cut,
        data_omitted=flags.data_omitted,
    )


def cuts(window: Sequence[Sanitized], *, agent: bool) -> tuple[bool, bool, bool]:
    """(contentTruncated, a text was cut, image data was left out) of a window. The agent's
    flag is upstream's (dropped usage or a signature counts as a cut); the operator's says
    only what a reader misses: a text cut, image data left out."""
    texts_cut = any(s.texts_cut for s in window)
    data_omitted = any(s.data_omitted for s in window)
    flagged = any(s.truncated for s in window) if agent else texts_cut or data_omitted
    return flagged, texts_cut, data_omitted


def _fields(
    obj: dict[str, Any], dropped: frozenset[str], redactor: TextRedactor, flags: _Flags, depth: int
) -> dict[str, Any]:
    """``obj`` less its ``dropped`` fields (each one counts as a cut), keys and values walked."""
    out: dict[str, Any] = {}
    for key, value in obj.items():
        if key in dropped:
            flags.truncated = True
            continue
        out[_text(key, redactor, flags)] = _deep(value, redactor, flags, depth)
    return out


def dumps(value: Any) -> str:
    """Compact JSON, as ``JSON.stringify`` writes it (non-ASCII kept as is)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def json_bytes(value: Any) -> int:
    """UTF-8 bytes of ``JSON.stringify(value)`` (a lone surrogate is a 6-byte escape there)."""
    text = dumps(value)
    if text.isascii():
        return len(text)
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError:
        lone = len(wellformed.LONE.findall(text))
        return len(text.encode("utf-8", "surrogatepass")) + 3 * lone


def well_formed(value: Any) -> tuple[Any, int]:
    """(value, its JSON bytes), made writable by wellformed.value when it has to be: lone
    surrogates become U+FFFD, NaN and ±Infinity null; one serialisation serves both."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        return value, len(text) if text.isascii() else len(text.encode("utf-8"))
    except ValueError:  # a non-finite number, or a lone surrogate (UnicodeEncodeError)
        clean = wellformed.value(value)
        return clean, len(dumps(clean).encode("utf-8"))


def array_bytes(sizes: Sequence[int]) -> int:
    """Bytes of a JSON array whose items take ``sizes`` bytes: brackets plus commas."""
    return 2 + sum(sizes) + max(0, len(sizes) - 1)


def cap_newest(sizes: Sequence[int], max_bytes: int) -> tuple[int, int]:
    """Upstream ``capArrayByJsonBytes``: drop the oldest items (always keeping the newest one)
    until the array fits. Returns (index of the first kept item, array bytes)."""
    if not sizes:
        return 0, 2
    total = array_bytes(sizes)
    start = 0
    while total > max_bytes and start < len(sizes) - 1:
        total -= sizes[start] + 1
        start += 1
    return start, total


def cap_around(sizes: Sequence[int], anchor: int, max_bytes: int) -> tuple[int, int, int]:
    """Upstream's window around a message: start with it, then try one older and one newer
    item in turn, each side stopping at the first item that would overflow.
    Returns (start, end, array bytes) with ``sizes[start:end]`` kept."""
    start, end = anchor, anchor + 1
    total = array_bytes(sizes[start:end])
    older, newer = start > 0, end < len(sizes)
    while older or newer:
        if older and total + sizes[start - 1] + 1 <= max_bytes:
            start -= 1
            total += sizes[start] + 1
        else:
            older = False
        older = older and start > 0
        if newer and total + sizes[end] + 1 <= max_bytes:
            total += sizes[end] + 1
            end += 1
        else:
            newer = False
        newer = newer and end < len(sizes)
    return start, end, total


def placeholder(source: dict[str, Any]) -> dict[str, Any]:
    """What stands in for a single message that alone exceeds the cap: the operator's keeps
    id and time; an agent's (``__openclaw``) keeps upstream's ``seq`` and ``id`` there."""
    out: dict[str, Any] = {"role": "assistant", "content": OMITTED_TEXT}
    meta = source.get("__openclaw")
    if isinstance(meta, dict):
        kept = {k: meta[k] for k in ("seq", "id") if k in meta}
        if kept:
            out["__openclaw"] = kept
        return out
    return out | {k: source[k] for k in ("timestamp", "id") if k in source}


def hard_cap(
    items: list[dict[str, Any]], total: int, max_bytes: int
) -> tuple[list[dict[str, Any]], int, bool]:
    """Upstream ``enforceSessionsHistoryHardCap``: still over the cap → keep only the newest
    item, or the placeholder when even that one is too big. Returns (items, bytes, capped)."""
    if total <= max_bytes or not items:
        return items, total, False
    last = items[-1]
    size = array_bytes([json_bytes(last)])
    if size <= max_bytes:
        return [last], size, True
    stand_in = placeholder(last)
    return [stand_in], array_bytes([json_bytes(stand_in)]), True


def count_window(n: int, anchor: int, limit: int) -> tuple[int, int]:
    """Upstream's count window: the anchor, then one older and one newer in turn, up to
    ``limit`` messages. Returns (start, end)."""
    start, end = anchor, anchor + 1
    while end - start < limit and (start > 0 or end < n):
        if start > 0:
            start -= 1
        if end - start < limit and end < n:
            end += 1
    return start, end
