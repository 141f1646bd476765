"""scripts/split_asserts.py: no test asserts an `and` chain (a failure names the part that
failed), and the tool that splits them changes nothing but those asserts."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parent.parent
TOOL = REPO / "scripts" / "split_asserts.py"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("split_asserts", TOOL)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


split_asserts = _tool()


def rewrite(source: str) -> str:
    out, left = split_asserts.rewrite(textwrap.dedent(source), Path("tests/test_x.py"))
    assert left == []
    return str(out)


def test_no_test_asserts_an_and_chain() -> None:
    r = subprocess.run([sys.executable, str(TOOL), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_check_names_each_chained_assert_and_exits_1(tmp_path: Path) -> None:
    f = tmp_path / "test_y.py"
    f.write_text("def test() -> None:\n    x = 1\n    assert x and not x\n    assert x or x\n")
    r = subprocess.run([sys.executable, str(TOOL), "--check", str(f)], capture_output=True,
                       text=True)  # fmt: skip
    assert r.returncode == 1
    assert f"{f}:3: assert chained with `and`" in r.stderr
    assert ":4:" not in r.stderr


def test_parts_keep_their_order_and_message() -> None:
    got = rewrite("""\
        def test(x):
            assert x is not None and x.y == 1 and x.z, f"bad {x}"
    """)
    assert got == textwrap.dedent("""\
        def test(x):
            assert x is not None, f"bad {x}"
            assert x.y == 1, f"bad {x}"
            assert x.z, f"bad {x}"
    """)


def test_parenthesised_chains_are_flattened_and_other_operators_kept() -> None:
    got = rewrite("""\
        assert (
            a
            and (b and c)
        )
        assert a or b
        assert not (a and b)
        assert all(a and b for a, b in pairs)
        f = lambda: a and b
    """)
    assert got == textwrap.dedent("""\
        assert a
        assert b
        assert c
        assert a or b
        assert not (a and b)
        assert all(a and b for a, b in pairs)
        f = lambda: a and b
    """)


def test_comments_are_kept() -> None:
    got = rewrite("""\
        def test():
            assert (
                a  # the first
                and b
            )  # after
    """)
    assert got == textwrap.dedent("""\
        def test():
            assert a  # the first
            assert b  # after
    """)


def test_a_part_that_cannot_stand_bare_is_parenthesised() -> None:
    got = rewrite("""\
        assert (y := f()) and y > 1
        assert (a
                + b) and c
    """)
    assert got == "assert (y := f())\nassert y > 1\nassert a + b\nassert c\n"


def test_an_assert_sharing_its_line_is_reported_not_touched() -> None:
    source = "if x: assert a and b\nassert c and d; e()\n"
    out, left = split_asserts.rewrite(source, Path("tests/test_x.py"))
    assert out == source
    assert left == [1, 2]


@pytest.mark.parametrize("tail", ["", "  # fmt: skip"])
def test_fmt_skip_stays_only_where_ruff_would_reflow(tail: str) -> None:
    got = rewrite(f"""\
        assert ok and all(m > 0
                          for m in ms){tail}
    """)
    assert got == "assert ok\nassert all(m > 0 for m in ms)\n"
