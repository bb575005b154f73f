"""The vector-store seam: palace mines and answers through the VectorStore protocol, so
any store that keeps it (a Chroma server, say) can stand in for the embedded Chroma."""

from __future__ import annotations

import numpy as np
import pytest
from fakes import MemoryVectors

from palace.core import Palace
from palace.store.vector_cache import VectorCache
from palace.store.vectors import EmbeddedChroma, VectorStore


@pytest.mark.unit
def test_the_embedded_chroma_and_a_memory_store_keep_the_protocol(tmp_path):
    assert isinstance(EmbeddedChroma(tmp_path), VectorStore)
    assert isinstance(MemoryVectors(), VectorStore)


def test_palace_mines_and_answers_through_any_vector_store(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "2024-04-12.md").write_text("# Sync\n\nAlice Chen joined Acme Robotics in Berlin.\n")
    (notes / "2024-05-02.md").write_text("# Budget\n\nWe decided to cut the Harbor travel budget by 10%.\n")
    memory = MemoryVectors()
    with Palace.open(tmp_path / "palace", vectors=memory) as palace:
        report = palace.mine(notes)
        assert report.embedded == 2 and memory.count() == 2
        assert not (tmp_path / "palace" / "chroma").exists()  # nothing went to the embedded store
        top = palace.ask("which company did Alice move to", wing="notes").results[0]
        assert top.path == "2024-04-12.md"
        assert "vector" in {c.retriever for c in top.why.retrievers}
        (notes / "2024-05-02.md").unlink()
        palace.mine(notes)
        assert memory.count() == 1
        assert palace.doctor().ok


def test_the_embedded_store_scans_from_memory_and_never_serves_a_stale_vector(tmp_path):
    """Exact scans score the vectors a warm process keeps (VectorCache): the scores equal
    those of the stored vectors, a rewrite in this process or a write by another process
    is seen, and a full cache still scores every id asked."""
    rng = np.random.default_rng(7)
    store = EmbeddedChroma(tmp_path)
    ids = [f"d{i}" for i in range(50)]
    first = rng.normal(size=(50, 8)).astype(np.float32)
    store.upsert(ids, first, [{"wing": "w"}] * 50)
    query = rng.normal(size=8).astype(np.float32)
    assert store.missing(ids) == 50
    got, sims = store.similarities(["missing", *ids[:20]], query)  # absent ids are left out
    assert got == ids[:20] and np.allclose(sims, first[:20] @ query, atol=1e-5)
    assert store.missing(ids) == 30
    got, sims = store.similarities(ids[10:], query)  # a scope above an eighth: the whole matrix
    assert got == ids[10:] and np.allclose(sims, first[10:] @ query, atol=1e-5)
    second = rng.normal(size=(1, 8)).astype(np.float32)
    store.upsert(["d15"], second, [{"wing": "w"}])  # written again by this process
    assert np.allclose(store.similarities(["d15"], query)[1], second @ query, atol=1e-5)
    other = EmbeddedChroma(tmp_path)  # another process's view of the same store
    third = rng.normal(size=(1, 8)).astype(np.float32)
    other.upsert(["d16"], third, [{"wing": "w"}])
    assert np.allclose(store.similarities(["d16"], query)[1], third @ query, atol=1e-5)
    small = EmbeddedChroma(tmp_path)
    small._cache = VectorCache(16)
    got, sims = small.similarities(ids, query)  # room for 16: the other 34 scored all the same
    assert sorted(got) == sorted(ids) and len(small._cache) == 16
    expected = dict(zip(ids, first @ query)) | {"d15": (second @ query)[0], "d16": (third @ query)[0]}
    assert np.allclose(sims, [expected[i] for i in got], atol=1e-5)
    assert small.preload() == 16
    fresh = EmbeddedChroma(tmp_path)
    assert fresh.preload() == 50 and fresh.missing(ids) == 0
    other.upsert(["d17"], third, [{"wing": "w"}])  # another process wrote: loaded again, d17 new
    assert fresh.missing(ids) == 0 and np.allclose(fresh.similarities(["d17"], query)[1], third @ query, atol=1e-5)


@pytest.mark.unit
def test_the_vector_cache_reuses_the_rows_of_dropped_vectors():
    """A full cache moves the vectors it still holds over the dropped ones, so that a
    long-running watcher that rewrites drawers keeps caching the new ones; once every
    row holds a live vector, it takes no more."""
    cache = VectorCache(8)
    rng = np.random.default_rng(3)
    cache.add(["keep"], np.ones((1, 4), dtype=np.float32))
    for cycle in range(20):  # each edit replaces three drawers
        ids = [f"c{cycle}-{i}" for i in range(3)]
        cache.add(ids, rng.normal(size=(3, 4)).astype(np.float32))
        assert all(i in cache for i in ids), cycle
        cache.drop(ids)
    assert len(cache) == 1 and cache.used <= 8
    found, sims = cache.similarities(["keep", "gone"], np.ones(4, dtype=np.float32))
    assert found == ["keep"] and np.allclose(sims, [4.0])
    cache.add([f"live{i}" for i in range(9)], rng.normal(size=(9, 4)).astype(np.float32))
    assert len(cache) == 8 and "live6" in cache and "live7" not in cache
