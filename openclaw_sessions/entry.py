"""The `openclaw-sessions` console script: the CLI, with the garbage collector kept out of
start-up and shutdown.

Start-up allocates some 20,000 long-lived objects (Typer, Click, our modules) and shutdown
collects them all again; neither finds a cycle worth freeing. Collecting is switched off while
the CLI is imported, everything alive is then frozen (moved out of the collector's sight), and
frozen again after the command so that shutdown skips it too. Measured on `history --around`:
~12 ms of a ~100 ms run. Commands themselves run with the collector on.
"""

from __future__ import annotations

import gc


def main() -> None:
    gc.disable()
    try:
        from .cli import main as cli_main
    finally:
        gc.freeze()
        gc.enable()
    try:
        cli_main()
    finally:
        gc.freeze()
