"""The vectors a warm process keeps in memory for exact scans: one float32 matrix, by
drawer id (:class:`VectorCache`). The vector store fills it and keeps it current
(:meth:`palace.store.vectors._ChromaStore.similarities`, :meth:`~palace.store.vectors._ChromaStore.preload`).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = ["VECTOR_CACHE", "VectorCache"]

#: Vectors a warm process keeps in memory for exact scans: 384 float32 values, 1.5 KB
#: each, so at most 192 MiB (a palace of 131,072 drawers).
VECTOR_CACHE = 131_072


class VectorCache:
    """Stored vectors a warm process keeps in one float32 matrix (rows grow by doubling
    up to ``capacity``), by drawer id: an exact scan of any scope is then one
    matrix-vector product. A drawer's id names its text, so its vector changes only when
    it is written again: the store drops what it rewrites (:meth:`drop`) and clears the
    cache when another process wrote. At capacity, the rows still held move over the
    dropped ones; once every row is held it takes no more. Not thread-safe: the store
    calls it under its lock."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.slots: dict[str, int] = {}
        self.matrix: np.ndarray | None = None
        self.used = 0

    def __len__(self) -> int:
        return len(self.slots)

    def __contains__(self, doc_id: str) -> bool:
        return doc_id in self.slots

    def add(self, ids: Sequence[str], matrix: np.ndarray) -> None:
        """Keep the vectors ``matrix`` (one row per id of ``ids``), as room allows."""
        for doc_id, row in zip(ids, matrix):
            slot = self.slots.get(doc_id)
            if slot is None:
                if (self.matrix is None or self.used == len(self.matrix)) and not self._grow(matrix.shape[1]):
                    return
                slot, self.used = self.used, self.used + 1
                self.slots[doc_id] = slot
            self.matrix[slot] = row

    def _grow(self, dim: int) -> bool:
        """Make room for one more row: double the matrix, or, at capacity, move the rows
        still held over those dropped. False when every row is held."""
        size = 0 if self.matrix is None else len(self.matrix)
        if size >= self.capacity:
            if len(self.slots) == self.used:
                return False
            order = sorted(self.slots.items(), key=lambda item: item[1])
            self.matrix[:len(order)] = self.matrix[[slot for _, slot in order]]
            self.slots = {doc_id: new for new, (doc_id, _) in enumerate(order)}
            self.used = len(order)
            return True
        grown = np.empty((min(self.capacity, max(1024, 2 * size)), dim), dtype=np.float32)
        if self.matrix is not None:
            grown[:self.used] = self.matrix[:self.used]
        self.matrix = grown
        return True

    def drop(self, ids) -> None:
        """Forget ``ids`` (their rows stay unused until :meth:`clear`)."""
        for doc_id in ids:
            self.slots.pop(doc_id, None)

    def clear(self) -> None:
        self.slots.clear()
        self.used = 0

    def similarities(self, ids: Sequence[str], vector: np.ndarray) -> tuple[list[str], np.ndarray]:
        """``(the ids held, their dot products with vector)``; for a scope of more than an
        eighth of the rows, one product over the whole matrix, then picked."""
        found = [i for i in ids if i in self.slots]
        if not found:
            return [], np.zeros(0, dtype=np.float32)
        rows = np.fromiter((self.slots[i] for i in found), dtype=np.int64, count=len(found))
        if len(rows) * 8 > self.used:
            return found, (self.matrix[:self.used] @ vector)[rows]
        return found, self.matrix[rows] @ vector
