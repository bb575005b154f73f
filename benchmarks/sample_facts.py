"""Live typed facts of a palace: how many, per predicate, and a seeded random sample to
judge by hand (precision on real text is read, never computed from the rules' own cases).

    .venv/bin/python benchmarks/sample_facts.py --palace DIR [--wing W] [--n 100] [--seed 22]
        [--out FILE.jsonl] [--json]

Prints the count of live typed facts (status ``live``, not invalidated, not
``mentioned_with``) per predicate and in all, and the count of candidates and plans
beside them; with ``--out`` writes the sample, one JSON object per line: ``id``,
``subject``, ``predicate``, ``object``, ``valid_from``, ``valid_to``, ``path``, ``line``,
``sentence`` — and the empty fields ``verdict`` (``right``/``wrong``) and ``why`` for the
judge. A judged file is read back by ``--score FILE``: right, wrong and the share right.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from dataclasses import asdict
from pathlib import Path


def live_typed(palace, wing: str | None) -> list:
    """Every live typed fact of the palace (in ``wing``), as
    :class:`palace.store.facts.FactView`, in id order."""
    from palace.store.facts import FactFilter, fact_views

    wanted = FactFilter(typed_only=True, live=True, wing=wing)
    views = fact_views(palace.conn, wanted, palace.registry, limit=10_000_000)
    return sorted((v for v in views if v.invalidated_at is None), key=lambda v: v.id)


def counts(palace, wing: str | None) -> dict:
    """``{"live": n, "per_predicate": {...}, "candidates": n, "planned": n}``."""
    from palace.store.facts import FactFilter, count_facts

    live = live_typed(palace, wing)
    others = {status: count_facts(palace.conn, FactFilter(typed_only=True, wing=wing, statuses=(status,)),
                                  palace.registry) for status in ("candidate", "planned")}
    return {"live": len(live), "per_predicate": dict(Counter(v.predicate for v in live).most_common()),
            "candidates": others["candidate"], "planned": others["planned"]}


def sample(palace, wing: str | None, n: int, seed: int) -> list[dict]:
    """A seeded random sample of ``n`` live typed facts, each a dict for the judge."""
    live = live_typed(palace, wing)
    chosen = random.Random(seed).sample(live, min(n, len(live)))
    keep = ("id", "subject", "predicate", "object", "valid_from", "valid_to", "path", "line", "sentence")
    return [{**{k: asdict(v)[k] for k in keep}, "verdict": "", "why": ""} for v in sorted(chosen, key=lambda v: v.id)]


def score(path: Path) -> dict:
    """Right, wrong and the share right of a judged sample file."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    verdicts = Counter(r.get("verdict", "") for r in rows)
    judged = verdicts["right"] + verdicts["wrong"]
    return {"right": verdicts["right"], "wrong": verdicts["wrong"], "unjudged": len(rows) - judged,
            "share_right": round(100.0 * verdicts["right"] / judged, 1) if judged else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--palace", type=Path)
    parser.add_argument("--wing")
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--score", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.score:
        print(json.dumps(score(args.score)))
        return
    if args.palace is None:
        sys.exit("--palace DIR is needed (or --score FILE)")
    from palace.core import Palace

    with Palace.open(args.palace, create=False) as palace:
        found = counts(palace, args.wing)
        if args.out:
            rows = sample(palace, args.wing, args.n, args.seed)
            args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
            found["sampled"] = len(rows)
    if args.json:
        print(json.dumps(found, indent=1))
    else:
        print(f"live typed facts: {found['live']} (candidates {found['candidates']}, planned {found['planned']})")
        for predicate, count in found["per_predicate"].items():
            print(f"  {predicate:<20} {count}")


if __name__ == "__main__":
    main()
