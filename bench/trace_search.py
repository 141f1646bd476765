#!/usr/bin/env python3
"""How much of our code one command runs: the distinct functions (code objects, comprehensions
included) and files of openclaw_sessions that a sys.setprofile trace sees, counted from when
the command's own function starts (``--from run``: after Typer has parsed argv and loaded the
command's module) or from the console script's main (``--from main``: parsing, the command's
imports and their module bodies too). Issue 36 measured `search deploy --json` on the bundled
sample this way (README's first command builds that state).

    OPENCLAW_STATE_DIR=demo-state .venv/bin/python bench/trace_search.py [--from run|main]
        [--list] [-- search deploy --json]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
from collections import Counter
from types import CodeType, FrameType
from typing import Any

import openclaw_sessions
from openclaw_sessions.cli.main import main as cli_main

ROOT = os.path.dirname(openclaw_sessions.__file__) + os.sep
COMMANDS = os.path.join(ROOT, "cli", "commands", "")  # each command's run() starts it


def trace(argv: list[str], start: str) -> tuple[Counter[CodeType], int]:
    """(calls per code object of ours, the command's exit code)."""
    seen: Counter[CodeType] = Counter()
    on = start == "main"

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal on
        if event != "call":
            return
        code = frame.f_code
        if not on and code.co_name == "run" and code.co_filename.startswith(COMMANDS):
            on = True
        if on and code.co_filename.startswith(ROOT):
            seen[code] += 1

    sys.argv = ["openclaw-sessions", *argv]
    code = 0
    with contextlib.redirect_stdout(io.StringIO()):
        sys.setprofile(profile)
        try:
            cli_main()
        except SystemExit as exc:
            code = int(exc.code or 0)
        finally:
            sys.setprofile(None)
    return seen, code


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--from", dest="start", choices=("run", "main"), default="run")
    ap.add_argument("--list", action="store_true", help="each file's functions")
    ap.add_argument("argv", nargs="*", default=["search", "deploy", "--json"])
    args = ap.parse_args()
    seen, code = trace(args.argv, args.start)
    files = Counter(c.co_filename[len(ROOT) :] for c in seen)
    print(
        f"{' '.join(args.argv)} (exit {code}), from {args.start}: {len(seen)} functions in"
        f" {len(files)} files, {sum(seen.values())} calls"
    )
    if args.list:
        for f, n in sorted(files.items()):
            names = sorted(c.co_name for c in seen if c.co_filename[len(ROOT) :] == f)
            print(f"{n:4d}  {f}: {', '.join(names)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
