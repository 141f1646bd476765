"""What leaves the tool on its two streams, Rich-free: JSON on stdout (UTF-8 whatever the
locale, no control character a terminal would obey), and text made safe for a terminal,
including the one `error:` line on stderr.

The one reversible escape of every plain output (tab-separated lines, tables, reports,
messages; `escape`, also `field`): a key, id, label or path shows as one line whatever it
holds, and the escaped form passed back as a KEY names the same session: a backslash is
`\\\\`, a newline `\\n`, a tab `\\t`, and every other control character (C0, DEL, C1: ESC,
CR, OSC introducers…) `\\xNN`; the invisible characters that reorder or hide text (bidi
controls, zero-width ones, the BOM) `\\uNNNN`, so one gateway or session cannot display as
another. `unescape` reverses exactly these; a backslash followed by anything else stays as
typed. Every printed form has one reading: a literal backslash is always printed doubled, so
`a\\nb` is the key with a line break and `a\\\\nb` the one with a backslash and an `n`.
"""

from __future__ import annotations

import re
import sys
from typing import Any

from openclaw_sessions.model import wellformed

_SPECIAL = re.compile(
    "[\\\\\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)
_NAMED = {"\\": "\\\\", "\n": "\\n", "\t": "\\t"}
_ESCAPES = re.compile(r"\\(\\|n|t|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4})")
_UNNAMED = {"\\": "\\", "n": "\n", "t": "\t"}


def _one(m: re.Match[str]) -> str:
    c = m.group()
    return _NAMED.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


def escape(text: str) -> str:
    """``text`` as one line a terminal cannot act on, reversibly (see the module)."""
    return _SPECIAL.sub(_one, text)


def _back(m: re.Match[str]) -> str:
    code = m.group(1)
    return _UNNAMED.get(code) or chr(int(code[1:], 16))


def unescape(text: str) -> str:
    """The text ``escape`` printed as ``text`` (a KEY passed back from plain output)."""
    return _ESCAPES.sub(_back, text) if "\\" in text else text


# Keys, ids, labels and paths in every plain output: the reversible escape above
field = escape

_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def safe(text: str) -> str:
    """``text`` fit for a terminal: control characters (C0 but newline and tab, DEL, C1) as
    visible ``\\xNN`` escapes, so a transcript cannot move the cursor, retitle the window,
    plant a hyperlink or hide text."""
    return _CONTROLS.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


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
    _write_utf8(json_text(obj) + "\n")  # well-formed already


def write_text(text: str) -> None:
    """``text`` on stdout as UTF-8, whatever the locale says (lone surrogates as U+FFFD)."""
    _write_utf8(wellformed.text(text))


def _write_utf8(text: str) -> None:
    out = sys.stdout
    buf = getattr(out, "buffer", None)
    if buf is None:  # a plain text stream (embedding, some test runners)
        out.write(text)
        out.flush()
        return
    out.flush()  # keep order with anything already written as text
    buf.write(text.encode("utf-8"))
    buf.flush()


def write_bytes(data: bytes) -> None:
    """Bytes on stdout as they are (export's raw lines)."""
    sys.stdout.flush()
    buf = getattr(sys.stdout, "buffer", None)
    if buf is None:  # a plain text stream (embedding, some test runners)
        sys.stdout.write(data.decode("utf-8", "surrogateescape"))
        return
    buf.write(data)


def note(text: str) -> None:
    """A note for people on stderr, after the command's output: stdout is flushed first, so
    when its reader has gone (`| head`) the command ends there (guard.reader_gone) and the
    note, about output no one reads, is not printed. A short output meets no EPIPE (it fits
    the pipe), so a reader that left is also asked of the pipe itself (reader_left)."""
    sys.stdout.flush()
    if reader_left():
        return
    print(wellformed.text(safe(text)), file=sys.stderr)


# `| head -n1` reads the whole short output at once, prints one line and exits: a few
# microseconds after the pipe is drained it is closed. A reader that stays (`| cat`, `| less`)
# drains it as fast. So the first note waits for the pipe to be drained and then this long for a
# close; a reader that reads nothing at all does not hold the notes back longer than _PATIENCE.
_GRACE = 0.02
_PATIENCE = 0.5
_asked: list[bool] = []  # the first note waits; later ones only look


def reader_left() -> bool:
    """stdout is a pipe whose reader has closed it (POLLERR on our end), or closes it right
    after draining what was written (as `head` does)."""
    import os
    import select
    import stat
    import time

    try:
        fd = sys.stdout.fileno()
        if not stat.S_ISFIFO(os.fstat(fd).st_mode) or not hasattr(select, "poll"):
            return False
    except (OSError, ValueError):
        return False
    poller = select.poll()
    poller.register(fd, 0)  # no event asked: POLLERR and POLLHUP are always reported

    def closed(ms: int) -> bool:
        return any(ev & (select.POLLERR | select.POLLHUP) for _fd, ev in poller.poll(ms))

    if _asked:
        return closed(0)
    _asked.append(True)
    start = time.monotonic()
    drained: float | None = None
    while not closed(2):
        now = time.monotonic()
        if _unread(fd) == 0:
            drained = drained or now
            if now - drained >= _GRACE:
                return False
        if now - start >= _PATIENCE:
            return False
    return True


def _unread(fd: int) -> int:
    """Bytes written to the pipe and not yet read (FIONREAD works on either end; 0 where it
    cannot be asked)."""
    import fcntl
    import struct
    import termios

    try:
        return int(struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0])
    except OSError:
        return 0


def error(message: str, hint: str | None) -> None:
    """One line, whatever the message echoes (a key with a newline in it stays one line, in
    the escaped form a KEY argument takes back)."""
    line = f"error: {message}"
    if hint:
        line += f" (hint: {hint})"
    print(wellformed.text(field(line)), file=sys.stderr)
