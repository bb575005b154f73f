"""The ``palace`` command: the typer app of :mod:`palace.cli.app` with every command module
registered on it, and the console entry point.

The command modules are imported on first use of :data:`app`, so that :func:`run` can
first hand a read command to the palace's warm server (:mod:`palace.cli.client`)
without importing typer or anything else the server has loaded already."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import typer

    app: typer.Typer

__all__ = ["app", "run"]


def _load_app():
    from palace.cli import ask as _ask  # noqa: F401  (commands register themselves on `app`)
    from palace.cli import changes as _changes  # noqa: F401
    from palace.cli import doctor as _doctor  # noqa: F401
    from palace.cli import entity as _entity  # noqa: F401
    from palace.cli import extract as _extract  # noqa: F401
    from palace.cli import fact as _fact  # noqa: F401
    from palace.cli import forget as _forget  # noqa: F401
    from palace.cli import map as _map  # noqa: F401
    from palace.cli import facts as _facts  # noqa: F401
    from palace.cli import mcp_server as _mcp_server  # noqa: F401
    from palace.cli import mine as _mine  # noqa: F401
    from palace.cli import portable as _portable  # noqa: F401
    from palace.cli import serve as _serve  # noqa: F401
    from palace.cli import status as _status  # noqa: F401
    from palace.cli import watch as _watch  # noqa: F401
    from palace.cli.app import app

    return app


def __getattr__(name: str) -> Any:
    if name == "app":
        return _load_app()
    raise AttributeError(f"module 'palace.cli.main' has no attribute {name!r}")


def run() -> None:
    """Console entry point. A read command goes to the palace's warm server when one runs
    (:func:`palace.cli.client.forward`); otherwise, and for every other command, it runs
    here. Files the command creates are owner-only (umask 077): a palace holds the text
    of the notes. A closed pipe on stdout (``palace ask … | head -1``) ends it with exit 0
    and no traceback, whether a server answered or not."""
    import os

    os.umask(0o077)
    try:
        from palace.cli.client import forward

        served = forward(sys.argv[1:])
        if served is not None:
            sys.exit(served)
        _load_app()()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:
        from palace.cli.app import closed_pipe

        closed_pipe()
        sys.exit(0)


if __name__ == "__main__":
    run()
