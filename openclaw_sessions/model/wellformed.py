"""Text that can always be encoded: lone surrogates become U+FFFD (pure, stdlib only).

JSON may spell a lone UTF-16 surrogate (``"\\ud800"``, a ``"\\ud83d"`` without its pair); Python
decodes it to a code point that no UTF-8 encoder accepts, so SQLite, ``sys.stdout`` and every
``.encode()`` would raise on it. Arguments decoded by ``os.fsdecode`` carry such code points
too (U+DC80–U+DCFF for bytes that are not UTF-8).

The rule is applied at two depths and nowhere else:

- where JSON text becomes values for extraction, redaction, indexing or display (``loads``,
  ``json_text``): the escapes are rewritten in a copy of the text *before* decoding, so no
  value ever holds a lone surrogate and nothing needs walking. The stored line stays as it was.
- in the writers (``dumps``, ``text``): JSON on stdout, terminal output, error lines. A last
  guard, also for values that never came from JSON (paths, argv); ``dumps`` also writes
  non-finite numbers (``NaN``, ``Infinity``: not JSON) as ``null``.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

REPLACEMENT = "\ufffd"
LONE = re.compile("[\ud800-\udfff]")
# Scanned left to right: an escaped backslash is consumed whole (so `\\ud800` is text, not an
# escape), a high+low pair is kept, any other surrogate escape is lone.
_ESCAPE = re.compile(
    r"(\\\\)|(\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|\\u[dD][89a-fA-F][0-9a-fA-F]{2}"
)
_HINT = re.compile(r"\\u[dD][89a-fA-F]").search  # any surrogate escape, or text that looks so


def text(s: str) -> str:
    """``s`` with every lone surrogate replaced by U+FFFD."""
    if s.isascii() or not LONE.search(s):
        return s
    return LONE.sub(REPLACEMENT, s)


def has_lone_surrogate(s: str) -> bool:
    return not s.isascii() and LONE.search(s) is not None


def json_text(s: str) -> str:
    """JSON text whose lone surrogate escapes are spelled ``\\ufffd`` (the common line has
    none: one cheap regex scan says so)."""
    if _HINT(s) is None:
        return s
    return _ESCAPE.sub(lambda m: m[0] if m.lastindex else "\\ufffd", s)


def loads(s: str) -> Any:
    """``json.loads`` whose strings never hold a lone surrogate."""
    return json.loads(json_text(s))


def value(v: Any) -> Any:
    """A copy of a decoded value with lone surrogates replaced (keys included) and
    non-finite floats as None. For the writers' fallback; decoding uses ``loads``."""
    if isinstance(v, str):
        return text(v)
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, dict):
        return {text(k) if isinstance(k, str) else k: value(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [value(x) for x in v]
    return v


def finite(v: Any) -> bool:
    """A number JSON can write: an int or a finite float, not a bool."""
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def dumps(v: Any) -> str:
    """JSON text that encodes as UTF-8 and that every JSON parser accepts."""
    try:
        out = json.dumps(v, ensure_ascii=False, allow_nan=False)
    except ValueError:  # NaN or ±Infinity somewhere: not JSON
        out = json.dumps(value(v), ensure_ascii=False, allow_nan=False)
    return text(out)
