"""Secret redaction for every text this tool indexes or shows: the one door.

``build_redactor(logging.redactPatterns)`` gives the ``Redactor`` (cached per pattern list);
``Redactor.redact`` returns a ``Redacted`` (the text and where its masks are), ``redact_text``
the text alone; ``REDACTION_VERSION`` and ``Redactor.fingerprint`` tell index rows built under
other rules (``fingerprint.defaults``: the default rules' one, without building them). Inside:
the engine (``engine``), the matching view that undoes look-alike characters (``view``), the
anchor passes that say which families run (``scan``), the language the rules are written in
(``syntax``) and the rule tables (``rules/``). Pure: no I/O but the compiled-regex cache
(``recache``) and the fingerprint's (``fingerprint``), stdlib ``re`` only.

The engine and its rules are imported when a name of theirs is first asked for: a search of
current index rows needs only the fingerprint.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .engine import REDACTION_VERSION, Redacted, Redactor, build_redactor

__all__ = ["REDACTION_VERSION", "Redacted", "Redactor", "build_redactor"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import engine

        return getattr(engine, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
