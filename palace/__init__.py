"""palace: a command-line personal knowledge miner (drawers, temporal graph, hybrid search).

The public surface is the :class:`Palace` handle (``from palace import Palace``) and the
typed results its methods return; it is imported on first use, so ``import palace``
stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["Palace"]

if TYPE_CHECKING:
    from palace.core import Palace


def __getattr__(name: str) -> Any:
    if name == "Palace":
        from palace.core import Palace

        return Palace
    raise AttributeError(f"module 'palace' has no attribute {name!r}")
