"""The one reversible escape of every plain output (tab-separated lines, tables, reports,
messages): a key, id, label or path shows as one line whatever it holds, and the escaped
form passed back as a KEY names the same session.

`escape`: a backslash is `\\\\`, a newline `\\n`, a tab `\\t`, and every other control character
(C0, DEL, C1: ESC, CR, OSC introducers…) `\\xNN`; the invisible characters that reorder or
hide text (bidi controls, zero-width ones, the BOM) `\\uNNNN`, so one gateway or session
cannot display as another. `unescape` reverses exactly these; a
backslash followed by anything else stays as typed. Every printed form has one reading: a
literal backslash is always printed doubled, so `a\\nb` is the key with a line break and
`a\\\\nb` the one with a backslash and an `n`.
"""

from __future__ import annotations

import re

_SPECIAL = re.compile(
    "[\\\\\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)
_NAMED = {"\\": "\\\\", "\n": "\\n", "\t": "\\t"}
_ESCAPES = re.compile(r"\\(\\|n|t|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4})")
_UNNAMED = {"\\": "\\", "n": "\n", "t": "\t"}


def _one(m: re.Match[str]) -> str:
    c = m.group()
    return _NAMED.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


def escape(text: str) -> str:
    """``text`` as one line a terminal cannot act on, reversibly (see the module)."""
    return _SPECIAL.sub(_one, text)


def _back(m: re.Match[str]) -> str:
    code = m.group(1)
    return _UNNAMED.get(code) or chr(int(code[1:], 16))


def unescape(text: str) -> str:
    """The text ``escape`` printed as ``text`` (a KEY passed back from plain output)."""
    return _ESCAPES.sub(_back, text) if "\\" in text else text
