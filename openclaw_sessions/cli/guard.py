"""How a command ends, in one place: the error family (errors.py) and what the core lets
through (SQLite, the OS) become one `error:` line and a documented exit code; a reader that
goes away (`| head`, a pager quit early) ends it quietly with 0; Ctrl-C ends it with 130.
app.Command runs every command inside ``failing``; main.py installs ``interrupted``.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

from openclaw_sessions.errors import (
    ExitCode,
    ForbiddenError,
    NotFoundError,
    OpenClawError,
)

from .output import echo_json, error

# Every transaction either committed or rolls back as the exit unwinds (a transcript, a
# group of index rows): nothing is half-written.
INTERRUPTED = "interrupted; work done so far is committed, the rest rolled back"


def redacted(text: str) -> str:
    """An error may quote a key, a path or a value read from a store: it is redacted (default
    patterns: the config may be what failed) like every other string the tool prints."""
    from openclaw_sessions.redact import build_redactor

    return build_redactor().redact_text(text)


def fail(exc: OpenClawError, as_json: bool) -> NoReturn:
    """``as_json``: the caller reads JSON, so a refusal (forbidden, not found) is JSON on
    stdout too, as upstream answers it."""
    message = redacted(exc.message)
    if as_json and isinstance(exc, ForbiddenError | NotFoundError):
        status = "forbidden" if isinstance(exc, ForbiddenError) else "error"
        echo_json({"status": status, "error": message})
    error(message, redacted(exc.hint) if exc.hint else None)
    raise SystemExit(int(exc.exit_code))


@contextmanager
def failing(as_json: bool) -> Iterator[None]:
    """Run a command; every way it can fail ends here, with its exit code."""
    try:
        yield
        sys.stdout.flush()  # a reader gone shows here, not at exit
    except OpenClawError as exc:
        fail(exc, as_json)
    except KeyboardInterrupt:
        interrupted()
    except BrokenPipeError:
        reader_gone()
    except (sqlite3.Error, OSError) as exc:  # what the core lets through (the MCP's too)
        from openclaw_sessions.store.db import failure

        fail(failure(exc), as_json)


def reader_gone() -> NoReturn:
    """stdout's reader went away: what was asked was being printed and the reader had enough.
    Exit 0, quietly (no trailing note: output.note flushes stdout first, so it fails before
    it prints); stdout points at /dev/null so that the interpreter's last flush cannot fail."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    raise SystemExit(int(ExitCode.OK))


def interrupted(signum: int = 0, frame: object = None) -> NoReturn:
    """Ctrl-C (the SIGINT handler, main.py): exit 130 (Click alone would say 1)."""
    # SystemExit unwinds like any exception: open transactions roll back on the way out.
    error(INTERRUPTED, None)
    raise SystemExit(int(ExitCode.INTERRUPTED))
