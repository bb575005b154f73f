"""Reciprocal rank fusion with a typed explanation of every score.

Weighted RRF (Cormack, Clarke & Büttcher, SIGIR 2009, "Reciprocal rank fusion outperforms
Condorcet and individual rank learning methods"): a document's score is
``Σ_lists weight / (k + rank)`` with ranks starting at 1 and ``k = 60`` as in the paper.
Each hit keeps one :class:`Contribution` per list it appeared in; they add up to its score.
"""

from __future__ import annotations

from dataclasses import dataclass

RRF_K = 60


@dataclass(frozen=True)
class Contribution:
    """One retriever's share of a fused score: its ``rank`` (1-based), raw ``score``
    (BM25, cosine similarity…), ``weight`` and ``rrf`` = weight / (k + rank)."""

    retriever: str
    rank: int
    score: float
    weight: float
    rrf: float


@dataclass(frozen=True)
class RankedList:
    """One retriever's answer: ``items`` are ``(doc_id, raw_score)`` best first."""

    retriever: str
    weight: float
    items: tuple[tuple[str, float], ...]


def fuse(lists: list[RankedList], k: int = RRF_K) -> list[tuple[str, float, tuple[Contribution, ...]]]:
    """Fuse ranked lists; return ``[(doc_id, score, contributions)]`` best first.

    Ties are broken by the best single rank, then by doc id (deterministic).
    """
    scores: dict[str, float] = {}
    parts: dict[str, list[Contribution]] = {}
    for ranked in lists:
        if ranked.weight <= 0:
            continue
        for position, (doc_id, raw) in enumerate(ranked.items, start=1):
            share = ranked.weight / (k + position)
            scores[doc_id] = scores.get(doc_id, 0.0) + share
            parts.setdefault(doc_id, []).append(
                Contribution(ranked.retriever, position, float(raw), ranked.weight, share)
            )
    order = sorted(
        scores, key=lambda d: (-scores[d], min(c.rank for c in parts[d]), d)
    )
    return [(d, scores[d], tuple(parts[d])) for d in order]


def demote(
    fused: list[tuple[str, float, tuple[Contribution, ...]]], factors: dict[str, tuple[float, str]]
) -> list[tuple[str, float, tuple[Contribution, ...]]]:
    """Scale the fused scores of some documents and re-sort.

    ``factors`` maps a doc id to ``(factor, reason)`` with ``0 < factor < 1``: the score
    becomes ``score × factor`` and a :class:`Contribution` named ``reason`` (rank 0, raw
    score ``factor``) holds the (negative) difference, so contributions still add up to
    the score. Order as in :func:`fuse`."""
    if not factors:
        return fused
    out = []
    for doc_id, score, parts in fused:
        if doc_id in factors:
            factor, reason = factors[doc_id]
            cut = score * factor - score
            parts = (*parts, Contribution(reason, 0, factor, 1.0, cut))
            score += cut
        out.append((doc_id, score, parts))
    out.sort(key=lambda item: (-item[1], min((c.rank for c in item[2] if c.rank), default=0), item[0]))
    return out
