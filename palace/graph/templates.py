"""Template lines yield no facts.

A *template line* is a line written the same in many notes that names nothing of its own
note: a checklist item of a design-record template ("- [ ] e2e Tests for all Beta API
Operations (endpoints)"), a boilerplate comment, a standing sentence pasted into every
meeting's minutes. What it says is the template's, not the note's: in KEP-style records
two such lines gave 558 of 1,473 typed facts. A line is one when the same sentence gives
the same reading — predicate, subject and object as read — in :data:`TEMPLATE_NOTES`
notes or more of a wing. A line about its own note is never one: a front-matter field,
a key–value line, a design record's status or supersession (their subject is the note;
:data:`palace.store.templates.OWN_NOTE_RULES`).

The counts depend on other notes, so :func:`mark_templates` recomputes them over the
whole wing at every resolution (a group of typed facts costs a few milliseconds per
thousand facts): the facts of a template line are invalidated (:data:`TEMPLATE`,
history keeps them), and those of a line that no longer repeats enough — a note edited
or deleted — are live again. The result depends only on the stored drawers, never on
the order the notes arrived in, so a one-note edit leaves the graph a fresh mine gives.
"""

from __future__ import annotations

import sqlite3

from palace.graph.temporal import apply_timelines, recorded_now
from palace.store import fact_states as states
from palace.store.templates import line_facts

__all__ = ["TEMPLATE", "TEMPLATE_NOTES", "mark_templates"]

#: In how many notes of a wing the same line must give the same reading to be a template's.
TEMPLATE_NOTES = 3
#: The reason users read for a template line's fact.
TEMPLATE = f"template line: the same text gives the same fact in {TEMPLATE_NOTES} or more notes"


def _reading(row: sqlite3.Row) -> tuple:
    """What makes two facts the same reading of the same line."""
    return (" ".join((row["sentence"] or "").split()).casefold(), row["predicate"], row["raw_subject_id"],
            row["raw_object_id"], row["object_value"])


def mark_templates(conn: sqlite3.Connection, wing: str, registry: dict | None) -> int:
    """Invalidate the live facts of ``wing``'s template lines and bring back to life
    those of lines that are no longer one, then recompute the timelines they touch
    (``registry``: the predicate registry). Inside the caller's transaction; returns how
    many facts changed state."""
    rows = line_facts(conn, wing)
    present = [r for r in rows if r["status"] == "live" or r["invalidation_reason"] == TEMPLATE]
    notes: dict[tuple, set[str]] = {}
    for row in present:
        notes.setdefault(_reading(row), set()).add(row["path"])
    template = {reading for reading, paths in notes.items() if len(paths) >= TEMPLATE_NOTES}
    to_template = [r["id"] for r in present if r["status"] == "live" and _reading(r) in template]
    to_live = [r["id"] for r in present if r["status"] == "invalidated" and _reading(r) not in template]
    changed = []
    if to_template:
        changed += states.invalidate(conn, at=recorded_now(), reason=TEMPLATE, fact_ids=to_template)
    if to_live:
        changed += states.change_state(conn, states.StateChange("live", fact_ids=tuple(to_live), was=("invalidated",)))
    if changed:
        apply_timelines(conn, {(r["subject_id"], r["predicate"]) for r in changed}, registry)
    return len(changed)
