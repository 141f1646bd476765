"""A tool result's text block, byte for byte what ``JSON.stringify(value, null, 2)`` prints.

OpenClaw's MCP client shows a result's ``structuredContent`` to the model as
``JSON.stringify(sc, null, 2)`` and drops a text block only when it is byte-identical to that;
any other text block is shown as well, so a model would read every answer twice. The value
reaches the client through JSON, so what it stringifies is what JavaScript parsed: an integral
float is an integer (``1.0`` prints ``1``), a number is JavaScript's shortest form
(``1e-7``, ``0.00001``, ``1e+21``), an integer past 2**53 is the double it parses to, and a
string escapes exactly ``"``, ``\\``, ``\\b \\f \\n \\r \\t`` and the other controls as
``\\u00xx`` (lowercase hex; U+2028 and U+2029 as they are). Key order is insertion order,
except that JavaScript puts the keys that spell an array index ("0", "17") first, ascending.
Strings pass through model/wellformed (no lone surrogate); NaN and infinities print null.
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any

from openclaw_sessions.model import wellformed

_SAFE = 2**53  # past this, JavaScript holds an integer as the nearest double


def number(x: float) -> str:
    """``String(x)`` in JavaScript for a finite double (ECMA-262 Number::toString)."""
    if x == 0:
        return "0"  # -0 too
    sign = "-" if x < 0 else ""
    # repr is the shortest round-tripping form, as JavaScript's; its digits and exponent:
    digits_t, exp = Decimal(repr(abs(x))).normalize().as_tuple()[1:]
    digits = "".join(map(str, digits_t))
    k = len(digits)
    n = int(exp) + k  # the value is 0.digits * 10**n
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * -n + digits
    e = n - 1
    mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{sign}{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"


def _scalar(v: Any) -> str:
    if v is None or isinstance(v, bool):
        return json.dumps(v)
    if isinstance(v, int):
        return str(v) if -_SAFE <= v <= _SAFE else number(float(v))
    if isinstance(v, float):
        return number(v) if math.isfinite(v) else "null"
    if isinstance(v, str):
        return json.dumps(wellformed.text(v), ensure_ascii=False)
    raise TypeError(f"not a JSON value: {type(v).__name__}")


def _index(key: str) -> int | None:
    """The array index a key spells ("0", "42"; not "01", "-1"), else None."""
    if key.isascii() and key.isdigit() and (key == "0" or key[0] != "0"):
        n = int(key)
        return n if n < 2**32 - 1 else None
    return None


def _ordered(d: dict[Any, Any]) -> list[tuple[str, Any]]:
    """A parsed object's keys in JavaScript's own order: array indices first, ascending, then
    the others in insertion order."""
    items = [(str(k), x) for k, x in d.items()]
    indices = sorted((n, k, x) for k, x in items if (n := _index(k)) is not None)
    if not indices:
        return items
    return [(k, x) for _, k, x in indices] + [(k, x) for k, x in items if _index(k) is None]


def _write(v: Any, indent: str, out: list[str]) -> None:
    if isinstance(v, dict):
        items = [(_scalar(k) + ": ", x) for k, x in _ordered(v)]
        ends = "{}"
    elif isinstance(v, list | tuple):
        items = [("", x) for x in v]
        ends = "[]"
    else:
        out.append(_scalar(v))
        return
    if not items:
        out.append(ends)
        return
    inner = indent + "  "
    out.append(ends[0])
    for i, (head, x) in enumerate(items):
        out.append(("\n" if i == 0 else ",\n") + inner + head)
        _write(x, inner, out)
    out.append("\n" + indent + ends[1])


def stringify(value: Any) -> str:
    """``JSON.stringify(value, null, 2)`` of the value JavaScript parses from ours."""
    out: list[str] = []
    _write(value, "", out)
    return "".join(out)
