"""openclaw-sessions: search and maintain OpenClaw session transcripts from the shell."""

__version__ = "0.1.0"
