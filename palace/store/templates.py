"""The rows the template pass reads (:mod:`palace.graph.templates`): a wing's typed
facts read from the text of a drawer that is still stored, with what makes two of them
the same reading of the same line. Reads only; the state changes go through
:mod:`palace.store.fact_states`."""

from __future__ import annotations

import sqlite3

__all__ = ["OWN_NOTE_RULES", "line_facts"]

#: The rules whose facts are about their own note (a front-matter field, a key–value
#: line, a design record's status or supersession): never a template, whatever repeats.
OWN_NOTE_RULES = ("%/front-matter-%", "%/key-%", "%/document-%")


def line_facts(conn: sqlite3.Connection, wing: str) -> list[sqlite3.Row]:
    """The typed facts of ``wing`` (not co-occurrences, not a person's) read from a
    drawer still stored, live or invalidated, by a rule not in :data:`OWN_NOTE_RULES`:
    rows of ``id``, ``status``, ``invalidation_reason``, ``path``, ``sentence``,
    ``predicate``, ``raw_subject_id``, ``raw_object_id``, ``object_value``,
    ``subject_id`` and ``valid_from``."""
    own = " AND ".join("f.extractor NOT LIKE ?" for _ in OWN_NOTE_RULES)
    # the typed facts through the predicate index (two ranges around the co-occurrences,
    # which are most rows), the wing as a filter: a tenth of the rows the wing's index reads
    return conn.execute(
        "SELECT f.id, f.status, f.invalidation_reason, f.path, f.sentence, f.predicate, f.raw_subject_id,"
        " f.raw_object_id, f.object_value, f.subject_id, f.valid_from FROM facts f"
        " JOIN drawers d ON d.id = f.drawer_id"
        " WHERE (f.predicate < 'mentioned_with' OR f.predicate > 'mentioned_with') AND +f.wing = ?"
        f" AND f.status IN ('live', 'invalidated') AND {own}",
        (wing, *OWN_NOTE_RULES)).fetchall()
