"""Lower-case name linking: a known name of the wing written in lower case ("the
leadership council agreed") is a mention of it, which NER cannot see. Kept up to date
note by note (:class:`palace.store.resolution.LowercaseIndex`): only the names whose
readings or matches changed since the last run are linked again.
"""

from __future__ import annotations

import functools
import re

from palace.store import readings as wing_readings
from palace.store.resolution import LowercaseIndex

__all__ = ["link_lowercase_mentions", "LOWERCASE_CONFIDENCE", "MIN_CAPITALISED"]

#: the confidence of a lower-case link (NER mentions have the model's)
LOWERCASE_CONFIDENCE = 0.5
#: a name is looked for in lower case once NER read it capitalised this many times
MIN_CAPITALISED = 3


def _known_names(conn, wing: str, ids=None) -> dict[str, tuple[int, str, int]]:
    """Names NER read in ``wing`` (all, or among ``ids``) that may be looked for in lower
    case: two words or more, capitalised when read ("Leadership Council"), read at least
    :data:`MIN_CAPITALISED` times, not starting with "a"/"an" (spaCy's "an Edition" is not
    a name). ``{key: (entity id, the label the wing reads it under most, times read)}``
    (label ties: PERSON, then alphabetical)."""
    out = {}
    for eid, (name, key, by_label) in wing_readings.ner_readings(conn, wing, ids).items():
        words = key.split()
        times = sum(by_label.values())
        if (len(words) >= 2 and words[0] not in ("a", "an") and all(w.isalpha() for w in words)
                and any(ch.isupper() for ch in name) and times >= MIN_CAPITALISED):
            label = min(by_label, key=lambda k: (-by_label[k], k != "PERSON", k))
            out[key] = (eid, label, times)
    return out


def link_lowercase_mentions(conn, wing: str, *, full: bool = False) -> int:
    """Bring up to date the mentions of known names written in lower case in ``wing``
    ("the leadership council agreed"); inside the caller's transaction. A name is linked
    only where it is written capitalised at least as often as in lower case: "working
    group" or "tracking issue", far more often lower case, are phrases, not names.

    The result is that of searching every drawer of the wing with every known name, so
    it does not depend on the order notes were mined in; but only what changed is done
    again (:class:`palace.store.resolution.LowercaseIndex`): the names whose readings
    changed since the last run are looked at again, new drawers are searched, and when
    a name becomes known or stops being known, the drawers that may write it (a
    full-text phrase search) are searched again; then the links of every name whose
    matches or readings changed are recomputed. ``full`` recomputes every name. Returns
    how many links were written."""
    index = LowercaseIndex(conn, wing)
    before = index.names()
    if full:
        now_known = set(_known_names(conn, wing))
        affected = set(now_known) | before
    else:
        changed = wing_readings.changed_names(conn, wing)
        changed_names = wing_readings.names_of(conn, changed)
        if len(changed_names) < len(changed):  # a name deleted (palace forget): its key is gone too
            return link_lowercase_mentions(conn, wing, full=True)
        changed_keys = {key for _, key in changed_names.values()}
        now_known = (before - changed_keys) | set(_known_names(conn, wing, changed))
        affected = changed_keys & (now_known | before)
    added, dropped = now_known - before, before - now_known
    todo = dict(index.unscanned())
    if added or dropped:
        for did, text in index.texts_naming(added, dropped):
            todo.setdefault(did, text)
        index.change_names(added, dropped)
    affected |= added | dropped
    search = _name_pattern(frozenset(now_known))
    for did, text in todo.items():
        affected |= index.hit_keys(did)
        hits = []
        if search is not None:
            spans = index.taken(did)
            for match in search.finditer(text):
                start, end = match.span()
                if not any(a < end and start < b for a, b in spans):
                    hits.append((" ".join(match.group(0).split()), start, end, match.group(0)))
        index.replace_hits(did, hits)
        affected |= {hit[0] for hit in hits}
    if not affected:
        return 0
    names = _known_names(conn, wing, wing_readings.wing_ids_with_keys(conn, wing, affected & now_known))
    found: dict[str, list[tuple[str, int, int, str]]] = {}
    for did, key, start, end, surface in index.hits(set(names)):
        found.setdefault(key, []).append((did, start, end, surface))
    rows = []
    for key, matches in found.items():
        eid, label, times = names[key]
        if len(matches) <= times:
            rows += [(eid, did, start, end, surface, label) for did, start, end, surface in matches]
    index.replace_mentions(rows, LOWERCASE_CONFIDENCE,
                           entities=None if full else wing_readings.wing_ids_with_keys(conn, wing, affected))
    return len(rows)


@functools.lru_cache(maxsize=4)
def _name_pattern(keys: frozenset) -> "re.Pattern | None":
    """One regular expression for the name keys (lower case, words separated by any
    white space, whole words only; the longest name first where two start together)."""
    if not keys:
        return None
    alternatives = sorted((r"\s+".join(map(re.escape, k.split())) for k in sorted(keys)), key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:" + "|".join(alternatives) + r")(?!\w)")
