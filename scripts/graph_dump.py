"""Print what a palace holds as deterministic JSON, to compare two builds of it.

    python scripts/graph_dump.py PALACE_DIR > dump.json

Every row of the tables a user can observe through palace (files, drawers, entities,
aliases, mentions, date mentions, facts, resolutions, the wing readings and the
lower-case links), sorted, with the columns that record *when* something happened on
this machine (``recorded_at``, ``invalidated_at``, ``mined_at``, ``created_at``, a
file's ``mtime``) reduced to whether they are set. Two mines of the same notes by two
versions of palace that behave alike print the same bytes; a refactor is checked by
``diff``-ing the dumps made before and after it (``cmp`` of the two files).
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

#: columns whose value is a moment of this machine's clock: only whether they are set counts
MOMENTS = {"recorded_at", "invalidated_at", "mined_at", "created_at", "mtime"}
TABLES = ("files", "drawers", "entities", "aliases", "mentions", "date_mentions", "facts",
          "entity_resolutions", "wing_readings", "lowercase_hits", "entity_bases")


def dump(palace_dir: Path) -> dict[str, list]:
    """``{table: sorted rows}``, each row a list of column values (moments masked)."""
    conn = sqlite3.connect(f"file:{palace_dir / 'palace.db'}?mode=ro", uri=True)
    out: dict[str, list] = {}
    present = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for table in TABLES:
        if table not in present:
            continue
        columns = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
        select = ", ".join(f"{c} IS NOT NULL" if c in MOMENTS else c for c in columns)
        rows = [list(r) for r in conn.execute(f"SELECT {select} FROM {table}")]
        out[table] = [columns, *sorted(rows, key=lambda row: json.dumps(row))]
    conn.close()
    return out


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    json.dump(dump(Path(sys.argv[1])), sys.stdout, indent=0, ensure_ascii=False)
    print()
