"""Pure sanitising and byte-cap rules of `history` (upstream sessions_history semantics)."""

from __future__ import annotations

import base64
import copy
import json
import unicodedata
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from openclaw_sessions.policy import sanitize as S
from openclaw_sessions.policy.cut import cut_units


class Upper:
    """A stand-in redactor: masks the word SECRET (the real one is tested separately)."""

    def redact_text(self, text: str) -> str:
        return text.replace("SECRET", "***")


R = Upper()
EMOJI = "😀"  # one code point, two UTF-16 units


def test_utf16_len_counts_astral_twice() -> None:
    assert S.utf16_len("abc") == 3
    assert S.utf16_len("café") == 4
    assert S.utf16_len(EMOJI) == 2
    assert S.utf16_len("a" + EMOJI + "中") == 4


def test_cut_never_splits_a_pair() -> None:
    assert cut_units("ab" + EMOJI, 3) == "ab"
    assert cut_units("ab" + EMOJI, 4) == "ab" + EMOJI
    assert cut_units("abc", 0) == ""
    # A pair stored as two code points (a surrogate-escaped line) is not split either.
    assert cut_units("a\ud83d\ude00b", 2) == "a"


@given(st.text(max_size=60), st.integers(min_value=0, max_value=80))
def test_cut_is_a_fitting_prefix_that_splits_nothing(text: str, units: int) -> None:
    cut = cut_units(text, units)
    assert text.startswith(cut)
    assert S.utf16_len(cut) <= units
    if S.utf16_len(text) <= units:
        assert cut == text
    elif cut:
        assert not 0xD800 <= ord(cut[-1]) <= 0xDBFF
        # it backs off only over what belongs to the cluster being cut (marks, joiners…, and
        # the base character a mark that does not fit combines with)
        marks = ("Mn", "Mc", "Me", "Cf", "So", "Cs")
        after = text[len(cut) + 1 : len(cut) + 2]
        assert (
            S.utf16_len(text[: len(cut) + 1]) > units
            or unicodedata.category(text[len(cut)]) in marks
            or text[len(cut) - 1] == "\u200d"
            or (after != "" and unicodedata.category(after) in marks)
        )


def test_cut_backs_off_over_the_base_of_a_mark_that_does_not_fit() -> None:
    """Found by the property above: a combining mark past the cap takes its base with it."""
    assert cut_units("0000000\u093a", 7) == "000000"


ASTRAL = ["😀", "\U00020000", "\U00010400", "👩\u200d💻"]  # emoji, CJK ext. B, Deseret, ZWJ


@pytest.mark.parametrize("char", ASTRAL)
def test_text_cap_counts_units_on_astral_text(char: str) -> None:
    text = char * 3000  # 6000+ units: over the 4000-unit cap although under 4000 characters
    out, truncated, _ = S.cap_text(text, R)
    assert truncated
    body = out[: -len(S.TRUNCATED_SUFFIX)]
    assert S.utf16_len(body) <= 4000
    assert text.startswith(body)
    assert S.utf16_len(body) > 4000 - S.utf16_len(char)  # only the cluster that did not fit
    assert len(body) % len(char) == 0  # never half a character or half a cluster


@pytest.mark.parametrize(
    ("text", "cut"),
    [
        ("a" * 4000, False),
        ("a" * 4001, True),
        ("a" * 3998 + EMOJI, False),  # exactly 4000 units
        ("a" * 3999 + EMOJI, True),  # 4001 units: the emoji goes whole
        ("é" * 4000, False),
        ("é" * 4001, True),
    ],
)
def test_text_cap_boundaries(text: str, cut: bool) -> None:
    out, truncated, redacted = S.cap_text(text, R)
    assert truncated is cut
    assert redacted is False
    if cut:
        assert out.endswith("\n…(truncated)…")
        body = out[: -len(S.TRUNCATED_SUFFIX)]
        assert S.utf16_len(body) <= 4000
        assert text.startswith(body)
        assert S.utf16_len(body) >= 3999
    else:
        assert out == text


def test_redaction_happens_before_the_cut() -> None:
    text = "a" * 3997 + "SECRET" + "b" * 10
    out, truncated, redacted = S.cap_text(text, R)
    assert redacted
    assert truncated
    assert "SEC" not in out
    assert out.startswith("a" * 3997 + "***")


def test_a_redacted_text_that_then_fits_is_not_cut() -> None:
    out, truncated, redacted = S.cap_text("x" * 3997 + "SECRET", R)
    assert out == "x" * 3997 + "***"
    assert redacted
    assert not truncated


def test_clean_message_is_unchanged_and_flags_clear() -> None:
    msg = {"role": "user", "content": [{"type": "text", "text": "hello"}], "timestamp": 1}
    s = S.sanitize_message(msg, R)
    assert s.message == msg
    assert not s.truncated
    assert not s.redacted


@pytest.mark.parametrize("field", ["details", "usage", "cost"])
def test_dropped_fields_mark_truncated(field: str) -> None:
    msg: dict[str, Any] = {"role": "assistant", "content": "ok", field: {"big": 1}}
    s = S.sanitize_message(msg, R)
    assert field not in s.message
    assert s.truncated
    assert not s.redacted


def test_input_is_not_mutated() -> None:
    msg = {
        "role": "assistant",
        "usage": {"input": 1},
        "content": [
            {"type": "thinking", "thinking": "SECRET", "thinkingSignature": "sig"},
            {"type": "image", "data": "QUJD", "mimeType": "image/png"},
        ],
    }
    before = copy.deepcopy(msg)
    S.sanitize_message(msg, R)
    assert msg == before


def test_thinking_is_redacted_and_signatures_dropped() -> None:
    msg = {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "the SECRET plan", "thinkingSignature": "x" * 500},
            {"type": "text", "text": "fine", "textSignature": "t"},
            {
                "type": "toolCall",
                "id": "c",
                "name": "exec",
                "arguments": {},
                "thoughtSignature": "g",
            },
        ],
    }
    s = S.sanitize_message(msg, R)
    think, text, call = s.message["content"]
    assert think == {"type": "thinking", "thinking": "the *** plan"}
    assert "textSignature" not in text
    assert "thoughtSignature" not in call
    assert s.truncated
    assert s.redacted


def test_signature_on_a_clean_message_only_sets_truncated() -> None:
    msg = {
        "role": "assistant",
        "content": [{"type": "thinking", "thinking": "hm", "thinkingSignature": "s"}],
    }
    s = S.sanitize_message(msg, R)
    assert s.truncated
    assert not s.redacted


def test_images_lose_data_and_gain_size() -> None:
    data = base64.b64encode(b"zyximage").decode()
    msg = {"role": "user", "content": [{"type": "image", "data": data, "mimeType": "image/png"}]}
    s = S.sanitize_message(msg, R)
    assert s.message["content"] == [
        {"type": "image", "mimeType": "image/png", "omitted": True, "bytes": 8}
    ]
    assert s.truncated


def test_image_without_data_keeps_its_bytes_and_is_not_truncated() -> None:
    msg = {"role": "user", "content": [{"type": "image", "bytes": 42}]}
    s = S.sanitize_message(msg, R)
    assert s.message["content"] == [{"type": "image", "bytes": 42, "omitted": True}]
    assert not s.truncated


@given(st.binary(max_size=200))
def test_base64_estimate_is_exact_for_valid_base64(raw: bytes) -> None:
    enc = base64.b64encode(raw).decode()
    assert S.base64_decoded_bytes(enc) == len(raw)
    assert S.base64_decoded_bytes("\n".join(enc[i : i + 76] for i in range(0, len(enc), 76))) == (
        len(raw)
    )


def test_every_text_field_is_redacted() -> None:
    msg = {
        "role": "assistant",
        "content": "SECRET here",
        "text": "SECRET",
        "errorMessage": "401 SECRET",
        "errorBody": {"error": {"key": "SECRET"}, "n": 1},
    }
    s = S.sanitize_message(msg, R)
    assert "SECRET" not in json.dumps(s.message)
    assert s.message["errorBody"]["n"] == 1
    assert s.redacted


def test_tool_call_arguments_and_partial_json_are_redacted() -> None:
    msg = {
        "role": "assistant",
        "content": [
            {
                "type": "toolCall",
                "id": "c",
                "name": "exec",
                "arguments": {"cmd": ["curl", "-H", "SECRET"], "n": 3},
                "partialJson": "{SECRET",
            }
        ],
    }
    s = S.sanitize_message(msg, R)
    block = s.message["content"][0]
    assert block["arguments"] == {"cmd": ["curl", "-H", "***"], "n": 3}
    assert block["partialJson"] == "{***"
    assert s.redacted


def test_bash_execution_and_tool_results() -> None:
    bash = {"role": "bashExecution", "command": "echo SECRET", "output": "SECRET" + "o" * 5000}
    s = S.sanitize_message(bash, R)
    assert s.message["command"] == "echo ***"
    assert s.message["output"].endswith("(truncated)…")
    tool = {
        "role": "toolResult",
        "toolCallId": "c",
        "toolName": "exec",
        "details": {"x": 1},
        "content": [{"type": "text", "text": "out SECRET"}],
        "isError": False,
    }
    s = S.sanitize_message(tool, R)
    assert s.message["content"][0]["text"] == "out ***"
    assert "details" not in s.message


def test_non_object_blocks_pass_through() -> None:
    msg = {"role": "user", "content": ["plain", 3, None, {"type": "text", "text": "SECRET"}]}
    s = S.sanitize_message(msg, R)
    assert s.message["content"] == ["plain", 3, None, {"type": "text", "text": "***"}]


_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)))


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | _TEXT,
        lambda c: st.lists(c, max_size=4) | st.dictionaries(_TEXT, c, max_size=4),
        max_leaves=12,
    )
)
def test_json_bytes_matches_compact_utf8(value: Any) -> None:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    assert S.json_bytes(value) == len(text.encode("utf-8"))


def test_lone_surrogate_counts_as_an_escape_and_is_replaced_for_output() -> None:
    value = {"t": "a\ud800b"}
    assert S.json_bytes(value) == len('{"t":"a\\ud800b"}')
    assert S.well_formed(value) == ({"t": "a\ufffdb"}, len('{"t":"a\ufffdb"}'.encode()))
    same = {"t": "plain é"}
    out, size = S.well_formed(same)
    assert out is same
    assert size == S.json_bytes(same)


def test_array_bytes() -> None:
    items = [{"a": 1}, {"b": "é"}]
    assert S.array_bytes([S.json_bytes(i) for i in items]) == len(S.dumps(items).encode())
    assert S.array_bytes([]) == 2


def test_cap_newest_boundaries() -> None:
    sizes = [10, 10, 10]
    total = 2 + 30 + 2
    assert S.cap_newest(sizes, total) == (0, total)
    assert S.cap_newest(sizes, total - 1) == (1, total - 11)
    assert S.cap_newest(sizes, 12) == (2, 12)
    assert S.cap_newest(sizes, 11) == (2, 12)  # the newest always stays; hard cap handles it
    assert S.cap_newest([], 0) == (0, 2)


def _ref_around(sizes: list[int], anchor: int, cap: int) -> tuple[int, int, int]:
    """Upstream's loop, recounting the whole candidate array each time."""
    start, end = anchor, anchor + 1
    older, newer = start > 0, end < len(sizes)
    while older or newer:
        if older:
            if S.array_bytes(sizes[start - 1 : end]) <= cap:
                start -= 1
            else:
                older = False
        older = older and start > 0
        if newer:
            if S.array_bytes(sizes[start : end + 1]) <= cap:
                end += 1
            else:
                newer = False
        newer = newer and end < len(sizes)
    return start, end, S.array_bytes(sizes[start:end])


@given(st.lists(st.integers(min_value=1, max_value=50), min_size=1, max_size=30), st.data())
def test_cap_around_matches_upstream_loop(sizes: list[int], data: st.DataObject) -> None:
    anchor = data.draw(st.integers(min_value=0, max_value=len(sizes) - 1))
    cap = data.draw(st.integers(min_value=1, max_value=400))
    got = S.cap_around(sizes, anchor, cap)
    assert got == _ref_around(sizes, anchor, cap)
    start, end, total = got
    assert start <= anchor < end
    assert total <= cap or (start, end) == (anchor, anchor + 1)


def test_cap_around_grows_older_first_then_alternates() -> None:
    # Room for exactly two more 10-byte items around the anchor: one older, one newer.
    assert S.cap_around([10] * 5, 2, 2 + 30 + 2) == (1, 4, 34)
    # Room for one more: the older side wins.
    assert S.cap_around([10] * 5, 2, 2 + 20 + 1) == (1, 3, 23)
    # A side that cannot grow stops; the other keeps growing.
    assert S.cap_around([10, 100, 10, 10, 10, 10], 2, 60) == (2, 6, 45)


def test_hard_cap() -> None:
    small = {"role": "user", "content": "x", "id": "a", "timestamp": 5}
    big = {"role": "assistant", "content": "y" * 500, "id": "b", "timestamp": 6}
    items, size, capped = S.hard_cap([small], 40, 100)
    assert items == [small]
    assert size == 40
    assert not capped
    bytes_big = S.array_bytes([S.json_bytes(big)])
    items, size, capped = S.hard_cap([big], bytes_big, bytes_big)
    assert items == [big]
    assert not capped
    items, size, capped = S.hard_cap([big], bytes_big, bytes_big - 1)
    assert capped
    assert items == [{"role": "assistant", "content": S.OMITTED_TEXT, "timestamp": 6, "id": "b"}]
    assert size == S.array_bytes([S.json_bytes(items[0])])
    items, size, capped = S.hard_cap([small, big], 10_000, 1000)
    assert items == [big]
    assert capped
    assert size == bytes_big


@given(st.integers(min_value=1, max_value=40), st.data())
def test_count_window(n: int, data: st.DataObject) -> None:
    anchor = data.draw(st.integers(min_value=0, max_value=n - 1))
    limit = data.draw(st.integers(min_value=1, max_value=50))
    start, end = S.count_window(n, anchor, limit)
    assert 0 <= start <= anchor < end <= n
    assert end - start == min(n, limit)
    older, newer = anchor - start, end - anchor - 1
    if start > 0 and end < n:  # both sides had room: balanced, older first
        assert older - newer in (0, 1)
