"""The default redaction rules, in the order they run: ``FIELDS``, the assignment families
(matched at a separator: scan.py), and ``RULES``, the whole-text families (behind anchors).

Upstream OpenClaw's families come first, in upstream's order (``upstream``), then the ones
beyond it (``generic``), more vendors (``vendors``), secrets that the words before them tell
(``context``), those in the shapes of files and codes (``files``), names and values apart
(``pairs``) and secrets said in words or passed to calls (``spoken``). The tools that take a
password are one family (``tools``); which names hold secrets and which values are real ones
is ``names``' judgement. The language they are written in: ``..syntax``.
"""

from openclaw_sessions.redact.syntax import Field, Rule

from .context import CONTEXT_RULES
from .files import FILE_RULES
from .generic import GENERIC_FIELDS, GENERIC_RULES
from .pairs import AWS_SECRET_RULE, PAIR_RULES
from .spoken import SPOKEN_RULES
from .upstream import UPSTREAM_FIELDS, UPSTREAM_RULES
from .vendors import VENDOR_RULES

FIELDS: tuple[Field, ...] = UPSTREAM_FIELDS + GENERIC_FIELDS
RULES: tuple[Rule, ...] = (
    UPSTREAM_RULES + GENERIC_RULES + VENDOR_RULES + CONTEXT_RULES + FILE_RULES + PAIR_RULES
    + SPOKEN_RULES
)  # fmt: skip
# Families with no literal to anchor on: run on every text long enough to hold one.
ALWAYS: tuple[Rule, ...] = (AWS_SECRET_RULE,)
