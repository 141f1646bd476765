"""A disk cache of redaction's compiled regular expressions, for start-up time.

`re` parses patterns in pure Python, and redaction has hundreds (its passes, key halves and
families: ~60 KB of source). Each is compiled only when its pre-check first holds
(``syntax.lazy``), yet the first page of ``history`` still meets most of them, and every CLI
run is a new process. The compiled code is a list of integers that `_sre` accepts back
directly, so it is kept per interpreter (keyed on its version and `_sre.MAGIC`) in a `marshal`
file (plain data: loading it runs no code). Each entry stays marshalled bytes until a pattern
asks for it: a run uses a fraction of the file, and decoding the integer lists of the rest
would cost every run milliseconds. Anything unexpected — another Python, a damaged file, an
unwritable cache dir — falls back to `re.compile`, so behaviour never changes.

Why it stays (measured again after the one-pass search, issue #36: CPU time, median of 15
runs, interleaved, on a 2,154-session store, with and without this module): the first
``history --json`` page takes ~108 ms with it and ~155 ms without (+43%); ``search --json``
no longer builds the rules for current index rows (redact/fingerprint.py), so it gains
nothing there (~93 vs ~91 ms). Below ~20% on what a user waits for, the module would not be
worth its CPython internals.
Redaction is its only user: the few small patterns elsewhere compile with ``re`` directly.
"""

from __future__ import annotations

import atexit
import marshal
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from openclaw_sessions import settings

try:  # CPython internals; absent or different elsewhere → plain re.compile
    import _sre  # type: ignore[import-not-found]
    from re import _compiler, _parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    _sre = None

_Entry = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]
# pattern key → its _Entry, marshalled; memo key → its string
_cache: dict[Any, bytes | str] | None = None
_dirty = False
_used: set[Any] = set()  # keys this run asked for: they move to the end of the file's order
# Entries no run asked for lately (old rule versions, user patterns since removed) are dropped
# beyond this many, oldest first: the file keeps about one working set, not every pattern ever.
SPARE_ENTRIES = 256


def cache_file() -> Path:
    tag = f"{sys.implementation.cache_tag}-{getattr(_sre, 'MAGIC', 0)}-{sys.hexversion:x}"
    return settings.regex_cache_dir() / f"regex2-{tag}.marshal"


def _load() -> dict[Any, bytes | str]:
    global _cache
    if _cache is None:
        _cache = {}
        try:
            data = marshal.loads(cache_file().read_bytes())
            if isinstance(data, dict):
                _cache = data
        except (OSError, ValueError, EOFError, TypeError):
            pass
    return _cache


def _save() -> None:
    if not _dirty or _cache is None:
        return
    path = cache_file()
    # Insertion order is recency: what this run used goes last, the oldest spares go first.
    spare = [k for k in _cache if k not in _used]
    kept = spare[max(0, len(spare) - SPARE_ENTRIES) :] + [k for k in _cache if k in _used]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(marshal.dumps({k: _cache[k] for k in kept}))
        os.replace(tmp, path)  # atomic: a reader sees the old or the new file
    except (OSError, ValueError):
        pass


def _fresh(pattern: str, flags: int) -> tuple[re.Pattern[str], _Entry]:
    parsed: Any = _parser.parse(pattern, flags)
    code = _compiler._code(parsed, flags)
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, i in groupindex.items():
        indexgroup[i] = name
    # plain ints only (RegexFlag is an IntFlag): marshal stores nothing else
    entry: _Entry = (
        int(flags | parsed.state.flags),
        [int(c) for c in code],
        int(parsed.state.groups - 1),
        groupindex,
        tuple(indexgroup),
    )
    return _sre.compile(pattern, *entry), entry


def _put(key: Any, value: bytes | str) -> None:
    """Add an entry; the file is written at exit, once something was added."""
    global _dirty
    if not _dirty:
        atexit.register(_save)
    _load()[key] = value
    _dirty = True


def memo(key: tuple[Any, ...], build: Callable[[], str]) -> str:
    """A string derived deterministically from `key`, kept with the compiled patterns."""
    _used.add(key)
    value = _load().get(key)
    if not isinstance(value, str):
        value = build()
        _put(key, value)
    return value


def compile(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """re.compile, with the compiled code reused across runs."""
    flags = int(flags)
    if _sre is None or not settings.regex_cache():
        return re.compile(pattern, flags)
    cache = _load()
    _used.add((pattern, flags))
    packed = cache.get((pattern, flags))
    if isinstance(packed, bytes):
        try:
            return _sre.compile(pattern, *marshal.loads(packed))  # type: ignore[no-any-return]
        except Exception:  # noqa: BLE001 - stale or foreign entry: recompile below
            pass
    try:
        compiled, entry = _fresh(pattern, flags)
    except Exception:  # noqa: BLE001 - internals changed: the public API always works
        return re.compile(pattern, flags)
    _put((pattern, flags), marshal.dumps(entry))
    return compiled
