"""How a command ends, without Typer: JSON on stdout, one `error:` line on stderr, the
documented exit code. Shared by the Typer app (cli.py) and the fast path (fastpath.py), so both
fail and print exactly alike.
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

from . import wellformed
from .errors import ExitCode, ForbiddenError, NotFoundError, OpenClawError

T = TypeVar("T")


def echo_json(obj: Any) -> None:
    """JSON is UTF-8 whatever the locale says (LANG=C, PYTHONIOENCODING=ascii): a CJK snippet
    must reach jq, not raise UnicodeEncodeError. Nor may a lone surrogate (a path or argument
    that is not UTF-8) or a NaN: wellformed.dumps writes U+FFFD and null."""
    text = wellformed.dumps(obj) + "\n"
    out = sys.stdout
    buf = getattr(out, "buffer", None)
    if buf is None:  # a plain text stream (embedding, some test runners)
        out.write(text)
        out.flush()
        return
    out.flush()  # keep order with anything already written as text
    buf.write(text.encode("utf-8"))
    buf.flush()


def error(message: str, hint: str | None) -> None:
    """One line, whatever the message echoes (a key with a newline in it stays one line)."""
    line = f"error: {message}"
    if hint:
        line += f" (hint: {hint})"
    line = line.replace("\r", "\\r").replace("\n", "\\n")
    print(wellformed.text(line), file=sys.stderr)


def fail(exc: OpenClawError, as_json: bool) -> NoReturn:
    if as_json and isinstance(exc, ForbiddenError | NotFoundError):
        status = "forbidden" if isinstance(exc, ForbiddenError) else "error"
        echo_json({"status": status, "error": exc.message})
    error(exc.message, exc.hint)
    raise SystemExit(int(exc.exit_code))


def guarded(as_json: bool, fn: Callable[[], T]) -> T:
    """Run the core; every failure becomes one `error:` line and a documented exit code."""
    try:
        return fn()
    except OpenClawError as exc:
        fail(exc, as_json)
    except sqlite3.Error as exc:
        from .db import translate

        fail(translate(exc), as_json)
    except KeyboardInterrupt:
        error("interrupted; work done so far is committed, the rest rolled back", None)
        raise SystemExit(int(ExitCode.INTERRUPTED)) from None
    except OSError as exc:
        from .errors import StoreError

        fail(StoreError(f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": ")), as_json)


def interrupted(signum: int, frame: object) -> NoReturn:
    """SIGINT handler: Ctrl-C anywhere exits 130 (Click alone would say 1)."""
    # SystemExit unwinds like any exception: open transactions roll back on the way out.
    print(
        "error: interrupted; finished transcripts are kept, the current one rolled back",
        file=sys.stderr,
    )
    raise SystemExit(int(ExitCode.INTERRUPTED))
