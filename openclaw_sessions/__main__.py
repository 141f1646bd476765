"""`python -m openclaw_sessions` is the same program as `openclaw-sessions`."""

from .cli.main import main

main()
