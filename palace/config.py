"""Where the palace lives, and the small settings that travel with it.

The palace location is resolved in one place: ``--palace PATH`` > ``$PALACE_PATH`` >
``~/.palace`` (DESIGN.md, "Storage").
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from palace.errors import ConfigError

ENV_VAR = "PALACE_PATH"
DEFAULT_DIRNAME = ".palace"

#: Files palace reads as notes (lower-case suffixes).
NOTE_SUFFIXES = frozenset({".md", ".markdown", ".txt", ".rst"})

#: The palace's own settings file (predicates, value lexicons, fiscal year start).
CONFIG_FILENAME = "config.json"

#: Files larger than this are recorded as skipped ("too large"), in bytes.
MAX_FILE_BYTES = 100 * 1024 * 1024


def resolve_palace_path(explicit: str | os.PathLike[str] | None = None) -> Path:
    """Return the palace directory: ``explicit`` > ``$PALACE_PATH`` > ``~/.palace``.

    The path is expanded (``~``) and made absolute; it need not exist yet.
    """
    if explicit:
        raw = os.fspath(explicit)
    else:
        raw = os.environ.get(ENV_VAR) or str(Path.home() / DEFAULT_DIRNAME)
    return Path(raw).expanduser().resolve()


def quiet_third_parties() -> None:
    """Switch off telemetry and hub look-ups of the libraries palace uses (offline, private)."""
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def read_config(palace_dir: Path | None) -> dict:
    """The palace's ``config.json`` as a dict (``{}`` when there is none).

    Raises :class:`ConfigError` when the file is not a JSON object. Flows read the
    validated :class:`Config` instead (``Palace.config``)."""
    path = palace_dir / CONFIG_FILENAME if palace_dir else None
    if not path or not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} is not valid JSON: {exc}", hint="fix or remove the file") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a JSON object", hint='e.g. {"fiscal_year_start": 4}')
    return data


DATE_ORDERS = ("dmy", "mdy")
#: the trust a wing's facts get (``config.json``'s ``"wings": {W: {"trust": …}}``)
TRUST_LEVELS = ("trusted", "untrusted")
#: what an agent's writes become (``"agents": {"writes": …}``)
AGENT_WRITES = ("candidate", "commit")


@dataclass(frozen=True)
class WingSettings:
    """One wing's settings (``"wings": {"inbox": {"trust": "untrusted"}}``): ``untrusted``
    (every fact mined there is a candidate until reviewed), ``low_trust_rules`` (the
    extraction rules whose facts there are candidates) and ``private`` (never served
    to an agent or a shared view unless named)."""

    untrusted: bool = False
    low_trust_rules: frozenset[str] = frozenset()
    private: bool = False


@dataclass(frozen=True)
class VectorSettings:
    """Where the vectors live when not in the embedded Chroma: a Chroma server's ``url``
    and the ``collection`` name (None: palace's default)."""

    url: str | None = None
    collection: str | None = None


@dataclass(frozen=True)
class Config:
    """A palace's settings, read from ``config.json`` once and validated whole (README,
    "config.json"). Every field has the default of a palace with no file.

    - ``owner``: who "I", "my" and "we" are in notes that are not chat lines.
    - ``fiscal_year_start``: the month (1–12) a fiscal year starts in; "FY2024" is the
      fiscal year that ends in 2024 (start 4: 2023-04-01 to 2024-03-31).
    - ``date_order``: how all-numeric dates whose parts could both be a month
      (``03/04/2018``) are read when a note or question gives no evidence of its own:
      ``"dmy"``, ``"mdy"``, or None (such a date is not read, and the plan says so).
    - ``predicates``: registry entries added or overriding shipped ones (the raw JSON
      objects; :func:`palace.graph.temporal.load_registry` builds them).
    - ``values``: words added to the value lexicons, ``{lexicon: (word, …)}``.
    - ``questions``: question words per predicate (the raw JSON object).
    - ``vectors``: a Chroma server (:class:`VectorSettings`), or None.
    - ``nlp_processes``: how many processes read a large mine's NLP (None: decided
      from the machine); ``$PALACE_NLP_PROCESSES`` overrides it.
    - ``wings``: ``{wing: WingSettings}``; ``agent_writes``: ``"candidate"`` or ``"commit"``.
    """

    owner: str | None = None
    fiscal_year_start: int = 1
    date_order: str | None = None
    predicates: tuple[dict, ...] = ()
    values: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    questions: Mapping[str, dict] = field(default_factory=dict)
    vectors: VectorSettings | None = None
    nlp_processes: int | None = None
    wings: Mapping[str, WingSettings] = field(default_factory=dict)
    agent_writes: str = "candidate"

    @classmethod
    def load(cls, palace_dir: Path | None) -> "Config":
        """The settings of the palace at ``palace_dir`` (the defaults when it has no
        ``config.json``, or for None). Raises :class:`ConfigError`, naming the key and
        with an example, for a file that is not a JSON object or a value palace cannot use."""
        return cls.from_data(read_config(palace_dir))

    @classmethod
    def from_data(cls, data: dict) -> "Config":
        """Validate the parsed ``config.json`` ``data``; raises :class:`ConfigError`."""
        owner = data.get("owner")
        if owner is not None and not isinstance(owner, str):
            raise ConfigError(f"config.json: owner must be a name, not {owner!r}", hint='e.g. {"owner": "Sam Rivera"}')
        fiscal = data.get("fiscal_year_start", 1)
        if not isinstance(fiscal, int) or isinstance(fiscal, bool) or not 1 <= fiscal <= 12:
            raise ConfigError(
                f"config.json: fiscal_year_start must be a month number 1-12, not {fiscal!r}",
                hint='e.g. {"fiscal_year_start": 4} for years starting in April',
            )
        order = data.get("date_order")
        if order is not None and order not in DATE_ORDERS:
            raise ConfigError(f"config.json: date_order must be \"dmy\" or \"mdy\", not {order!r}",
                              hint='e.g. {"date_order": "dmy"} for 28/03/2018')
        return cls(owner=owner or None, fiscal_year_start=fiscal, date_order=order,
                   predicates=_predicates(data.get("predicates", [])), values=_values(data.get("values", {})),
                   questions=_object(data, "questions", '{"questions": {"plan": {"nouns": ["contract"]}}}'),
                   vectors=_vectors(data.get("vectors")), nlp_processes=_processes(data.get("nlp_processes")),
                   wings=_wings(data.get("wings")), agent_writes=_agent_writes(data.get("agents")))

    def wing(self, name: str) -> WingSettings:
        """The settings of wing ``name`` (the defaults when ``config.json`` names none)."""
        return self.wings.get(name, WingSettings())

    @property
    def private_wings(self) -> frozenset[str]:
        """The wings marked ``"private": true``."""
        return frozenset(name for name, spec in self.wings.items() if spec.private)


def _object(data: dict, key: str, example: str) -> dict:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f'config.json: "{key}" must be an object', hint=example)
    return value


def _predicates(entries) -> tuple[dict, ...]:
    from palace.nlp.registry import predicates_from

    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ConfigError('config.json: "predicates" must be a list of objects',
                          hint="see the predicate fields in the README")
    try:
        predicates_from(entries)
    except (ValueError, TypeError, KeyError) as exc:
        raise ConfigError(f"config.json: {exc}", hint="see the predicate fields in the README") from None
    return tuple(entries)


def _values(values) -> dict[str, tuple[str, ...]]:
    if not isinstance(values, dict) or not all(
            isinstance(words, list) and all(isinstance(w, str) for w in words) for words in values.values()):
        raise ConfigError('config.json: "values" must map a lexicon to a list of words',
                          hint='{"values": {"tier": ["Gold+"], "medications": ["Zestril"]}}')
    return {name: tuple(words) for name, words in values.items()}


def _vectors(settings) -> VectorSettings | None:
    if not settings:
        return None
    if not isinstance(settings, dict):
        raise ConfigError('config.json: "vectors" must be an object',
                          hint='{"vectors": {"url": "http://localhost:8000", "collection": "my-notes"}}')
    url, collection = settings.get("url"), settings.get("collection")
    return VectorSettings(str(url) if url else None, str(collection) if collection else None)


def _processes(raw) -> int | None:
    if raw is None:
        return None
    try:
        wanted = int(raw)
        if wanted < 1 or isinstance(raw, bool):
            raise ValueError
    except (TypeError, ValueError):
        raise ConfigError(f"nlp_processes must be a whole number ≥ 1, not {raw!r}",
                          hint="set it in config.json or $PALACE_NLP_PROCESSES, e.g. 4") from None
    return wanted


def _wings(wings) -> dict[str, WingSettings]:
    if wings is None:
        return {}
    if not isinstance(wings, dict):
        raise ConfigError('"wings" in config.json must be an object', hint='{"wings": {"diary": {"private": true}}}')
    out = {}
    for wing, spec in wings.items():
        spec = spec if isinstance(spec, dict) else {}
        trust, rules = spec.get("trust", "trusted"), spec.get("low_trust_rules", [])
        if trust not in TRUST_LEVELS or not isinstance(rules, list):
            raise ConfigError(f'config.json: wing {wing!r}: "trust" is "trusted" or "untrusted" and'
                              f' "low_trust_rules" a list of rule names', hint='{"wings": {"inbox": {"trust": "untrusted"}}}')
        out[wing] = WingSettings(trust == "untrusted", frozenset(str(r) for r in rules), spec.get("private") is True)
    return out


def _agent_writes(agents) -> str:
    writes = (agents or {}).get("writes", "candidate") if isinstance(agents or {}, dict) else None
    if writes not in AGENT_WRITES:
        raise ConfigError('"agents": {"writes": …} is "candidate" or "commit"', hint='{"agents": {"writes": "commit"}}')
    return writes
