"""How a command ends, without Typer: JSON on stdout, one `error:` line on stderr, the
documented exit code. Shared by the Typer app (cli.py) and the fast path (fastpath.py), so both
fail and print exactly alike.
"""

from __future__ import annotations

import re
import sqlite3
import sys
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

from openclaw_sessions.errors import ExitCode, ForbiddenError, NotFoundError, OpenClawError
from openclaw_sessions.policy import wellformed

T = TypeVar("T")
_RAW_CONTROLS = re.compile("[\x7f-\x9f]")  # what json.dumps leaves raw with ensure_ascii=False


def json_text(obj: Any) -> str:
    """JSON with non-ASCII kept as is, but DEL and C1 controls escaped too (json escapes C0
    itself): JSON read on a terminal carries no control character a terminal would obey. It
    always encodes and parses: lone surrogates are U+FFFD and non-finite numbers null."""
    text = wellformed.dumps(obj)  # a lone surrogate → U+FFFD, NaN/Infinity → null
    if text.isascii() and "\x7f" not in text:
        return text
    return _RAW_CONTROLS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def echo_json(obj: Any) -> None:
    """JSON is UTF-8 whatever the locale says (LANG=C, PYTHONIOENCODING=ascii): a CJK snippet
    must reach jq, not raise UnicodeEncodeError."""
    text = json_text(obj) + "\n"
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
    from .render import safe

    line = f"error: {message}"
    if hint:
        line += f" (hint: {hint})"
    print(wellformed.text(safe(line.replace("\n", "\\n"))), file=sys.stderr)


def _redacted(text: str) -> str:
    """An error may quote a key, a path or a value read from a store: it is redacted (default
    patterns: the config may be what failed) like every other string the tool prints."""
    from openclaw_sessions.policy.redact import build_redactor

    return build_redactor().redact_text(text)


def fail(exc: OpenClawError, as_json: bool) -> NoReturn:
    message = _redacted(exc.message)
    if as_json and isinstance(exc, ForbiddenError | NotFoundError):
        status = "forbidden" if isinstance(exc, ForbiddenError) else "error"
        echo_json({"status": status, "error": message})
    error(message, _redacted(exc.hint) if exc.hint else None)
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
        error("interrupted; work done so far is committed, the rest rolled back", None)
        raise SystemExit(int(ExitCode.INTERRUPTED)) from None
    except OSError as exc:
        from openclaw_sessions.errors import StoreError

        fail(StoreError(f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": ")), as_json)


def interrupted(signum: int, frame: object) -> NoReturn:
    """SIGINT handler: Ctrl-C anywhere exits 130 (Click alone would say 1)."""
    # SystemExit unwinds like any exception: open transactions roll back on the way out.
    print(
        "error: interrupted; finished transcripts are kept, the current one rolled back",
        file=sys.stderr,
    )
    raise SystemExit(int(ExitCode.INTERRUPTED))
