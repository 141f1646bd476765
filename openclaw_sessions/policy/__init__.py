"""Upstream OpenClaw's rules as pure functions: no SQLite, no files. Transcript lines to entries,
the transcript tree and its active branch, indexed text, FTS5 queries, history sanitising,
visibility. (Secret redaction, as pure, is its own package: ``openclaw_sessions.redact``.)"""
