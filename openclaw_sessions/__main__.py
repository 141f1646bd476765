"""`python -m openclaw_sessions` is the same program as `openclaw-sessions`."""

from .entry import main

main()
