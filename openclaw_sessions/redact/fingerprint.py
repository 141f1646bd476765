"""The default rules' fingerprint (``Redactor().fingerprint``) without building the rules: a
search whose index rows are current needs only that, and the rules cost more to import than
the rest of the search. Kept in a two-line file beside the regex cache, keyed on this
package's version and the name, size and modification time of every module of redact/ (the
rules' only home), so any change of a rule computes it again; anything unexpected (an
unreadable or damaged file, no cache dir) computes it, so the value never differs.
"""

from __future__ import annotations

import os
import zlib
from pathlib import Path

from openclaw_sessions import __version__, settings

_HERE = Path(__file__).parent


def _code_key() -> str:
    """One line naming the code the rules are made of (no hash: hashlib loads OpenSSL)."""
    parts = [__version__]
    for folder in (_HERE, _HERE / "rules"):
        with os.scandir(folder) as entries:
            for e in sorted(entries, key=lambda e: e.name):
                if e.name.endswith(".py"):
                    st = e.stat()
                    parts.append(f"{folder.name}/{e.name}:{st.st_size}:{st.st_mtime_ns}")
    return " ".join(parts)


def defaults() -> str:
    """The fingerprint of the default rules (no user pattern, no secret value)."""
    key = _code_key()
    # one file per code (a pipx install and a checkout side by side do not take turns)
    path = settings.regex_cache_dir() / f"redaction-fingerprint-{zlib.crc32(key.encode()):08x}"
    try:
        got, _, fp = path.read_text("utf-8").partition("\n")
        if got == key and len(fp) == 16:
            return fp
    except (OSError, UnicodeDecodeError):
        pass
    from .engine import build_redactor  # (on a miss only: the rules are the cost)

    fp = build_redactor().fingerprint
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(f"{key}\n{fp}", "utf-8")
        os.replace(tmp, path)  # atomic: a reader sees the old line or the new one
    except OSError:
        pass
    return fp
