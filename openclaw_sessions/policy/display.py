"""What the gateway's display projection does to a stored message before upstream's
``sessions_history`` sees it (pure: no I/O). Only the ``--as`` view applies it.

Upstream's tool reads the gateway's ``chat.history``, which passes the transcript through
``projectChatDisplayMessages`` (src/gateway/chat-display-projection.ts): twice, the
per-message clean-up, with the filters in between. The parts that act on one message:

- inline directive tags (``[[reply_to_current]]``, ``[[reply_to: id]]``,
  ``[[audio_as_voice]]``, any case and inner spaces) are removed from every text and
  string content, of every role, except inside Markdown code (src/utils/directive-tags.ts,
  ``stripInlineDirectiveTagsForDisplay``: the tag goes, the spaces around it stay);
- an assistant message with a tool-call or tool-result block and some non-blank text keeps
  only its text blocks, as ``{"type": "text", "text": …}`` (tool calls, thinking and
  signatures go; a ``commentary`` message phase goes too);
- otherwise, when any text block carries a phase (``textSignature``, a JSON string
  ``{"v": 1, "id": …, "phase": …}``), only the ``final_answer`` text blocks stay, with every
  block that is not text;
- an assistant message whose phase is ``commentary`` (its own ``phase``, else the one phase
  all its phased text blocks share) is hidden, unless it has tool calls and text; a user
  message left with blank text only is hidden, so is a ``display: false`` one; an assistant
  message left empty is kept;
- an assistant message's ``openclawDisplayContent`` list replaces its content (the field is
  never shown);
- thinking signatures and reasoning replays go, image ``data`` becomes ``omitted: true`` and
  ``bytes`` (the UTF-8 length of the base64 text, as upstream counts it), base64 audio too;
  ``details`` go (a tool result keeps only a ``diff``), and ``usage``/``cost`` outside
  assistant messages or without a known number in them. What upstream then removes no
  longer counts as truncation, exactly as in upstream.

Left out (the list-level passes): heartbeat pairs, superseded abort echoes, delivery and
message-tool mirrors, TTS supplements, forwarded ``sessions_send`` turns, envelope headers,
silent-reply tokens, error fallbacks and the 8000-unit display cut (sessions_history cuts at
4000 after it).
"""

from __future__ import annotations

import json
import re
from typing import Any

from openclaw_sessions.model.tree import JS_SPACE, non_blank
from openclaw_sessions.model.wellformed import finite

_S = f"[{JS_SPACE}]*"
_AUDIO_TAG = re.compile(rf"\[\[{_S}audio_as_voice{_S}\]\]", re.IGNORECASE | re.ASCII)
_REPLY_TAG = re.compile(
    rf"\[\[{_S}(?:reply_to_current|reply_to{_S}:{_S}[^\]\n]+){_S}\]\]", re.IGNORECASE | re.ASCII
)
_FENCED = re.compile(r"(^|\n)(```|~~~)[^\n]*\n[\s\S]*?(?:\n\2|\Z)")
_TICKS = re.compile(r"`+")

PHASES = ("commentary", "final_answer")
_TOOL_BLOCKS = frozenset({"toolcall", "tool_call", "tooluse", "tool_use"})
_TOOL_RESULT_BLOCKS = frozenset({"toolresult", "tool_result"})
_TOOL_ROLES = frozenset({"toolresult", "tool_result", "tool", "function"})
_TEXT_TYPES = frozenset({"text", "input_text", "output_text"})
_USAGE_FIELDS = tuple(
    "input output total totalTokens inputTokens outputTokens promptTokens completionTokens"
    " cacheRead cacheWrite cache_read_input_tokens cache_creation_input_tokens input_tokens"
    " output_tokens prompt_tokens completion_tokens total_tokens".split()
)
_COST_FIELDS = ("input", "output", "cacheRead", "cacheWrite", "total")


# --- directive tags -----------------------------------------------------------------------------
def code_regions(text: str) -> list[tuple[int, int]]:
    """Upstream's ``findCodeRegions``: fenced blocks, then inline spans (a backtick run closed
    by the next run of the same length) outside them, as (start, end) offsets."""
    regions = [(m.start() + len(m[1]), m.end()) for m in _FENCED.finditer(text)]
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(text)]
    i = 0
    while i < len(runs):
        width = runs[i][1] - runs[i][0]
        j = next((j for j in range(i + 1, len(runs)) if runs[j][1] - runs[j][0] == width), None)
        if j is None:
            i += 1
            continue
        span = (runs[i][0], runs[j][1])
        if not any(s <= span[0] and span[1] <= e for s, e in regions):
            regions.append(span)
        i = j + 1
    return sorted(regions)


def _strip_tag(text: str, tag: re.Pattern[str]) -> str:
    if "[[" not in text:
        return text
    regions = code_regions(text)
    return tag.sub(lambda m: m[0] if any(s <= m.start() < e for s, e in regions) else "", text)


def strip_directive_tags(text: str) -> str:
    """``stripInlineDirectiveTagsForDisplay``: audio tags, then reply tags, removed outside
    Markdown code; nothing else changes (no whitespace clean-up)."""
    return _strip_tag(_strip_tag(text, _AUDIO_TAG), _REPLY_TAG)


# --- phases -------------------------------------------------------------------------------------
def signature_phase(value: Any) -> str | None:
    """The phase a text block's ``textSignature`` names (upstream's
    ``parseAssistantTextSignature``): a JSON object with ``v`` 1; a plain id names none."""
    if not isinstance(value, str) or not value.strip() or not value.startswith("{"):
        return None
    try:
        parsed = json.loads(value, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return None
    v = parsed.get("v") if isinstance(parsed, dict) else None
    if not (finite(v) and v == 1):  # a number 1 (JSON's 1.0 too), never true
        return None
    phase = parsed.get("phase")
    return phase if phase in PHASES else None


def _no_constant(name: str) -> Any:
    raise ValueError(name)  # JSON.parse knows no NaN or Infinity


def message_phase(message: dict[str, Any]) -> str | None:
    """``resolveAssistantMessagePhase``: the message's own phase, else the one phase its
    phased text blocks share."""
    if message.get("phase") in PHASES:
        return str(message["phase"])
    content = message.get("content")
    if not isinstance(content, list):
        return None
    phases = {_text_phase(b) for b in content if isinstance(b, dict) and b.get("type") == "text"}
    phases.discard(None)
    return phases.pop() if len(phases) == 1 else None


def _text_phase(block: dict[str, Any]) -> str | None:
    return signature_phase(block.get("textSignature"))


# --- one message --------------------------------------------------------------------------------
def _type(block: Any) -> str:
    t = block.get("type") if isinstance(block, dict) else None
    return t.strip().lower() if isinstance(t, str) else ""


def _is_tool_block(block: Any) -> bool:
    return _type(block) in _TOOL_BLOCKS | _TOOL_RESULT_BLOCKS


def _mixed_tool_text(message: dict[str, Any]) -> bool:
    """Tool blocks and some non-blank text: such a message is shown as its text."""
    content = message.get("content")
    if not isinstance(content, list):
        return False
    return any(_is_tool_block(b) for b in content) and any(
        isinstance(b, dict) and b.get("type") in _TEXT_TYPES and non_blank(b.get("text"))
        for b in content
    )


def _forwarded(message: dict[str, Any]) -> bool:
    p = message.get("provenance")
    return (
        isinstance(p, dict)
        and p.get("kind") == "inter_session"
        and isinstance(p.get("sourceTool"), str)
        and p["sourceTool"].strip(JS_SPACE) == "sessions_send"
    )


def _dropped(message: dict[str, Any]) -> bool:
    """``shouldDropAssistantHistoryMessage``, its phase rule."""
    if message.get("role") != "assistant" or _forwarded(message):
        return False
    return message_phase(message) == "commentary" and not _mixed_tool_text(message)


def _has_cost(cost: Any) -> bool:
    return isinstance(cost, dict) and any(finite(cost.get(k)) for k in _COST_FIELDS)


def _has_usage(usage: Any) -> bool:
    if not isinstance(usage, dict):
        return False
    return any(finite(usage.get(k)) for k in _USAGE_FIELDS) or _has_cost(usage.get("cost"))


def _tool_result_shape(message: dict[str, Any]) -> bool:
    role = message.get("role")
    if isinstance(role, str) and role.lower() in _TOOL_ROLES:
        return True
    content = message.get("content")
    blocks = content if isinstance(content, list) else []
    if any(_type(b) in _TOOL_RESULT_BLOCKS for b in blocks):
        return True
    ids = ("toolCallId", "tool_call_id", "toolUseId", "tool_use_id")
    has_id = any(isinstance(message.get(k), str) for k in ids)
    has_name = any(isinstance(message.get(k), str) for k in ("toolName", "tool_name"))
    return has_id and has_name and not any(_type(b) in _TOOL_BLOCKS for b in blocks)


def _details(out: dict[str, Any], tool_result: bool) -> None:
    """Upstream keeps a tool result's non-blank ``diff`` (sessions_history then drops it)."""
    details = out.pop("details")
    diff = details.get("diff") if isinstance(details, dict) else None
    if tool_result and non_blank(diff):
        out["details"] = {"diff": diff}


def _strings(out: dict[str, Any]) -> None:
    for key in ("text", "content"):
        if isinstance(out.get(key), str):
            out[key] = strip_directive_tags(out[key])


def _block(block: Any) -> Any:
    """``sanitizeChatHistoryContentBlock``, as far as sessions_history can tell."""
    if not isinstance(block, dict):
        return block
    out = dict(block)
    if _type(out) in _TOOL_RESULT_BLOCKS and "details" in out:
        _details(out, True)
    _strings(out)
    out.pop("thinkingSignature", None)
    out.pop("openclawReasoningReplay", None)
    if out.get("type") == "image" and isinstance(out.get("data"), str):
        out = _omitted(out)
    source = out.get("source")
    if out.get("type") == "audio" and isinstance(source, dict):
        if source.get("type") == "base64" and isinstance(source.get("data"), str):
            out["source"] = _omitted(source)
    return out


def _omitted(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` without its base64 ``data``: ``omitted`` and the data's UTF-8 ``bytes`` instead."""
    size = len(obj["data"].encode("utf-8", "surrogatepass"))  # a lone surrogate: 3, as Buffer
    return {**{k: v for k, v in obj.items() if k != "data"}, "omitted": True, "bytes": size}


def _text_block(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") == "text" and non_blank(block.get("text"))


def _assistant_content(out: dict[str, Any], content: list[Any]) -> list[Any]:
    """Text and tool calls → the text; else phased text → its final answer."""
    if any(_is_tool_block(b) for b in content):
        texts = [strip_directive_tags(b["text"]) for b in content if _text_block(b)]
        texts = [t for t in texts if t.strip(JS_SPACE)]
        if texts:
            if out.get("phase") == "commentary":
                del out["phase"]
            return [{"type": "text", "text": t} for t in texts]
    if not any(isinstance(b, dict) and b.get("type") == "text" and _text_phase(b) for b in content):
        return content
    return [
        b
        for b in content
        if not isinstance(b, dict) or b.get("type") != "text" or _text_phase(b) == "final_answer"
    ]


def _clean(message: dict[str, Any]) -> dict[str, Any]:
    """``sanitizeChatHistoryMessage``: one pass over one message."""
    out = dict(message)
    if "details" in out:
        _details(out, _tool_result_shape(out))
    assistant = out.get("role") == "assistant"
    if "usage" in out and not (assistant and _has_usage(out["usage"])):
        del out["usage"]
    if "cost" in out and not (assistant and _has_cost(out["cost"])):
        del out["cost"]
    _strings(out)
    content = out.get("content")
    if isinstance(content, list):
        blocks = [_block(b) for b in content]
        out["content"] = _assistant_content(out, blocks) if assistant else blocks
    return out


def _pass(message: dict[str, Any]) -> dict[str, Any] | None:
    """``sanitizeChatHistoryMessages`` for one message: None when it is dropped."""
    if _dropped(message):
        return None
    out = _clean(message)
    return None if _dropped(out) else out


def _blank_text_only(content: Any) -> bool:
    """``isEmptyTextOnlyContent``."""
    if isinstance(content, str):
        return not content.strip(JS_SPACE)
    if not isinstance(content, list):
        return False
    return all(
        isinstance(b, dict)
        and b.get("type") == "text"
        and isinstance(b.get("text"), str)
        and not non_blank(b["text"])
        for b in content
    )


def _hidden(message: dict[str, Any]) -> bool:
    """``shouldHideProjectedHistoryMessage``, its per-message rules (not heartbeats)."""
    if message.get("display") is False:
        return True
    role = message.get("role")
    if not isinstance(role, str) or role.lower() != "user":
        return False
    paths = message.get("MediaPaths")
    media = paths if isinstance(paths, list) else [message.get("MediaPath")]
    content = message["content"] if message.get("content") is not None else message.get("text")
    return _blank_text_only(content) and not any(non_blank(p) for p in media)


def display_content(message: dict[str, Any]) -> dict[str, Any]:
    """``projectAssistantDisplayContent``: an assistant message's ``openclawDisplayContent``
    list is what it shows as its content; the field itself is never shown."""
    if "openclawDisplayContent" not in message:
        return message
    out = {k: v for k, v in message.items() if k != "openclawDisplayContent"}
    shown = message["openclawDisplayContent"]
    if message.get("role") == "assistant" and isinstance(shown, list):
        out["content"] = shown
    return out


def project(message: dict[str, Any]) -> dict[str, Any] | None:
    """The message as upstream's ``chat.history`` hands it to ``sessions_history``; None when
    the gateway does not show it."""
    message = display_content(message)
    first = _pass(message)
    if first is None or _hidden(first):
        return None
    return _pass(first)
