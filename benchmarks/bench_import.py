"""How long ``palace import`` takes to replay many decisions.

Mines the sample corpus into a temporary palace (or takes ``--palace DIR``, copied so it
is not changed), writes an export of ``--decisions`` N user decisions — three in five
added facts (new people, each working at one of 40 organisations and living in one of
12 cities, some of them moving: supersession), the rest retractions, confirmations,
acceptances and rejections of the mined facts' keys and merges — then imports it into
the palace and prints the time, the rate and the machine's load (``uptime``).

    .venv/bin/python benchmarks/bench_import.py --decisions 10000
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def decisions(palace, count: int) -> dict:
    """An export (``palace-graph/1``) holding ``count`` decisions: built from the mined
    facts of ``palace`` and from new names, each decided at its own moment."""
    from palace.nlp.names import entity_key
    from palace.ops.portable import FORMAT

    mined = [f for f in palace.facts(limit=10_000).facts if f.evidence in ("stated", "inferred")]
    start = dt.datetime(2025, 1, 1, tzinfo=dt.timezone.utc)
    out = []
    for i in range(count):
        moment = (start + dt.timedelta(seconds=i)).isoformat()
        if i % 5 < 3:  # an added fact
            person = f"Person {i // 3:05d}"
            predicate, obj = (("works_at", f"Organisation {i % 40:02d}") if i % 2 else
                              ("lives_in", ["Oslo", "Lagos", "Lima", "Pune", "Kyoto", "Hobart", "Quito", "Accra",
                                            "Riga", "Perth", "Cork", "Dakar"][i % 12]))
            day = dt.date(2020, 1, 1) + dt.timedelta(days=i % 1500)
            out.append({"id": i + 1, "action": "add", "by": "user", "subject": person,
                        "subject_key": entity_key(person), "predicate": predicate, "object": obj,
                        "object_key": entity_key(obj), "valid_from": day.isoformat(), "valid_to": None,
                        "note": "imported", "fact_id": None, "previous_evidence": None, "pending": 0,
                        "created_at": moment, "reverted_at": None})
        else:  # a decision about a mined fact, by its keys
            fact = mined[i % len(mined)]
            action = ["retract", "confirm", "accept", "reject"][i % 4]
            out.append({"id": i + 1, "action": action, "by": "user", "subject": fact.subject,
                        "subject_key": entity_key(fact.subject), "predicate": fact.predicate, "object": fact.object,
                        "object_key": entity_key(fact.object), "valid_from": fact.valid_from,
                        "valid_to": fact.valid_to, "note": "benchmark", "fact_id": None,
                        "previous_evidence": fact.evidence if action in ("confirm", "accept") else None,
                        "pending": 0, "created_at": moment, "reverted_at": None})
    return {"format": FORMAT, "exported_at": start.isoformat(), "palace": "bench", "entities": [], "facts": [],
            "entity_decisions": [], "fact_decisions": out}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=10_000)
    parser.add_argument("--palace", type=Path, help="a mined palace to copy (default: mine the sample corpus)")
    args = parser.parse_args()
    from palace.core import Palace

    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "palace"
        if args.palace:
            shutil.copytree(args.palace, target)
        else:
            started = time.perf_counter()
            with Palace.open(target) as palace:
                palace.mine(REPO / "sample_corpus", wing="sample")
            print(f"mined the sample corpus in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        with Palace.open(target, create=False) as palace:
            export = Path(tmp) / "export.json"
            export.write_text(json.dumps(decisions(palace, args.decisions)), encoding="utf-8")
            before = palace.conn.execute("SELECT count(*) FROM fact_decisions").fetchone()[0]
            load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
            started = time.perf_counter()
            report = palace.import_decisions(export)
            elapsed = time.perf_counter() - started
            after = palace.conn.execute("SELECT count(*) FROM fact_decisions").fetchone()[0]
        print(f"imported {args.decisions:,} decisions in {elapsed:.2f} s ({args.decisions / elapsed:,.0f}/s):"
              f" {report.facts_added:,} facts added, {report.fact_decisions:,} fact decisions recorded,"
              f" {report.facts_changed:,} facts changed now, {report.already_present:,} already here;"
              f" {after - before:,} decision rows written")
        print(f"uptime before the import: {load}")
        print(f"uptime after: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")


if __name__ == "__main__":
    main()
