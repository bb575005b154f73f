"""Domain errors of palace.

Every error a user can cause or meet derives from :class:`PalaceError` and carries a
``hint``: the next step to take. The CLI turns them into ``Error: … / hint: …`` on stderr
and exit code 1 in one place (``palace.cli.app.guarded``); nothing else prints tracebacks.

    PalaceError
    ├── PalaceNotFound      no palace at the path (run `palace mine DIR` first)
    ├── ModelError          the embedding model or the spaCy pipeline is missing or broken
    ├── ModelMismatch       the palace was built with another embedding model
    ├── SchemaError         palace.db is newer than this palace version, or damaged
    └── UsageError          a bad option value (a date that does not parse, a missing path)
        └── ConfigError     the palace's config.json is not valid (a bad JSON or value)
"""

from __future__ import annotations

from palace.nlp.errors import ModelError, PalaceError

__all__ = ["PalaceError", "PalaceNotFound", "ModelError", "ModelMismatch", "SchemaError", "UsageError",
           "ConfigError"]


class PalaceNotFound(PalaceError):
    """No palace exists at the resolved location."""


class ModelMismatch(PalaceError):
    """The palace's vectors were built with another embedding model or dimension."""


class SchemaError(PalaceError):
    """palace.db has a schema this version cannot use."""


class UsageError(PalaceError):
    """An option or argument has a value palace cannot use."""


class ConfigError(UsageError):
    """The palace's ``config.json`` cannot be read or holds a value palace cannot use."""
