"""A seeded sample of the live typed facts one palace holds and another does not, to judge.

    .venv/bin/python benchmarks/sample_new_facts.py BASE NEW [--n 30] [--seed S]

BASE and NEW are palace folders mined from the same notes (BASE with the code before a
change, NEW with it; both read only). A fact is **new** when no live fact of BASE has its
subject, predicate and object (names as stored; its valid time may differ). Prints how
many live typed facts (``mentioned_with`` left out) each holds, the new ones per
predicate, and ``--n`` of them drawn with ``--seed``, each with its valid time, rule, note
and sentence, numbered for a verdict by hand (``benchmarks/judged/``).
"""

from __future__ import annotations

import argparse
import random
import sqlite3
from collections import Counter
from pathlib import Path

QUERY = """
SELECT s.name, f.predicate, coalesce(o.name, f.object_value), f.valid_from, f.valid_to, f.sentence, f.path,
       f.extractor
FROM facts f JOIN entities s ON s.id = f.subject_id LEFT JOIN entities o ON o.id = f.object_id
WHERE f.status = 'live' AND f.invalidated_at IS NULL AND f.predicate != 'mentioned_with'
"""


def live_facts(palace: Path) -> list[tuple]:
    """``(subject, predicate, object, valid_from, valid_to, sentence, path, extractor)`` of
    every live typed fact of the palace at ``palace``, read only."""
    conn = sqlite3.connect(f"file:{palace / 'palace.db'}?mode=ro", uri=True)
    try:
        return conn.execute(QUERY).fetchall()
    finally:
        conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--n", type=int, default=30)
    parser.add_argument("--seed", type=int, default=22)
    args = parser.parse_args()
    base = {row[:3] for row in live_facts(args.base)}
    rows = live_facts(args.new)
    first: dict[tuple, tuple] = {}
    for row in rows:
        if row[:3] not in base:
            first.setdefault(row[:3], row)
    keys = sorted(first, key=lambda k: tuple(x or "" for x in k))
    print(f"live typed facts (subject, predicate, object): base {len(base)}, new {len({r[:3] for r in rows})};"
          f" new only {len(keys)}")
    print("new per predicate:", ", ".join(f"{p} {n}" for p, n in Counter(k[1] for k in keys).most_common()))
    random.seed(args.seed)
    for n, key in enumerate(random.sample(keys, min(args.n, len(keys))), 1):
        s, p, o, start, end, sentence, path, extractor = first[key]
        print(f"{n}. {s} –{p}→ {o} [{start} → {end}] ({extractor.split('/')[-1]}; {path})\n"
              f"     \"{' '.join(sentence.split())[:400]}\"")


if __name__ == "__main__":
    main()
