"""The base error of the palace namespace, defined at its lowest layer.

:mod:`palace.nlp` knows nothing of storage or the CLI, yet the spaCy pipeline it loads can
be missing: it raises :class:`ModelError`, a :class:`PalaceError` like every error a user
can meet. Both are defined here so that the arrows stay one way (``cli → palace → nlp``);
:mod:`palace.errors` re-exports them and holds the rest of the hierarchy.
"""

from __future__ import annotations


class PalaceError(Exception):
    """Base class of palace's errors: a message plus a ``hint`` (the next step)."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class ModelError(PalaceError):
    """An offline model (ONNX embedder or spaCy pipeline) is missing or cannot be loaded."""
