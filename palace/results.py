"""The JSON of every read command, from its typed result, by one function.

Every command's ``--json`` prints :func:`to_json` of the dataclass the core returned
(:class:`~palace.ask.result.AskResult`, :class:`~palace.ops.status.StatusReport`,
:class:`~palace.graph.facts.FactsResult`, :class:`~palace.graph.profile.EntityProfile`,
:class:`~palace.graph.profile.Connection`, :class:`~palace.graph.resolution.AliasReport`,
:class:`~palace.graph.changes.ChangeSet`, :class:`~palace.ops.doctor.DoctorReport`,
:class:`~palace.ops.daemon.DaemonStatus`, :class:`~palace.mine.outcomes.MineReport`…): its fields by
name, recursively (tuples become lists, dates and paths ISO strings and text), so the
field names documented in the README are the dataclasses' own.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from pathlib import PurePath
from typing import Any

__all__ = ["to_data", "to_json"]


def _default(value: Any) -> Any:
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, PurePath):
        return str(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def to_data(result: Any) -> Any:
    """``result`` (a dataclass, or a list or tuple of them) as plain JSON types."""
    if isinstance(result, (list, tuple)):
        result = [dataclasses.asdict(r) if dataclasses.is_dataclass(r) else r for r in result]
    elif dataclasses.is_dataclass(result):
        result = dataclasses.asdict(result)
    return json.loads(json.dumps(result, default=_default, ensure_ascii=False))


def to_json(result: Any, indent: int | None = 2) -> str:
    """``result`` as one JSON document (UTF-8 text kept as is, ``indent`` spaces; ``None``
    for one line). Always valid UTF-8: text holding an undecodable byte of the input is
    written with ``\\u`` escapes."""
    data = dataclasses.asdict(result) if dataclasses.is_dataclass(result) else (
        [dataclasses.asdict(r) if dataclasses.is_dataclass(r) else r for r in result]
        if isinstance(result, (list, tuple)) else result)
    text = json.dumps(data, default=_default, ensure_ascii=False, indent=indent)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a stray byte of the input (a lone surrogate) is written \udcff, not raw
        text = json.dumps(data, default=_default, ensure_ascii=True, indent=indent)
    return text
