"""How a command ends, without Typer: JSON on stdout, one `error:` line on stderr, the
documented exit code. Shared by the Typer app (app.py) and the fast path (fastargs.py), through
run.py, so both fail and print exactly alike.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import NoReturn, TypeVar

from openclaw_sessions.errors import ExitCode, ForbiddenError, NotFoundError, OpenClawError

from .output import echo_json, error

T = TypeVar("T")
# Every transaction either committed or rolls back as the exit unwinds (a transcript, a
# group of index rows): nothing is half-written.
INTERRUPTED = "interrupted; work done so far is committed, the rest rolled back"


def redacted(text: str) -> str:
    """An error may quote a key, a path or a value read from a store: it is redacted (default
    patterns: the config may be what failed) like every other string the tool prints."""
    from openclaw_sessions.redact import build_redactor

    return build_redactor().redact_text(text)


def fail(exc: OpenClawError, as_json: bool) -> NoReturn:
    message = redacted(exc.message)
    if as_json and isinstance(exc, ForbiddenError | NotFoundError):
        status = "forbidden" if isinstance(exc, ForbiddenError) else "error"
        echo_json({"status": status, "error": message})
    error(message, redacted(exc.hint) if exc.hint else None)
    raise SystemExit(int(exc.exit_code))


def guarded(as_json: bool, fn: Callable[[], T]) -> T:
    """Run the core; every failure becomes one `error:` line and a documented exit code."""
    try:
        return fn()
    except OpenClawError as exc:
        fail(exc, as_json)
    except sqlite3.Error as exc:
        from openclaw_sessions.store.db import translate

        fail(translate(exc), as_json)
    except KeyboardInterrupt:
        error(INTERRUPTED, None)
        raise SystemExit(int(ExitCode.INTERRUPTED)) from None
    except BrokenPipeError:
        raise  # stdout's reader went away: not a failure (run.run_command ends quietly)
    except OSError as exc:
        from openclaw_sessions.errors import StoreError

        fail(StoreError(f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": ")), as_json)


def interrupted(signum: int, frame: object) -> NoReturn:
    """SIGINT handler: Ctrl-C anywhere exits 130 (Click alone would say 1)."""
    # SystemExit unwinds like any exception: open transactions roll back on the way out.
    error(INTERRUPTED, None)
    raise SystemExit(int(ExitCode.INTERRUPTED))
