"""The pager for long output on a terminal, as git runs it: `$PAGER` (default `less`) through
the shell, with `LESS=FRX` and `LV=-c` unless they are set (quit when it fits, keep colours,
leave the screen as it was). An empty `PAGER` or `cat` means no pager. The caller decides when
(a terminal, output longer than the screen, no `--no-pager`); paged() decides it for a table.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

DEFAULT = "less"
_NOT_FOUND = 127  # the shell's status for a command it cannot find


def command() -> str | None:
    """The pager to run, or None for none."""
    cmd = os.environ.get("PAGER", DEFAULT).strip()
    return None if cmd in ("", "cat") else cmd


def page(text: str) -> bool:
    """Show ``text`` through the pager; False when there is none to run (the caller prints).
    Ctrl-C belongs to the pager while it runs (as in git): this process ignores it. A pager
    quit before the end raises BrokenPipeError, as a pipe's reader that goes away does."""
    cmd = command()
    if cmd is None:
        return False
    env = dict(os.environ)
    env.setdefault("LESS", "FRX")
    env.setdefault("LV", "-c")
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        proc = subprocess.Popen(cmd, shell=True, stdin=subprocess.PIPE, env=env)
        assert proc.stdin is not None
        try:
            proc.stdin.write(text.encode("utf-8", "replace"))
            proc.stdin.close()
        except BrokenPipeError:  # q in less before the end: the reader had enough
            with contextlib.suppress(BrokenPipeError):
                proc.stdin.close()
            proc.wait()
            raise  # no trailing notes (guard.reader_gone)
        status = proc.wait()
    except BrokenPipeError:
        raise
    except OSError:
        return False
    finally:
        signal.signal(signal.SIGINT, previous)
    return status != _NOT_FOUND


@contextlib.contextmanager
def paged(use_pager: bool, console: Callable[..., Console]) -> Iterator[Console]:
    """A console for a terminal: with ``use_pager``, into a buffer the terminal's width whose
    text goes through the pager when it is taller than the screen (as history's does);
    ``console`` makes a Rich console (render.console)."""
    from .output import write_text

    if not use_pager:
        yield console(False)
        return
    import shutil
    from io import StringIO

    size = shutil.get_terminal_size()
    buf = StringIO()
    yield console(file=buf, width=size.columns)
    text = buf.getvalue()
    if not (text.count("\n") >= size.lines and page(text)):
        write_text(text)
