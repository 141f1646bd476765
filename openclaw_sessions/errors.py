"""The one exception family of the core; each error carries the exit code the CLI maps it to."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Documented exit codes (see the README and the man page)."""

    OK = 0
    NOTHING = 1  # search found nothing, history window empty
    USAGE = 2  # bad option, bad query, unknown or forbidden session
    STORE = 3  # database missing, corrupt, locked past the timeout, disk full
    PROBLEMS = 4  # import/reindex finished with problems; status needs attention
    INTERRUPTED = 130


class OpenClawError(Exception):
    """Base error: a one-line message, an optional hint, and an exit code."""

    exit_code: ExitCode = ExitCode.USAGE

    code = "usage_error"  # a stable, machine-readable name of the failure (status --json)

    def __init__(self, message: str, *, hint: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        if code is not None:
            self.code = code


class UsageError(OpenClawError):
    """Invalid input from the caller (exit 2, the base's code)."""


class ConfigError(UsageError):
    """The OpenClaw config file (or a pattern in it) is invalid (exit 2)."""


class NotFoundError(UsageError):
    """An unknown session key or id (exit 2); JSON status "error"."""


class ForbiddenError(UsageError):
    """The caller may not see the target session (exit 2); JSON status "forbidden"."""


class StoreError(OpenClawError):
    """The database is missing, corrupt, locked, read-only or full (exit 3)."""

    exit_code = ExitCode.STORE
    code = "store_error"
