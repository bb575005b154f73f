"""Where the palace lives, and the small settings that travel with it.

The palace location is resolved in one place: ``--palace PATH`` > ``$PALACE_PATH`` >
``~/.palace`` (DESIGN.md, "Storage").
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from palace.errors import ConfigError

ENV_VAR = "PALACE_PATH"
DEFAULT_DIRNAME = ".palace"

#: Files palace reads as notes (lower-case suffixes).
NOTE_SUFFIXES = frozenset({".md", ".markdown", ".txt"})

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

    Raises :class:`ConfigError` when the file is not a JSON object."""
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


def date_order(palace_dir: Path | None) -> str | None:
    """How all-numeric dates whose parts could both be a month (``03/04/2018``) are read
    in notes and questions that give no evidence of their own: ``config.json``'s
    ``"date_order"``, ``"dmy"`` (day first) or ``"mdy"`` (month first); None (default):
    such a date is not read, and the plan or ``palace extract`` says so. Raises
    :class:`ConfigError` for another value."""
    value = read_config(palace_dir).get("date_order")
    if value is not None and value not in DATE_ORDERS:
        raise ConfigError(f"config.json: date_order must be \"dmy\" or \"mdy\", not {value!r}",
                         hint='e.g. {"date_order": "dmy"} for 28/03/2018')
    return value


def fiscal_year_start(palace_dir: Path | None) -> int:
    """The month (1–12) a fiscal year starts in, from ``config.json``'s
    ``"fiscal_year_start"`` (default 1, January). "FY2024" is then the fiscal year that
    ends in 2024 (start 4: 2023-04-01 to 2024-03-31). Raises :class:`ConfigError` for a
    value that is not a month number."""
    value = read_config(palace_dir).get("fiscal_year_start", 1)
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 12:
        raise ConfigError(
            f"config.json: fiscal_year_start must be a month number 1-12, not {value!r}",
            hint='e.g. {"fiscal_year_start": 4} for years starting in April',
        )
    return value
