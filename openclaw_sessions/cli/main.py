"""The `openclaw-sessions` console script: the CLI, with the garbage collector kept out of
start-up and shutdown.

Start-up allocates some 20,000 long-lived objects (Typer, Click, our modules) and shutdown
collects them all again; neither finds a cycle worth freeing. Collecting is switched off while
the CLI is imported, everything alive is then frozen (moved out of the collector's sight), and
frozen again after the command so that shutdown skips it too. Measured on `history --around`:
~12 ms of a ~100 ms run. Commands themselves run with the collector on.

`search --json` and `history --json` go through the fast path (fastpath.py) when it accepts
their argv; everything else through the Typer app (cli.py).
"""

from __future__ import annotations

import gc
from typing import NoReturn


def _collect_from_here() -> None:
    gc.freeze()
    gc.enable()


def _reader_gone() -> NoReturn:
    """stdout's reader went away (`| head`): exit 1 quietly, as Click does, instead of a
    traceback; stdout now points at /dev/null so the final flush cannot fail again."""
    import os
    import sys

    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    raise SystemExit(1)


def main() -> None:
    import sys

    gc.disable()
    try:
        from .fastargs import run

        try:
            code = run(sys.argv[1:], ready=_collect_from_here)
        except BrokenPipeError:
            _reader_gone()
        if code is not None:
            raise SystemExit(code)
        from .app import main as cli_main

        _collect_from_here()
        cli_main()
    finally:
        gc.freeze()  # shutdown skips everything that lived
        gc.enable()
