"""The `sessions` list for people: a table on a terminal; off a terminal one session per line,
tab-separated, never cropped (`sessionKey  agentId  sessionId  updated  messages  generations
index  label`), so `cut`, `sort`, `awk` and `fzf` work. Every field is escaped as every plain
output escapes it (output.field): a tab or newline in a key or label cannot split its line.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from .output import field, safe, write_text
from .render import console

if TYPE_CHECKING:
    from openclaw_sessions.read.listing import Listed

    from .style import Times


def _field(text: str | None) -> str:
    return safe(" ".join((text or "").split()))  # tabs and newlines would split the line


def sessions_list(listed: Listed, times: Times) -> None:
    if not sys.stdout.isatty():
        for r in listed.rows:
            cells = [
                r.session_key,
                r.agent_id,
                r.session_id or "-",
                times(r.updated_at),
                str(r.messages),
                str(r.generations),
                r.index_state,
                r.label or "",
            ]
            write_text("\t".join(map(field, cells)) + "\n")
        return
    from rich import box
    from rich.table import Table

    out = console(False)
    # Narrower terminals drop the label and the generations, then the message count: the
    # key and its index state always show (a key folds, never crops).
    cols = ["msgs", "gens", "label"][: 0 if out.width < 50 else 1 if out.width < 72 else 3]
    table = Table(show_header=True, header_style="bold", expand=False, box=box.SIMPLE_HEAD)
    table.add_column("updated", no_wrap=out.width >= 72, overflow="fold", min_width=10)
    table.add_column("session", overflow="fold", min_width=12)  # agent:<id>:… names the agent
    if "label" in cols:
        table.add_column("label", overflow="fold", max_width=24)
    for name in ("msgs", "gens"):
        if name in cols:
            table.add_column(name, justify="right", no_wrap=True)
    table.add_column("index", no_wrap=True, min_width=7)
    for r in listed.rows:
        cells = [times(r.updated_at), field(r.session_key)]
        cells += [_field(r.label)] if "label" in cols else []
        cells += [str(r.messages)] if "msgs" in cols else []
        cells += [str(r.generations)] if "gens" in cols else []
        table.add_row(*cells, r.index_state)
    out.print(table)
