"""The `sessions` list for people: a table on a terminal (every key whole on one line: other
columns go first, _COLUMN_SETS); off a terminal one session per line,
tab-separated, never cropped (`sessionKey  agentId  sessionId  updated  messages  generations
index  label`), so `cut`, `sort`, `awk` and `fzf` work. Every field is escaped as every plain
output escapes it (output.field): a tab or newline in a key or label cannot split its line.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from .output import field, safe, write_text
from .pager import paged
from .render import console

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from openclaw_sessions.read.listing import Listed

    from .style import Times


def _field(text: str | None) -> str:
    return safe(" ".join((text or "").split()))  # tabs and newlines would split the line


def sessions_list(listed: Listed, times: Times, *, use_pager: bool = False) -> None:
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
    with paged(use_pager, console) as out:
        _table(listed, times, out)


# The columns shown, widest set first: a narrower terminal gives up the generations, the
# message count, then the label (the chat's name says more than a count), then folds the time
# and at last drops it, before a key would fold. The key and its index state always show.
_COLUMN_SETS = (
    ("updated", "label", "msgs", "gens"),
    ("updated", "label", "msgs"),
    ("updated", "label"),
    ("updated",),
    ("updated-folded",),
    (),
)


def _table(listed: Listed, times: Times, out: Console) -> None:
    """The table whose every key is whole on one line: the widest set of columns that fits
    the terminal; when even key and index state do not, the table is laid out wider than the
    terminal, which wraps the line (a copied key stays one key) rather than fold or crop it."""
    from rich.measure import Measurement

    for cols in _COLUMN_SETS:
        table = _build(listed, times, cols)
        need = Measurement.get(out, out.options.update(width=1 << 16), table).maximum
        if need <= out.width:
            break
    out.width = max(out.width, need)
    out.print(table)


def _build(listed: Listed, times: Times, cols: tuple[str, ...]) -> Table:
    from rich import box
    from rich.table import Table

    table = Table(show_header=True, header_style="bold", expand=False, box=box.SIMPLE_HEAD)
    dated = "updated" in cols or "updated-folded" in cols
    if dated:  # folded: the date above the time of day
        table.add_column(
            "updated", no_wrap="updated" in cols, width=None if "updated" in cols else 10
        )
    table.add_column("session", no_wrap=True)  # agent:<id>:… names the agent
    if "label" in cols:
        table.add_column("label", overflow="fold", max_width=24)
    for name in ("msgs", "gens"):
        if name in cols:
            table.add_column(name, justify="right", no_wrap=True)
    table.add_column("index", no_wrap=True, min_width=7)
    for r in listed.rows:
        cells = [times(r.updated_at)] if dated else []
        cells += [field(r.session_key)]
        cells += [_field(r.label)] if "label" in cols else []
        cells += [str(r.messages)] if "msgs" in cols else []
        cells += [str(r.generations)] if "gens" in cols else []
        table.add_row(*cells, r.index_state)
    return table
