"""The ``palace`` command: the typer app of :mod:`palace.cli.app` with every command module
registered on it, and the console entry point."""

from __future__ import annotations

import sys

from palace.cli import ask as _ask  # noqa: F401  (commands register themselves on `app`)
from palace.cli import changes as _changes  # noqa: F401
from palace.cli import doctor as _doctor  # noqa: F401
from palace.cli import entity as _entity  # noqa: F401
from palace.cli import extract as _extract  # noqa: F401
from palace.cli import facts as _facts  # noqa: F401
from palace.cli import mine as _mine  # noqa: F401
from palace.cli import status as _status  # noqa: F401
from palace.cli import watch as _watch  # noqa: F401
from palace.cli.app import app

del _ask, _changes, _doctor, _entity, _extract, _facts, _mine, _status, _watch

__all__ = ["app", "run"]


def run() -> None:
    """Console entry point. Files the command creates are owner-only (umask 077): a
    palace holds the text of the notes."""
    import os

    os.umask(0o077)
    try:
        app()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    run()
