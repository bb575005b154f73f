"""Where the palace lives, and the small settings that travel with it.

The palace location is resolved in one place: ``--palace PATH`` > ``$PALACE_PATH`` >
``~/.palace`` (DESIGN.md, "Storage").
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "PALACE_PATH"
DEFAULT_DIRNAME = ".palace"

#: Files palace reads as notes (lower-case suffixes).
NOTE_SUFFIXES = frozenset({".md", ".markdown", ".txt"})

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
