"""Secret redaction for every text this tool indexes or shows: the one door.

``build_redactor(logging.redactPatterns)`` gives the ``Redactor`` (cached per pattern list);
``Redactor.redact`` returns a ``Redacted`` (the text and where its masks are), ``redact_text``
the text alone; ``REDACTION_VERSION`` and ``Redactor.fingerprint`` tell index rows built under
other rules. Inside: the engine (``engine``), the matching view that undoes look-alike
characters (``view``), the anchor passes that say which families run (``scan``), the language
the rules are written in (``syntax``) and the rule tables (``rules/``). Pure: no I/O but the
compiled-regex cache (``recache``), stdlib ``re`` only.
"""

from .engine import REDACTION_VERSION, Redacted, Redactor, build_redactor

__all__ = ["REDACTION_VERSION", "Redacted", "Redactor", "build_redactor"]
