"""Names resolved inside their own note (rule 1 of :mod:`palace.graph.resolution`): a
surname, a first name or a short form is the person its note names in full, before any
name of another note.

An encyclopedic page names its people in full once and then by surname ("Ann Taylor was
elected… Taylor joined…"); another page names another Taylor. Resolved across the wing,
one bare "Taylor" is one name for both pages; resolved inside each note, each page's
"Taylor" is its own person. :func:`plan_note` decides from one note's readings alone, so
a note's resolution changes only when its own mentions do (the triggers of migration
0014 mark those notes) and any series of edits ends as a fresh mine.
"""

from __future__ import annotations

from palace.nlp.names import match_key, name_ends
from palace.store.resolution import note_readings, notes_to_resolve, record_note_resolutions

__all__ = ["SAME_NOTE", "AMBIGUOUS_IN_NOTE", "plan_note", "resolve_notes"]

SAME_NOTE = "same note"
AMBIGUOUS_IN_NOTE = "ambiguous in its note"


def plan_note(readings: dict[int, tuple[str, str, dict[str, int]]], path: str,
              splits: set[tuple[str, str]] = frozenset(), merged: set[str] = frozenset(),
              ) -> dict[int, tuple[int | None, str, str]]:
    """Rule 1 (module docstring), inside one note: ``{raw entity id: (target id or None,
    rule, evidence)}`` for the one-word names of the note at ``path`` (``readings``:
    :func:`palace.store.resolution.note_readings`) read as a person at least as often as
    anything else, whose match key is the first or last word of a person's full name
    written in the same note ("Bennett" on a page naming Bob Bennett). One such person:
    the name is that person in this note, whatever other notes hold; several: it stays
    itself in this note (ambiguous), never a guess from another note. ``splits``: pairs
    of keys the user split; ``merged``: keys the user merged elsewhere (left to the
    wing)."""
    def person(labels: dict[str, int]) -> bool:
        return labels.get("PERSON", 0) > 0 and labels.get("PERSON", 0) >= max(labels.values())

    spellings: dict[str, int] = {}  # one candidate per match key: the spelling read most often, then the first
    by_word: dict[str, set[int]] = {}
    for eid, (name, key, labels) in readings.items():
        ends = name_ends(name)
        if ends is None or not person(labels):
            continue
        folded = match_key(name)
        kept = spellings.get(folded)
        if kept is None or sum(labels.values()) > sum(readings[kept][2].values()):
            spellings[folded] = eid
    for eid in spellings.values():
        for word in name_ends(readings[eid][0]):
            by_word.setdefault(word, set()).add(eid)
    out: dict[int, tuple[int | None, str, str]] = {}
    for eid, (name, key, labels) in readings.items():
        if " " in key or key in merged or not person(labels):
            continue
        candidates = [c for c in by_word.get(match_key(name), ()) if (key, readings[c][1]) not in splits]
        # "Jess Kowalski Design" is a variant of "Jess Kowalski", not another Jess
        candidates = sorted((c for c in candidates if not any(
            o != c and readings[c][1].startswith(readings[o][1] + " ") for o in candidates)), key=lambda c: readings[c][1])
        if len(candidates) == 1:
            target = candidates[0]
            out[eid] = (target, SAME_NOTE, f"{name!r} is {readings[target][0]} in {path}: the only person the note"
                                           f" names in full whose name starts or ends with it")
        elif candidates:
            names = ", ".join(readings[c][0] for c in candidates)
            out[eid] = (None, AMBIGUOUS_IN_NOTE,
                        f"{name!r} could be any of {len(candidates)} people named in full in {path}: {names}")
    return out


def resolve_notes(conn, wing: str, merges: dict[str, str], splits: set[tuple[str, str]], *,
                  every: bool = False) -> set[int]:
    """Plan again, by :func:`plan_note`, the notes of ``wing`` whose mentions changed
    since it was last resolved (or ``every`` note), and record the plans, inside the
    caller's transaction. ``merges``/``splits``: the user's decisions in force (keys).
    Returns the names as read whose resolution in some note changed, and the names they
    resolved into before or after."""
    changed: set[int] = set()
    for file_id, path in notes_to_resolve(conn, wing, every=every):
        changed |= record_note_resolutions(conn, file_id, plan_note(note_readings(conn, file_id), path, splits,
                                                                    set(merges)))
    return changed
