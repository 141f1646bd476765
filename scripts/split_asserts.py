"""Split `assert a and b` into `assert a` / `assert b`, so a failing test says which part failed.

    python scripts/split_asserts.py [PATH ...]          # rewrite (default: tests/)
    python scripts/split_asserts.py --check [PATH ...]  # exit 1 while any remains

Only assert statements whose whole test is an `and` chain are split (nested, parenthesised `and`
chains are flattened too); `or`, `not (a and b)`, and `and` inside calls, comprehensions or lambdas
are left alone. The parts keep their order, so a guard such as `x is not None and x.y` still
guards; `assert a and b, msg` gives each part the same message. The rewrite is checked: the new
module must parse to the old one's AST with exactly those asserts split, or the file is left as
it was.

Edits are line-precise: only the lines of a split statement change. Each new statement is laid
out by `ruff format` (the repo's style) when ruff is on the PATH or beside this Python. Comments
are kept: one after the statement ends the last part, one on the line where a part ends stays
beside that part, one on a line of its own goes before the part that follows it.
"""

from __future__ import annotations

import argparse
import ast
import io
import shutil
import subprocess
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
INDENT = "    "
FMT_SKIP = "# fmt: skip"


def is_and(node: ast.expr) -> bool:
    return isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And)


def parts_of(test: ast.expr) -> list[ast.expr]:
    """The operands of an `and` chain, flattened through nested (parenthesised) chains."""
    if not is_and(test):
        return [test]
    assert isinstance(test, ast.BoolOp)
    return [p for v in test.values for p in parts_of(v)]


def chained_asserts(tree: ast.AST) -> list[ast.Assert]:
    found = [n for n in ast.walk(tree) if isinstance(n, ast.Assert) and is_and(n.test)]
    return sorted(found, key=lambda n: n.lineno)


class SplitAsserts(ast.NodeTransformer):
    """The AST the rewritten file must have: each chained assert replaced by its parts."""

    def __init__(self, keep: set[int]) -> None:
        self.keep = keep  # lines of chained asserts left as they are

    def visit_Assert(self, node: ast.Assert) -> ast.AST | list[ast.stmt]:
        if not is_and(node.test) or node.lineno in self.keep:
            return node
        return [ast.Assert(test=p, msg=node.msg) for p in parts_of(node.test)]


def _shape(tree: ast.AST) -> str:
    return ast.dump(tree, include_attributes=False)


@dataclass
class Source:
    """A file's text with conversions from the AST's UTF-8 byte columns to character columns."""

    text: str
    lines: list[str]

    @classmethod
    def of(cls, text: str) -> Source:
        return cls(text, text.splitlines(keepends=True))

    def col(self, lineno: int, byte_col: int) -> int:
        return len(self.lines[lineno - 1].encode()[:byte_col].decode())

    def start(self, node: ast.AST) -> tuple[int, int]:
        return node.lineno, self.col(node.lineno, node.col_offset)  # type: ignore[attr-defined]

    def end(self, node: ast.AST) -> tuple[int, int]:
        end_line = node.end_lineno  # type: ignore[attr-defined]
        return end_line, self.col(end_line, node.end_col_offset)  # type: ignore[attr-defined]

    def segment(self, node: ast.expr) -> str:
        text = ast.get_source_segment(self.text, node)
        assert text is not None
        return text


def _as_assert_part(text: str, node: ast.expr) -> str:
    """`text` as it can stand after `assert ` (or `, `): parenthesised when it cannot bare."""
    for candidate in (text, f"({text})"):
        try:
            got = ast.parse(f"assert {candidate}").body[0]
        except SyntaxError:
            continue
        if isinstance(got, ast.Assert) and _shape(got.test) == _shape(node):
            return candidate
    raise ValueError(f"cannot place {text!r} after assert")


def _comments(src: Source, first: int, last: int) -> list[tuple[tuple[int, int], str]]:
    """The comments on lines first..last, with their (line, column)."""
    chunk = "".join(src.lines[first - 1 : last])
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(chunk).readline):
            if tok.type == tokenize.COMMENT:
                out.append(((tok.start[0] + first - 1, tok.start[1]), tok.string))
    except (tokenize.TokenError, IndentationError):
        pass  # a statement cut out of its block may not tokenize to the end; comments came first
    return out


def _new_statements(src: Source, node: ast.Assert) -> tuple[list[str], str] | None:
    """The statements and comment lines (without indentation) that replace `node`, and the
    comment that followed it; None when it cannot be split line by line (it shares a line with
    other code)."""
    first, last = node.lineno, node.end_lineno or node.lineno
    lead = src.lines[first - 1][: src.col(first, node.col_offset)]
    tail = src.lines[last - 1][src.end(node)[1] :].strip()
    if lead.strip() or (tail and not tail.startswith("#")):
        return None
    parts = parts_of(node.test)
    msg = "" if node.msg is None else ", " + _as_assert_part(src.segment(node.msg), node.msg)
    taken = [(src.start(n), src.end(n)) for n in [*parts, *([node.msg] if node.msg else [])]]
    stray = [
        (pos, text)
        for pos, text in _comments(src, first, last)
        if pos[0] < last or pos[1] < src.end(node)[1]
        if not any(a <= pos < b for a, b in taken)
    ]
    out: list[str] = []
    for i, part in enumerate(parts):
        out += [text for pos, text in stray if pos < src.start(part)]
        stray = [(pos, text) for pos, text in stray if pos >= src.start(part)]
        out.append(f"assert {_as_assert_part(src.segment(part), part)}{msg}")
        # a comment on the line where this part ends, before the next part, stays beside it
        upto = src.start(parts[i + 1]) if i + 1 < len(parts) else src.end(node)
        beside = [text for pos, text in stray if pos[0] == src.end(part)[0] and pos < upto]
        out[-1] += "".join(f"  {text}" for text in beside)
        stray = [(pos, text) for pos, text in stray if text not in beside]
    out += [text for _, text in stray]
    return out, tail


def _ruff() -> str | None:
    beside = Path(sys.executable).parent / "ruff"
    return str(beside) if beside.exists() else shutil.which("ruff")


def _format(lines: list[str], indent: str, path: Path) -> list[str]:
    """`lines` laid out by ruff format at `indent`: nested in `if` blocks so the line length
    counts the indentation, then unwrapped."""
    # Only a statement's first line is indented: the others are inside brackets or strings.
    body = "".join(f"{indent}{stmt}\n" for stmt in lines)
    ruff = _ruff()
    depth, rest = divmod(len(indent), len(INDENT))
    if ruff is None or rest or indent.strip():
        return body.splitlines()
    head = "".join(f"{INDENT * i}if _:\n" for i in range(depth))
    done = subprocess.run(
        [ruff, "format", "--stdin-filename", str(path), "-"],
        input=head + body,
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    if done.returncode != 0:
        return body.splitlines()
    return done.stdout.splitlines()[depth:]


def _lay_out(entries: list[str], tail: str, indent: str, path: Path) -> list[str]:
    """The new lines; the comment that followed the old statement ends the last one. A
    `# fmt: skip` stays only on a part ruff would not lay out on one line: the others no longer
    need it."""
    if tail != FMT_SKIP:
        return _format([*entries[:-1], f"{entries[-1]}  {tail}" if tail else entries[-1]],
                       indent, path)  # fmt: skip
    out: list[str] = []
    for entry in entries:
        laid = _format([entry], indent, path)
        out += laid if len(laid) == 1 else [f"{indent}{entry}  {FMT_SKIP}"]
    return out


def rewrite(text: str, path: Path) -> tuple[str, list[int]]:
    """The file's text with its chained asserts split, and the lines of those left unsplit."""
    src = Source.of(text)
    tree = ast.parse(text)
    new = list(src.lines)
    left: list[int] = []
    for node in reversed(chained_asserts(tree)):
        split = _new_statements(src, node)
        if split is None:
            left.append(node.lineno)
            continue
        line = src.lines[node.lineno - 1]
        indent = line[: len(line) - len(line.lstrip())]
        lines = _lay_out(*split, indent, path)
        new[node.lineno - 1 : node.end_lineno] = [ln + "\n" for ln in lines]
    out = "".join(new)
    want = SplitAsserts(set(left)).visit(ast.parse(text))
    try:
        same = _shape(ast.parse(out)) == _shape(want)
    except SyntaxError:
        same = False
    if not same:
        raise ValueError(f"{path}: the rewrite changed more than the asserts; left as it was")
    return out, sorted(left)


def files(paths: list[str]) -> list[Path]:
    found: list[Path] = []
    for p in map(Path, paths):
        found += sorted(p.rglob("*.py")) if p.is_dir() else [p]
    return found


def check(paths: list[Path]) -> int:
    remaining = 0
    for path in paths:
        for node in chained_asserts(ast.parse(path.read_text(encoding="utf-8"))):
            print(f"{path}:{node.lineno}: assert chained with `and`: split it", file=sys.stderr)
            remaining += 1
    if remaining:
        print(f"{remaining} chained asserts; run scripts/split_asserts.py", file=sys.stderr)
    return 1 if remaining else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 while any remains")
    parser.add_argument("paths", nargs="*", default=[str(REPO / "tests")])
    args = parser.parse_args(argv)
    paths = files(args.paths)
    if args.check:
        return check(paths)
    status = 0
    for path in paths:
        text = path.read_text(encoding="utf-8")
        try:
            out, left = rewrite(text, path)
        except ValueError as err:
            print(f"error: {err}", file=sys.stderr)
            status = 1
            continue
        for lineno in left:
            print(f"{path}:{lineno}: shares its line with other code; split it by hand")
            status = 1
        if out != text:
            path.write_text(out, encoding="utf-8")
            print(f"{path}: split")
    return status


if __name__ == "__main__":
    sys.exit(main())
