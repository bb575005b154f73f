"""Reading entities: the one lookup of a name or alias."""

from __future__ import annotations

import difflib
import re
import sqlite3

from palace.errors import UsageError
from palace.nlp.names import entity_key

__all__ = ["find_entities"]


def find_entities(conn: sqlite3.Connection, name: str) -> list[sqlite3.Row]:
    """Entities whose name or alias has the key of ``name``, most mentioned first: rows
    of ``id``, ``name``, ``type`` and ``n`` (mentions).

    Raises :class:`UsageError` (with the closest known names as a hint) when none does.
    """
    key = entity_key(re.sub(r"['’][sS]$", "", name.strip()))
    # entities carrying the name or alias, and every entity of the same name under other
    # types (an alias of a note's concept reaches the NER entities of that name too)
    rows = conn.execute(
        "SELECT e.id, e.name, e.type, (SELECT count(*) FROM mentions m WHERE m.entity_id = e.id) AS n"
        " FROM entities e WHERE e.key IN (SELECT x.key FROM entities x JOIN aliases a ON a.entity_id = x.id"
        " WHERE a.key = ?) ORDER BY n DESC, e.id",
        (key,),
    ).fetchall()
    if not rows:
        names = [r[0] for r in conn.execute("SELECT DISTINCT name FROM entities")]
        lowered = {n.casefold(): n for n in names}
        close = [lowered[c] for c in difflib.get_close_matches(name.casefold(), list(lowered), n=5, cutoff=0.6)]
        raise UsageError(
            f"no entity named {name!r} in this palace",
            hint=("did you mean: " + ", ".join(close)) if close else "run `palace mine DIR` on notes that name it",
        )
    return rows
