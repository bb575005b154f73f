"""palace.ask.fusion on hand-built ranked lists: weighted reciprocal rank fusion with
k = 60 (Cormack, Clarke & Büttcher 2009), the contributions that add up to each score,
deterministic ties, and a demotion that keeps the sum by adding a contribution named for
its reason."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from palace.ask.fusion import RRF_K, Contribution, RankedList, demote, fuse

pytestmark = pytest.mark.unit

BM25 = RankedList("bm25", 1.0, (("d1", 12.0), ("d2", 8.0), ("d3", 1.0)))
VECTOR = RankedList("vector", 0.5, (("d3", 0.9), ("d1", 0.8)))


def test_a_score_is_the_weighted_sum_of_reciprocal_ranks_with_k_60():
    assert RRF_K == 60
    fused = fuse([BM25, VECTOR])
    assert [(doc, score) for doc, score, _ in fused] == [
        ("d1", 1 / 61 + 0.5 / 62),  # 0.02445795875198308
        ("d3", 1 / 63 + 0.5 / 61),  # 0.024069737184491284
        ("d2", 1 / 62),             # 0.016129032258064516
    ]
    assert fused[0][1] == pytest.approx(0.02445795875198308, abs=1e-17)
    assert fused[0][2] == (Contribution("bm25", 1, 12.0, 1.0, 1 / 61), Contribution("vector", 2, 0.8, 0.5, 0.5 / 62))
    assert fused[2][2] == (Contribution("bm25", 2, 8.0, 1.0, 1 / 62),)


def test_k_is_a_parameter_and_a_list_of_no_weight_counts_for_nothing():
    alone = RankedList("graph", 1.0, (("g", 3.0),))
    muted = RankedList("vector", 0.0, (("g", 0.99), ("only-here", 0.98)))
    negative = RankedList("recent", -1.0, (("g", 1.0),))
    assert fuse([alone, muted, negative], k=0) == [("g", 1.0, (Contribution("graph", 1, 3.0, 1.0, 1.0),))]
    assert fuse([muted]) == []
    assert fuse([]) == []


def test_equal_scores_go_to_the_best_single_rank_then_to_the_doc_id():
    # k = 0 keeps the arithmetic exact: 1/1 == 2/2
    first = RankedList("bm25", 1.0, (("z-top", 1.0),))
    second = RankedList("vector", 2.0, (("x", 0.5), ("a-second", 0.4)))
    assert [doc for doc, _, _ in fuse([first, second], k=0)] == ["x", "z-top", "a-second"]
    # the same ranks in two lists of one weight: the id decides
    one = RankedList("bm25", 1.0, (("b", 1.0), ("a", 0.5)))
    other = RankedList("vector", 1.0, (("a", 0.9), ("b", 0.8)))
    fused = fuse([one, other])
    assert fused[0][1] == fused[1][1] and [doc for doc, _, _ in fused] == ["a", "b"]


def test_demote_scales_a_score_and_names_the_cut_so_the_shares_still_add_up():
    fused = fuse([BM25, VECTOR])
    demoted = demote(fused, {"d1": (0.5, "a copy of a better passage"), "unknown": (0.1, "ignored")})
    assert [doc for doc, _, _ in demoted] == ["d3", "d2", "d1"]
    doc, score, parts = demoted[2]
    before = 1 / 61 + 0.5 / 62
    assert score == pytest.approx(before * 0.5, rel=1e-15) and score == pytest.approx(0.01222897937599154)
    assert parts[:2] == fused[0][2]
    assert parts[2] == Contribution("a copy of a better passage", 0, 0.5, 1.0, before * 0.5 - before)
    assert parts[2].rrf == pytest.approx(-0.01222897937599154)
    assert sum(c.rrf for c in parts) == score
    assert demoted[0] == fused[1] and demoted[1] == fused[2]  # the others untouched
    assert demote(fused, {}) is fused


def test_a_demoted_tie_is_broken_by_the_retrievers_ranks_not_by_the_demotion():
    # d-low is cut to exactly d-high's score (k = 0: 2 × 0.5 = 1): its best rank (2) loses to
    # d-high's (1); the demotion's rank 0 does not count
    high = RankedList("bm25", 1.0, (("d-high", 1.0),))
    low = RankedList("vector", 4.0, (("x", 0.9), ("d-low", 0.5)))
    demoted = demote(fuse([high, low], k=0), {"d-low": (0.5, "undated")})
    assert [(doc, score) for doc, score, _ in demoted] == [("x", 4.0), ("d-high", 1.0), ("d-low", 1.0)]


_lists = st.lists(
    st.builds(
        RankedList,
        st.sampled_from(["bm25", "vector", "graph", "answer", "recent"]),
        st.one_of(st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0]), st.floats(-1, 3, allow_nan=False)),
        st.lists(st.sampled_from([f"d{i}" for i in range(12)]), unique=True, max_size=8).map(
            lambda ids: tuple((doc, float(len(ids) - i)) for i, doc in enumerate(ids))),
    ),
    max_size=5,
)


def _ordered(fused) -> bool:
    keys = [(-score, min((c.rank for c in parts if c.rank), default=0), doc) for doc, score, parts in fused]
    return keys == sorted(keys)


@given(lists=_lists, k=st.sampled_from([0, 1, 60]),
       cuts=st.dictionaries(st.sampled_from([f"d{i}" for i in range(12)]), st.floats(0.01, 0.99), max_size=4))
def test_fused_and_demoted_scores_are_exactly_the_sum_of_their_contributions(lists, k, cuts):
    fused = fuse(lists, k=k)
    listed = {doc for ranked in lists if ranked.weight > 0 for doc, _ in ranked.items}
    assert sorted(doc for doc, _, _ in fused) == sorted(listed)  # each once
    for doc, score, parts in fused:
        assert parts == tuple(Contribution(r.retriever, rank, raw, r.weight, r.weight / (k + rank))
                              for r in lists if r.weight > 0
                              for rank, (d, raw) in enumerate(r.items, start=1) if d == doc)  # in list order
        assert sum(c.rrf for c in parts) == score
    assert _ordered(fused)
    demoted = demote(fused, {doc: (factor, "cut") for doc, factor in cuts.items()})
    assert sorted(doc for doc, _, _ in demoted) == sorted(listed)
    for doc, score, parts in demoted:
        assert sum(c.rrf for c in parts) == score
        assert [c.retriever for c in parts].count("cut") == (doc in cuts)
    assert _ordered(demoted)
