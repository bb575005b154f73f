"""Design documents as entities: the status and supersession of each PEP as live facts.

    .venv/bin/python benchmarks/eval_peps.py [--corpus DIR] [--palace DIR] [--json] [--errors N]

The set (default ``../shared/corpora/peps``, read in place; see its README): 145 PEPs
(``peps/pep-NNNN.rst``) and ``key.jsonl``, one line per PEP with its ``status``, and the
PEPs it is ``superseded_by`` and ``replaces``. The palace (default: ``peps-palace`` under
the system's temp folder) is mined from ``peps/`` first when it holds nothing.

For each PEP N, the live typed facts about "PEP N" (``Palace.facts(about="PEP N")``):

- **status right**: a live ``status`` fact whose subject is PEP N names the key's status
  (case-folded), and no live ``status`` fact of PEP N names another;
- **links right**: for each M in ``superseded_by``, a live ``supersedes`` fact from PEP M
  to PEP N; for each R in ``replaces``, one from PEP N to PEP R;
- **right**: both. The goal of the issue: right for ≥ 90 % of the PEPs.

A document is matched by its number ("PEP 572", "PEP-0572", "PEP 572: Assignment
Expressions" are all PEP 572). ``--errors N`` lists N PEPs that are not right, with the
facts found.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpora" / "peps"


def pep_number(name: str | None) -> int | None:
    """The number of a PEP named ``name`` ("PEP 572", "pep-0572: …"), else None."""
    m = re.match(r"\s*pep[\s\-_]*0*(\d+)\b", name or "", re.IGNORECASE)
    return int(m.group(1)) if m else None


def judge(palace, key: list[dict]) -> list[dict]:
    """One verdict per PEP of ``key``."""
    from palace.errors import UsageError

    out = []
    for row in key:
        n = row["pep"]
        try:
            facts = palace.facts(about=f"PEP {n}").facts
        except UsageError:
            facts = ()
        statuses = [f.object for f in facts if f.predicate == "status" and pep_number(f.subject) == n]
        links = {(pep_number(f.subject), pep_number(f.object)) for f in facts if f.predicate == "supersedes"}
        want = ({(m, n) for m in row["superseded_by"]} | {(n, r) for r in row["replaces"]})
        status_right = (any((s or "").casefold() == row["status"].casefold() for s in statuses)
                        and all((s or "").casefold() == row["status"].casefold() for s in statuses))
        links_right = want <= links
        out.append({"pep": n, "status": row["status"], "found_statuses": statuses, "want_links": sorted(want),
                    "found_links": sorted(l for l in links if None not in l), "status_right": status_right,
                    "links_right": links_right, "right": status_right and links_right, "known": bool(facts)})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--palace", type=Path, default=Path(tempfile.gettempdir()) / "peps-palace")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--errors", type=int, default=0)
    args = parser.parse_args()
    from palace.core import Palace

    key = [json.loads(line) for line in (args.corpus / "key.jsonl").read_text().splitlines() if line.strip()]
    with Palace.open(args.palace) as palace:
        if palace.status().drawers == 0:
            print(f"mining {args.corpus / 'peps'} into {args.palace} …", file=sys.stderr)
            started = time.perf_counter()
            palace.mine(args.corpus / "peps", wing="peps")
            print(f"mined in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        verdicts = judge(palace, key)
    n = len(verdicts)
    linked = [v for v in verdicts if v["want_links"]]
    figures = {
        "peps": n,
        "known": sum(v["known"] for v in verdicts),
        "status_right": sum(v["status_right"] for v in verdicts),
        "links_right_of_linked": sum(v["links_right"] for v in linked),
        "linked": len(linked),
        "right": sum(v["right"] for v in verdicts),
    }
    if args.json:
        print(json.dumps({"figures": figures, "verdicts": verdicts}, indent=1))
        return
    print(f"{n} PEPs: known as an entity {figures['known']}, status right {figures['status_right']}"
          f" ({100 * figures['status_right'] / n:.1f} %), supersession links right"
          f" {figures['links_right_of_linked']}/{figures['linked']}, both right {figures['right']}"
          f" ({100 * figures['right'] / n:.1f} %; goal ≥ 90 %)")
    for v in [v for v in verdicts if not v["right"]][:args.errors]:
        print(f"- PEP {v['pep']}: status {v['status']!r}, found {v['found_statuses']}; links wanted"
              f" {v['want_links']}, found {v['found_links']}")


if __name__ == "__main__":
    main()
