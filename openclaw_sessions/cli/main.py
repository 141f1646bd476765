"""The `openclaw-sessions` console script (and `python -m openclaw_sessions`): Ctrl-C exits
130 (guard.interrupted), then the Typer app runs; the app loads only the command it runs
(app.COMMANDS), and guard.failing turns every failure into its exit code."""

from __future__ import annotations

import signal


def main() -> None:
    from . import guard
    from .app import app

    signal.signal(signal.SIGINT, guard.interrupted)  # Ctrl-C exits 130 (Click says 1)
    app(prog_name="openclaw-sessions")
