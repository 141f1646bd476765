"""A transcript's active branch as a value (pure), built from the tree walk (tree.py) over
event rows; stored by store/branches.py, shown a window at a time by read/history.py."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Any, NamedTuple, overload

from . import tree


class Row(NamedTuple):
    """One message on the active branch (what the page and window maths need)."""

    seq: int
    entry_id: str
    role: str | None
    ts: int | None


_new_row = tuple.__new__  # NamedTuple's own __new__ is a slower Python function


class Messages(Sequence[Row]):
    """The active branch's messages as columns: a long branch decodes fast, and Row tuples
    are only built for the rows a page or window shows."""

    __slots__ = ("seqs", "ids", "roles", "ts")

    def __init__(
        self, seqs: list[int], ids: list[str], roles: list[str | None], ts: list[int | None]
    ) -> None:
        self.seqs, self.ids, self.roles, self.ts = seqs, ids, roles, ts

    def __len__(self) -> int:
        return len(self.seqs)

    @overload
    def __getitem__(self, i: int) -> Row: ...
    @overload
    def __getitem__(self, i: slice) -> Messages: ...
    def __getitem__(self, i: int | slice) -> Row | Messages:
        if isinstance(i, slice):
            return Messages(*(col[i] for col in self._cols))
        return _new_row(Row, (self.seqs[i], self.ids[i], self.roles[i], self.ts[i]))

    @property
    def _cols(self) -> tuple[list[Any], ...]:
        return self.seqs, self.ids, self.roles, self.ts

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Messages):
            return NotImplemented
        return self._cols == other._cols

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Messages({list(self)!r})"

    def index_of(self, entry_id: str) -> int | None:
        try:
            return self.ids.index(entry_id)
        except ValueError:
            return None

    def without_roles(self, dropped: Collection[str]) -> Messages:
        keep = [i for i, r in enumerate(self.roles) if r not in dropped]
        if len(keep) == len(self.roles):
            return self
        return Messages(*([col[i] for i in keep] for col in self._cols))

    def __add__(self, other: Messages) -> Messages:
        return Messages(*(a + b for a, b in zip(self._cols, other._cols, strict=True)))


class Branch(NamedTuple):
    """A transcript's active branch: its leaf, its messages, the ids of its other entries."""

    leaf: str | None  # what an append must hang under to extend it (tree.Walk.leaf)
    rows: Messages
    others: list[str]  # ids besides its messages' whose reuse would change it (tree.Walk)
    flat: bool = False  # no line ever moved the leaf: the branch is every line (tree.Walk)
    marks: list[tree.Mark] = []  # its reset and compaction lines (tree.Walk)

    def extended(self, ext: tree.Extension) -> Branch:
        rows = self.rows + messages_of(ext.messages)
        return Branch(ext.leaf, rows, self.others + ext.others, self.flat, self.marks + ext.marks)


def messages_of(found: list[tree.Message]) -> Messages:
    columns = zip(*found, strict=True) if found else ((), (), (), ())
    return Messages(*map(list, columns))


def walk(rows: Iterable[tree.EventRow]) -> Branch:
    """The active branch, from event rows in seq order."""
    w = tree.walk(rows)
    return Branch(w.leaf, messages_of(w.messages), w.others, w.flat, w.marks)
