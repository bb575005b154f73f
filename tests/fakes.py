"""Fakes at the seams only (STYLE.md §9), for the unit tier (``pytest -m unit``): a clock
for recorded time, a vector store in a dict and an NLP extractor without spaCy. With
:class:`palace.store.embedding.FakeEmbedder` they let a test mine a few tiny notes into a
real SQLite palace and ask it, with no model loaded (:func:`fake_palace`). Everything a
user sees is also tested with the real spaCy pipeline, the real ONNX model and Chroma."""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import re
from pathlib import Path

import numpy as np

from palace.nlp.extraction import MAX_COOCCURRING, Cooccurrence, Extraction
from palace.nlp.lines import LineReader
from palace.nlp.names import EntityMention
from palace.nlp.rules import RelationRules
from palace.nlp.sentence import Context, Relation


class ManualClock:
    """A clock for :func:`palace.graph.temporal.set_clock` that moves only when told.

    It starts at the current second (UTC, microseconds dropped), so anything the real
    clock recorded before it is not later than its start; :meth:`advance` moves it on.
    Two minings with an ``advance(1)`` between them get distinct recorded times (kept to
    the second) without waiting one."""

    def __init__(self, start: dt.datetime | None = None) -> None:
        self.now = start or dt.datetime.now(dt.timezone.utc).replace(microsecond=0)

    def __call__(self) -> dt.datetime:
        return self.now

    def advance(self, seconds: float = 1.0) -> dt.datetime:
        """Move the clock on by ``seconds``; return the new moment."""
        self.now += dt.timedelta(seconds=seconds)
        return self.now


def _matches(meta: dict, where: dict | None) -> bool:
    """Whether ``meta`` meets a Chroma ``where`` filter (``$and``, ``$gt``, ``$lt``,
    ``$gte``, ``$lte``, ``$in``, ``$eq``, or a bare value: equality)."""
    if not where:
        return True
    if "$and" in where:
        return all(_matches(meta, w) for w in where["$and"])
    (key, cond), = where.items()
    value = meta.get(key)
    if not isinstance(cond, dict):
        return value == cond
    (op, operand), = cond.items()
    if value is None:
        return False
    return {"$gt": lambda: value > operand, "$lt": lambda: value < operand, "$gte": lambda: value >= operand,
            "$lte": lambda: value <= operand, "$in": lambda: value in operand, "$eq": lambda: value == operand}[op]()


class MemoryVectors:
    """A :class:`palace.store.vectors.VectorStore` in a dict: exact cosine search, every
    vector in memory (``missing`` is always 0). Not Chroma: the seam's stand-in."""

    def __init__(self) -> None:
        self.rows: dict[str, tuple[np.ndarray, dict]] = {}

    def upsert(self, ids, vectors, metadatas) -> None:
        for i, v, m in zip(ids, vectors, metadatas):
            self.rows[i] = (np.asarray(v, dtype=np.float32), dict(m))

    def delete(self, ids) -> None:
        for i in ids:
            self.rows.pop(i, None)

    def query(self, vector, k, where=None):
        q = vector.reshape(-1) / np.linalg.norm(vector)
        scored = [(i, float(1 - v @ q / np.linalg.norm(v))) for i, (v, m) in self.rows.items() if _matches(m, where)]
        return sorted(scored, key=lambda x: (x[1], x[0]))[:k]

    def count(self) -> int:
        return len(self.rows)

    def ids(self) -> set[str]:
        return set(self.rows)

    def embeddings(self, ids):
        got = [i for i in ids if i in self.rows]
        return got, np.stack([self.rows[i][0] for i in got]) if got else np.zeros((0, 0), dtype=np.float32)

    def similarities(self, ids, vector):
        got, matrix = self.embeddings(ids)
        return got, (matrix @ vector if got else np.zeros(0, dtype=np.float32))

    def missing(self, ids) -> int:
        return 0  # all in memory

    def preload(self) -> int:
        return len(self.rows)

    def vectors_by_embed_hash(self, hashes):
        wanted = set(hashes)
        return {m["embed_hash"]: v for v, m in self.rows.values() if m.get("embed_hash") in wanted}

    def lost(self) -> bool:
        return False


#: The sentences :class:`FakeExtractor` reads a typed fact from: ``<name> <words> <name>``.
VERBS = {"works at": "works_at", "reports to": "reports_to", "lives in": "lives_in", "leads": "leads",
         "joined": "joined"}
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")


class FakeExtractor:
    """The mining run's NLP extractor without spaCy (the seam of
    :meth:`palace.store.store.Store.extractor`), reading a drawer as a table says:

    - sentences: runs of text up to ``.``, ``!``, ``?`` or a line break;
    - entities: each occurrence of a name of ``names`` (``{name: label}``), the longest
      first, whole words, case as written; ``label_of`` a title is its label there;
    - ``mentioned_with``: every pair of names in a sentence of at most
      :data:`MAX_COOCCURRING` names, as the real extractor does;
    - typed facts: a sentence that is exactly ``<name> <verb> <name>.`` with a verb of
      :data:`VERBS` (``Ana Lima works at Acme.``), dated by the drawer; and, given
      ``rules``, the key–value lines and front matter that the real, spaCy-free
      :class:`palace.nlp.lines.LineReader` reads (``Status: blocked``).

    ``rules`` and ``processes`` are what the run passes (processes are ignored)."""

    ner_extractor = "fake.ner/1"

    def __init__(self, names: dict[str, str], *, rules: RelationRules | None = None, processes: int = 1) -> None:
        self.names = dict(names)
        self._rules = rules
        self.processes = processes
        ordered = sorted(self.names, key=len, reverse=True)
        self._pattern = re.compile(r"\b(?:" + "|".join(re.escape(n) for n in ordered) + r")\b") if ordered else None

    @property
    def rules(self) -> RelationRules | None:
        return self._rules

    def memory_zone(self):
        return contextlib.nullcontext()

    def label_of(self, name: str) -> str | None:
        return self.names.get(name)

    def extract_many(self, items):
        for item in items:
            text, base = item[0], item[1]
            context = item[2] if len(item) > 2 else Context()
            yield self._extract(text, base, context or Context())

    def extract(self, text: str, base: dt.date, context: Context | None = None) -> Extraction:
        return self._extract(text, base, context or Context())

    def _extract(self, text: str, base: dt.date, context: Context) -> Extraction:
        sentences = [(m.start(), m.end()) for m in _SENTENCE.finditer(text)]

        def sentence_of(char: int) -> int:
            return next((i for i, (s, e) in enumerate(sentences) if s <= char < e), -1)

        mentions = [EntityMention(m.start(), m.end(), m.group(0), m.group(0), self.names[m.group(0)],
                                  sentence_of(m.start()))
                    for m in (self._pattern.finditer(text) if self._pattern else ())]
        pairs, relations = [], []
        for s, (start, end) in enumerate(sentences):
            inside = [i for i, m in enumerate(mentions) if m.sentence == s]
            if 2 <= len(inside) <= MAX_COOCCURRING:
                pairs += [Cooccurrence(a, b, start, end, text[start:end])
                          for n, a in enumerate(inside) for b in inside[n + 1:]]
            if len(inside) == 2:
                a, b = (mentions[i] for i in inside)
                between = " ".join(text[a.end:b.start].split())
                if between in VERBS and not text[start:a.start].strip() and text[b.end:end].strip() in ("", "."):
                    relations.append(Relation(VERBS[between], inside[0], inside[1], None, start, end, start, end, s,
                                              f"fake-{VERBS[between]}", "stated", 0.9))
        if self._rules is not None and ":" in text:
            relations += LineReader(self._rules, self.label_of).read(text, mentions, sentence_of,
                                                                     Context(title=context.title,
                                                                             heading=context.heading, text=text))
        return Extraction(entities=tuple(mentions), cooccurrences=tuple(pairs), relations=tuple(relations),
                          base=base, text=text)


#: Names the fake extractor knows in :func:`fake_palace`.
NAMES = {"Ana Lima": "PERSON", "Ana": "PERSON", "Bo Chen": "PERSON", "Acme Robotics": "ORG",
         "Initech": "ORG", "Lisbon": "GPE", "Harbor": "ORG"}


def fake_palace(path: Path, names: dict[str, str] | None = None):
    """A :class:`palace.core.Palace` at ``path`` on the fakes: the fake embedder (64
    dimensions), :class:`MemoryVectors` and :class:`FakeExtractor` of ``names`` (default
    :data:`NAMES`). Use it in a ``with`` block."""
    from palace.core import Palace
    from palace.store.embedding import FakeEmbedder

    return Palace.open(path, embedder=FakeEmbedder(dimension=64), vectors=MemoryVectors(),
                       extractor=functools.partial(FakeExtractor, NAMES if names is None else names))
