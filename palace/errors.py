"""Domain errors of palace, and the one translation of any failure into what a user reads.

Every error a user can cause or meet derives from :class:`PalaceError` and carries a
``hint``: the next step to take. :func:`translate` turns any exception into one (or says
it is a bug); the CLI (``palace.cli.app.guarded``), the warm server and the MCP server
all show what it returns, so a failure reads the same wherever it happens.

    PalaceError
    ├── PalaceNotFound      no palace at the path (run `palace mine DIR` first)
    ├── ModelError          the embedding model or the spaCy pipeline is missing or broken
    ├── ModelMismatch       the palace was built with another embedding model
    ├── SchemaError         palace.db is newer than this palace version, or damaged
    ├── StorageError        SQLite failed underneath (read-only, full disk, damaged file)
    ├── VectorStoreError    the vector store (Chroma, embedded or a server) failed
    └── UsageError          a bad option value (a date that does not parse, a missing path)
        ├── ConfigError     the palace's config.json is not valid (a bad JSON or value)
        ├── PalaceBusy      another process is writing this palace
        ├── AlreadyWatching another watcher holds this palace's lock
        └── AlreadyServing  another process serves this palace already
"""

from __future__ import annotations

from palace.nlp.errors import ModelError, PalaceError

__all__ = ["PalaceError", "PalaceNotFound", "ModelError", "ModelMismatch", "SchemaError", "StorageError",
           "VectorStoreError", "UsageError", "ConfigError", "PalaceBusy", "AlreadyWatching", "AlreadyServing",
           "translate"]


class PalaceNotFound(PalaceError):
    """No palace exists at the resolved location."""


class ModelMismatch(PalaceError):
    """The palace's vectors were built with another embedding model or dimension."""


class SchemaError(PalaceError):
    """palace.db has a schema this version cannot use."""


class StorageError(PalaceError):
    """SQLite failed underneath a command: the database is read-only, its disk is full,
    or the file is damaged."""


class VectorStoreError(PalaceError):
    """The vector store failed underneath a command (embedded Chroma or a Chroma server)."""


class UsageError(PalaceError):
    """An option or argument has a value palace cannot use."""


class ConfigError(UsageError):
    """The palace's ``config.json`` cannot be read or holds a value palace cannot use."""


class PalaceBusy(UsageError):
    """Another process is writing this palace (a mine, a repair, a watcher)."""


class AlreadyWatching(UsageError):
    """Another watcher holds this palace's lock."""


class AlreadyServing(UsageError):
    """Another process serves this palace already."""


#: the modules whose exceptions are failures of the vector store (Chroma and its HTTP client)
_VECTOR_MODULES = ("chromadb", "httpx", "httpcore")


def translate(exc: BaseException) -> PalaceError | None:
    """What a user should read for ``exc``: ``exc`` itself when it is a
    :class:`PalaceError`; a :class:`StorageError` with a hint for an error of SQLite
    (``sqlite3.Error``); a :class:`VectorStoreError` with a hint for an error raised by
    Chroma or its HTTP client; None for anything else (a bug: let it raise, with its
    traceback)."""
    import sqlite3

    if isinstance(exc, PalaceError):
        return exc
    if isinstance(exc, sqlite3.Error):
        return StorageError(
            f"the palace's database failed: {exc}",
            hint="check that palace.db is writable and its disk has room; if it is damaged, move it aside"
                 " and mine again (the notes are the source)")
    if type(exc).__module__.split(".")[0] in _VECTOR_MODULES:
        return VectorStoreError(
            f"the palace's vector store failed: {exc}",
            hint="run the command again; if it persists, move chroma/ aside: `palace mine` embeds the drawers again")
    return None
