"""Upstream OpenClaw's rules as pure functions: no SQLite, no files (the compiled-regex cache,
recache.py, is the one exception). Transcript lines to entries, the transcript tree and its
active branch, indexed text, FTS5 queries, redaction, history sanitising, visibility."""
