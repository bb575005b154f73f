"""Entity resolution: which entity each name as read stands for, and why.

Mentions and facts keep the entity as read (``raw_*`` columns) and point at the resolved
one. :func:`resolve_wing` recomputes the resolution of a wing from scratch after every
mine and after every user decision, so it never depends on the order notes were mined
and is always reversible. Rules, in order:

- **user decisions** (``palace entity merge A B`` / ``palace entity split A``), stored in
  ``entity_decisions`` and applied in every wing, come first; a split forbids the
  automatic rules to merge that pair again;
0. **spelling**: names whose match keys agree (:func:`palace.nlp.names.match_key`:
   diacritics and case folded, "Jakub Beránek" and "Jakub Beranek") are one entity,
   named by the spelling read most often in the wing (the first seen on a tie); the
   other spelling is an alias, with its evidence. Every rule below sees the spellings of
   one name as one.
1. **same note** (:func:`plan_note`, recorded per note in ``note_resolutions``): a
   one-word name read as a person in a note ("Taylor", "Ann") is the person that same
   note names in full with it as first name or surname ("Ann Taylor"), whatever other
   notes hold; with two such people in the note it stays itself there (*ambiguous in
   its note*), never a guess from another note. Repointing takes the note's resolution
   first; what it resolves into then resolves in the wing.
2. **short form**: a one-word name read as a PERSON at least as often as anything else
   ("Alice", "Beranek") that some note does not resolve itself resolves to the one
   person of the wing whose full name starts or ends with it ("Alice Chen", "Jakub
   Beránek"), only when exactly one such person is mentioned in the wing; with two
   or more it stays itself and is recorded as *ambiguous*, with the candidates, never
   merged by guess. A full name read only once, beside one read more often, does not
   count as a second person (spaCy reads "Bob Wants" as a name; a short name resolved
   to a person inside a note counts as a reading of that person), and a name extending
   another candidate ("Jess Kowalski Design") is a variant of it; the evidence says so.
3. **legal suffix**: organisation names that differ only by a legal suffix ("Acme Corp",
   "Acme Corporation", "Acme Inc.", :data:`palace.nlp.names.LEGAL_SUFFIXES`) are one
   entity, named by the form read most often; the plain name ("Acme") joins them when
   the wing reads it as an organisation at least as often as anything else;
4. **project name**: "Project Falcon" and "Falcon Project" are one entity (the form read
   most often, "Project …" on a tie); the plain name "Falcon" joins it unless the wing
   reads it mostly as a person, or the wing reads "Project" alone as a name
   (:data:`PROJECT_AS_NAME` times or more: there "Project Directors" are the directors
   of an organisation called the Project, and "Directors" is not a project's name).

For rules 3 and 4 the plain name stays itself when it is a word of
:data:`WIDER_NAME` or more other names of the wing ("Rust" in "Rust Foundation", "Rust
2024", "Inside Rust": it names more than the project) or when two such families claim
it ("Falcon Inc." and "Project Falcon"). ``palace entity split`` of a joined name keeps
it apart from every name of its family.

Case, whitespace, line breaks, a leading "the" and possessives are already one key
(:func:`entity_key`; an older palace's spellings are joined by the resolution its
migration 0014 leaves pending); front-matter ``aliases:`` and e-mail addresses are aliases of their
entity. :func:`palace.graph.lowercase.link_lowercase_mentions` adds the mentions NER cannot
see: a known name written in lower case ("the leadership council agreed").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from palace.errors import UsageError
# rule 1 lives in note_names; its names are re-exported with the other rules'
from palace.graph.note_names import AMBIGUOUS_IN_NOTE, SAME_NOTE, plan_note, resolve_notes  # noqa: F401
from palace.graph.temporal import apply_timelines, recorded_now
from palace.nlp.names import entity_key, legal_form, match_key, name_ends, project_base
from palace.store import readings as wing_readings
from palace.store import sqlite as store
from palace.store.decisions import entity_decisions_about, entity_decisions_in_force
from palace.store.drawers import wings as wings_of
from palace.store.entities import alias_entries, entity_by_key, entity_named, entity_type
from palace.store.resolution import (clear_changed_notes, note_raws_into, read_in_resolving_notes, record_decision,
                                     record_resolutions, refresh_aliases, repoint, resolutions_of, resolved_in_notes,
                                     resolved_targets)

SHORT_FORM = "short form"
SPELLING = "spelling"
USER_MERGE = "user merge"
AMBIGUOUS = "ambiguous short form"
LEGAL_SUFFIX = "legal suffix"
PROJECT_NAME = "project name"
#: Rules whose joins imply an alias of the target (recomputed on every resolution).
JOINING_RULES = (SHORT_FORM, USER_MERGE, LEGAL_SUFFIX, PROJECT_NAME, SPELLING)
#: A plain name that is a word of this many other names of a wing names more than one
#: organisation or project ("Rust" in "Rust Foundation", "Rust 2024", "Inside Rust").
WIDER_NAME = 3
#: A wing reading "Project" alone this many times has an organisation of that name.
PROJECT_AS_NAME = 3


@dataclass(frozen=True)
class Resolution:
    """How the name ``name`` resolves in ``wing``: into ``into`` (None when ambiguous),
    by ``rule``, with ``evidence`` (a sentence a user can check)."""

    name: str
    wing: str
    into: str | None
    rule: str
    evidence: str
    since: str


def _wing_people(conn, wing: str, ids=None) -> dict[int, tuple[str, str, int, int, dict[str, int]]]:
    """Entities as read in ``wing`` (all, or only ``ids``): ``{id: (name, key, mentions,
    person mentions, mentions by label)}``, in the order of their ids, where a name read
    as PERSON less often than under some other label counts no person mentions (spaCy
    gives one name several labels; the plurality decides)."""
    counts: dict[int, dict[str, int]] = {}
    names: dict[int, tuple[str, str]] = {}
    for eid, name, key, label, n in wing_readings.readings(conn, wing, ids):
        counts.setdefault(eid, {})[label] = n
        names[eid] = (name, key)
    out = {}
    for eid, by_label in counts.items():
        people = by_label.get("PERSON", 0)
        if people < max(by_label.values()):
            people = 0
        out[eid] = (*names[eid], sum(by_label.values()), people, by_label)
    return out


def _decisions(conn) -> tuple[dict[str, str], set[tuple[str, str]]]:
    merges, splits = {}, set()
    for action, name_key, into_key in entity_decisions_in_force(conn):
        if action == "merge":
            merges[name_key] = into_key
        else:
            splits.add((name_key, into_key))
    return merges, splits


def plan_wing(conn, wing: str, ids=None) -> dict[int, tuple[int | None, str, str]]:
    """The resolution of ``wing``: ``{raw entity id: (target id or None, rule, evidence)}``
    for the names that do not stand for themselves. With ``ids``, the rules see only
    those names: exact for the names whose neighbourhood ``ids`` holds whole
    (:func:`_neighbourhood`)."""
    seen = _wing_people(conn, wing, ids)
    merges, splits = _decisions(conn)
    out: dict[int, tuple[int | None, str, str]] = {}
    for eid, (name, key, _, _, _) in seen.items():
        target_key, hops = key, 0
        while target_key in merges and hops < 8:
            target_key, hops = merges[target_key], hops + 1
        if target_key != key:
            row = entity_by_key(conn, target_key)
            if row is not None:
                out[eid] = (row[0], USER_MERGE, f"merged by the user into {row[1]}")
    spelled = _spellings(seen, wing, splits, set(out))
    lead = {eid: target for eid, (target, _, _) in spelled.items()}
    # people with a name of several words, by its first and its last word (match keys):
    # the candidates of a short form are found by one lookup, not by a scan of the wing
    by_word: dict[str, set[int]] = {}
    for other, (oname, _, _, opeople, _) in seen.items():
        ends = name_ends(oname)
        if ends is not None and opeople > 0 and other not in out:
            for word in ends:
                by_word.setdefault(word, set()).add(lead.get(other, other))
    # a short name read only in notes that resolve it themselves is no question for the wing
    local = read_in_resolving_notes(conn, wing, [e for e, info in seen.items() if " " not in info[1]])
    # a person's short name resolved to them inside a note is one more reading of them
    extra = resolved_in_notes(conn, wing, [e for e, info in seen.items() if " " in info[1]])
    for eid, (name, key, total, people, _) in seen.items():
        if eid in out or eid in lead or " " in key or people == 0 or local.get(eid, 0) >= total:
            continue
        candidates = [other for other in by_word.get(match_key(name), ()) if (key, seen[other][1]) not in splits]
        # "Jess Kowalski Design" is a variant of "Jess Kowalski", not another Jess
        candidates = sorted(
            (c for c in candidates if not any(o != c and seen[c][1].startswith(seen[o][1] + " ") for o in candidates)),
            key=lambda c: seen[c][1],
        )
        # a full name read once ("Bob Wants") is too weak to make "Bob" ambiguous; it
        # still counts when it is the only candidate
        strong = [c for c in candidates if _read_times(seen, c, lead, extra) >= 2] or candidates
        weak = [seen[c][0] for c in candidates if c not in strong]
        aside = f" (read once, not counted: {', '.join(weak)})" if weak else ""
        if len(strong) == 1:
            target = strong[0]
            out[eid] = (target, SHORT_FORM,
                        f"the only person in wing {wing} whose name starts or ends with {name!r}: {seen[target][0]}{aside}")
        elif len(strong) > 1:
            names = ", ".join(seen[c][0] for c in strong)
            out[eid] = (None, AMBIGUOUS, f"{name!r} could be any of {len(strong)} people in wing {wing}: {names}{aside}")
    for eid, (target, rule, evidence) in spelled.items():
        # a spelling of a short form goes where the short form goes ("Beranek", "Beránek")
        joined = out.get(target)
        if joined is not None and joined[1] in (SHORT_FORM, AMBIGUOUS):
            out[eid] = joined
        else:
            out[eid] = (target, rule, evidence)
    user_merged = {eid for eid, (_, rule, _) in out.items() if rule == USER_MERGE}
    for eid, joined in _family_joins(seen, wing, splits, user_merged | set(lead)).items():
        out.setdefault(eid, joined)
    return out


def _read_times(seen: dict, eid: int, lead: dict[int, int], extra: dict[int, int]) -> int:
    """How often the person ``eid`` is read as a person in the wing, its spellings
    together, with its short names resolved to it inside notes (``extra``)."""
    return sum(info[3] + extra.get(other, 0) for other, info in seen.items() if other == eid or lead.get(other) == eid)


def _spellings(seen: dict, wing: str, splits: set[tuple[str, str]], skip: set[int]) -> dict[int, tuple[int, str, str]]:
    """Rule 0 (module docstring): the names of ``seen`` whose match keys agree
    (:func:`palace.nlp.names.match_key`: "Jakub Beránek", "Jakub Beranek") are one
    entity, named by the spelling read most often (the first seen on a tie): ``{raw
    entity id: (target id, rule, evidence)}`` for the other spellings. ``skip``: names
    the user merged elsewhere; a pair the user split stays apart."""
    groups: dict[str, list[int]] = {}
    for eid, info in seen.items():
        if eid not in skip:
            groups.setdefault(match_key(info[0]), []).append(eid)
    out: dict[int, tuple[int, str, str]] = {}
    for members in groups.values():
        if len(members) < 2:
            continue
        target = min(members, key=lambda e: (-seen[e][2], e))
        for eid in members:
            if eid == target or (seen[eid][1], seen[target][1]) in splits or (seen[target][1], seen[eid][1]) in splits:
                continue
            out[eid] = (target, SPELLING,
                        f"{seen[eid][0]!r} is {seen[target][0]!r} written without or with its diacritics or capitals:"
                        f" read {seen[eid][2]} and {seen[target][2]} times in wing {wing}")
    return out


def _family_joins(seen: dict, wing: str, splits: set[tuple[str, str]],
                  skip: set[int]) -> dict[int, tuple[int, str, str]]:
    """Rules 3 and 4 (module docstring) over the entities ``seen`` in ``wing``:
    ``{raw entity id: (target id, rule, evidence)}``. ``skip``: entities the user merged
    elsewhere (never joined, never a target); ``splits``: the pairs of keys the user
    split (no name is joined to a family holding a name it was split from)."""
    by_key = {info[1]: eid for eid, info in seen.items()}
    families = []  # (rule, plain name key, plain name as written, {entity id: its legal suffix, or "project"})
    for rule in (LEGAL_SUFFIX, PROJECT_NAME):
        grouped: dict[str, dict[int, str]] = {}
        written: dict[str, str] = {}
        for eid, info in seen.items():
            name = info[0]
            if eid in skip:
                continue
            if rule == LEGAL_SUFFIX:
                form = legal_form(name)
                base, mark = form if form else (None, "")
            else:
                base, mark = project_base(name), "project"
            if base is not None and entity_key(base) != entity_key(name):
                grouped.setdefault(entity_key(base), {})[eid] = mark
                written.setdefault(entity_key(base), base)
        families += [(rule, key, written[key], forms) for key, forms in grouped.items()]
    claims: dict[str, int] = {}
    for _, key, _, _ in families:
        claims[key] = claims.get(key, 0) + 1
    the_project = by_key.get("project")
    project_is_a_name = the_project is not None and seen[the_project][2] >= PROJECT_AS_NAME
    out: dict[int, tuple[int, str, str]] = {}
    for rule, key, base, forms in families:
        # the family's name: the form read most often ("Project …" first on a tie)
        target = min(forms, key=lambda e: (-seen[e][2], not seen[e][1].startswith("project "), seen[e][1]))
        members = list(forms)
        plain = by_key.get(key)
        if rule == PROJECT_NAME and project_is_a_name:
            plain = None
        if plain is not None and plain not in skip and plain not in forms and claims[key] == 1:
            wider = _names_containing(seen, key, [seen[e][1] for e in forms])
            if len(wider) < WIDER_NAME and _reads_as(seen[plain], rule):
                members.append(plain)
        keys = {eid: seen[eid][1] for eid in members}
        for eid in members:
            if eid == target or eid in out:
                continue
            if any((keys[eid], k) in splits or (k, keys[eid]) in splits for o, k in keys.items() if o != eid):
                continue
            out[eid] = (target, rule, _evidence(rule, seen, eid, target, base, forms, wing))
    return out


def _names_containing(seen: dict, key: str, forms: list[str]) -> list[str]:
    """The other names of the wing that hold ``key`` as whole words ("rust" in "rust
    foundation"), leaving out the family's forms and the names that hold one of them."""
    pattern = re.compile(r"(?<!\w)" + re.escape(key) + r"(?!\w)")
    out = []
    for name, other, *_ in seen.values():
        if other != key and pattern.search(other) and not any(f in other for f in forms):
            out.append(name)
    return out


def _reads_as(info: tuple, rule: str) -> bool:
    """Whether a plain name's readings fit the family: an organisation at least as often
    as anything else (legal suffix); a person less often than something else (project)."""
    by_label = info[4]
    top = max(by_label.values())
    if rule == LEGAL_SUFFIX:
        return by_label.get("ORG", 0) >= top
    return by_label.get("PERSON", 0) < top


def _evidence(rule: str, seen: dict, eid: int, target: int, base: str, forms: dict[int, str], wing: str) -> str:
    """The sentence :func:`aliases` shows for one join of rules 3 and 4."""
    name, tname, total = seen[eid][0], seen[target][0], seen[eid][2]
    if eid in forms and rule == LEGAL_SUFFIX:
        return (f"{name!r} and {tname!r} are the organisation {base!r} with the legal suffixes"
                f" {forms[eid]!r} and {forms[target]!r}, both read in wing {wing}")
    if eid in forms:
        return f"{name!r} and {tname!r} both name the project {base!r} in wing {wing}"
    if rule == LEGAL_SUFFIX:
        orgs = seen[eid][4].get("ORG", 0)
        return (f"{name!r} is {tname!r} without its legal suffix {forms[target]!r}: read as an organisation"
                f" in {orgs} of its {total} mentions in wing {wing}")
    people = seen[eid][4].get("PERSON", 0)
    return (f"{name!r} is the short name of the project {tname!r}: read as a person in {people} of its"
            f" {total} mentions in wing {wing}")


#: Above this many names changed since a wing was last resolved (a first mine, a large
#: re-mine), the whole wing is planned: one pass over its names costs less than
#: looking up each changed name's neighbours.
INCREMENTAL_LIMIT = 1000


def _neighbourhood(conn, wing: str, changed: set[int]) -> tuple[set[int], set[int]]:
    """``(touched, context)`` for the names ``changed`` in ``wing``: ``touched``, the names
    whose resolution may differ after the change (each changed name; the one-word name a
    changed full name may be the short form of; every name of a family a changed name
    belongs to, is the plain name of, or is a wider name of); ``context``, the names the
    rules must see to resolve ``touched`` exactly as a plan of the whole wing would:
    ``touched``, the full names a one-word name may be short for, and every name of a
    touched name's families with the names holding a family's base as a word."""
    def families(ids) -> tuple[dict[int, tuple[str, str]], set[str]]:
        names = wing_readings.names_of(conn, ids)
        bases = wing_readings.bases_of(conn, ids)
        candidates = set()
        for eid, (_, key) in names.items():
            candidates |= {b for b in bases.get(eid, (None, None)) if b is not None}
            candidates.add(key)
        return names, candidates

    # the spellings of a changed name resolve with it (one of them names them all)
    changed = set(changed) | _spellings_in_wing(conn, wing, set(changed))
    names, candidates = families(changed)
    for _, key in names.values():
        # a changed name may make a family's base a word of more names ("rust" in "rust
        # 2024", "falcon" in "falcon-9 launch group"): every span from the start of a word
        # to the end of a later one, the boundaries _names_containing uses
        runs = [(m.start(), m.end()) for m in re.finditer(r"\w+", key)]
        candidates |= {key[a:b] for i, (a, _) in enumerate(runs) for _, b in runs[i:]}
    touched = set(changed)
    # the first names and surnames a changed full name may be the long form of
    words = {w for _, first, last in wing_readings.folded_of(conn, changed).values() for w in (first, last) if w}
    touched |= wing_readings.wing_ids_folded(conn, wing, words)
    touched |= wing_readings.families_in_wing(conn, wing, candidates)[1]
    # the plain names of every candidate base, a family or not: the last "Project Falcon"
    # gone, "Falcon" stands for itself again
    touched |= wing_readings.wing_ids_with_keys(conn, wing, candidates)
    touched |= _spellings_in_wing(conn, wing, touched)
    names, candidates = families(touched)
    bases, members = wing_readings.families_in_wing(conn, wing, candidates)
    context = touched | members
    folded = wing_readings.folded_of(conn, touched)
    context |= wing_readings.wing_ids_with_word(conn, wing, {f for f, first, _ in folded.values() if first is None})
    context |= wing_readings.wing_ids_with_keys(conn, wing, bases | {"project"})
    context |= wing_readings.wing_ids_containing(conn, wing, bases)
    # a name of the context joined to another spelling is no candidate nor family member
    return touched, context | _spellings_in_wing(conn, wing, context)


def _spellings_in_wing(conn, wing: str, ids: set[int]) -> set[int]:
    """The names read in ``wing`` spelt as one of ``ids`` is (one match key)."""
    wing_readings.ensure_bases(conn, ids)
    return wing_readings.wing_ids_folded(conn, wing, {f for f, _, _ in wing_readings.folded_of(conn, ids).values()})


def resolve_wing(conn, wing: str, registry: dict | None = None, *, full: bool = False) -> int:
    """Re-resolve the names read in ``wing`` and repoint its mentions and facts; inside
    the caller's transaction. Also refreshes entity types (majority label) and the
    aliases a resolution implies, and recomputes the one-value timelines of the subjects
    whose facts moved. Returns how many facts changed subject or object.

    Only the names a change since the last resolution can touch are planned again
    (:func:`_neighbourhood`; the triggers of ``wing_readings`` say which changed), unless
    ``full``, more than :data:`INCREMENTAL_LIMIT` names changed, the name "Project" did
    (it decides every project family), or a changed name was deleted (``palace
    forget``): the result is the same as planning the whole wing (tested), at a cost that
    follows the change, not the wing (but for one pass over the wing's names with
    ``instr`` when a family is touched, to count its wider names)."""
    changed = wing_readings.changed_names(conn, wing)
    wing_readings.ensure_bases(conn, changed)
    names = wing_readings.names_of(conn, changed)
    keys = {key for _, key in names.values()}
    # a name deleted (palace forget) leaves no key to find its neighbours by: plan it all
    whole = full or len(changed) > INCREMENTAL_LIMIT or "project" in keys or len(names) < len(changed)
    renamed = resolve_notes(conn, wing, *_decisions(conn), every=whole)
    if whole:
        plan = plan_wing(conn, wing)
        record_resolutions(conn, wing, plan, recorded_now())
        mapping = {raw: target for raw, (target, _, _) in plan.items() if target is not None}
        moved = repoint(conn, wing)
        refresh_aliases(conn, mapping, {raw: plan[raw][1] for raw in mapping}, JOINING_RULES)
        wing_readings.retype(conn, wing=wing)
    else:
        touched, context = _neighbourhood(conn, wing, changed | renamed)
        plan = {raw: v for raw, v in plan_wing(conn, wing, context).items() if raw in touched}
        before = record_resolutions(conn, wing, plan, recorded_now(), scope=touched)
        retargeted = {raw for raw in touched if before.get(raw) != (plan[raw][0] if raw in plan else None)}
        mapping = {raw: plan[raw][0] for raw in plan if plan[raw][0] is not None}
        moved = repoint(conn, wing, raws=retargeted | changed | renamed | note_raws_into(conn, retargeted))
        refresh_aliases(conn, mapping, {raw: plan[raw][1] for raw in mapping}, JOINING_RULES,
                        old_targets=set(before.values()))
        wing_readings.retype(conn, changed)
    groups = set()
    for _fact_id, old_subject, predicate, new_subject, _new_object in moved:
        if predicate != "mentioned_with":
            groups |= {(old_subject, predicate), (new_subject, predicate)}
    if groups:
        apply_timelines(conn, groups, registry)
    wing_readings.clear_changed(conn, wing)
    clear_changed_notes(conn, wing)
    return len(moved)


def resolve_every_wing(conn, registry: dict | None = None) -> int:
    """:func:`resolve_wing` for every wing, whole, inside the caller's transaction (a
    user decision applies everywhere). Returns how many facts moved."""
    return sum(resolve_wing(conn, wing, registry, full=True) for wing in wings_of(conn))


@dataclass(frozen=True)
class Decision:
    """A user's merge or split, as recorded (``reverted_at`` set once undone)."""

    id: int
    action: str
    name: str
    into: str
    created_at: str
    reverted_at: str | None


def merge(conn, name: str, into: str, registry: dict | None = None) -> Decision:
    """Record that ``name`` is the same entity as ``into`` (everywhere) and re-resolve.

    Reverses an earlier split of the pair. Raises :class:`UsageError` for an unknown name
    or a merge of a name into itself.
    """
    a, b = entity_named(conn, name), entity_named(conn, into)
    if a["key"] == b["key"]:
        raise UsageError(f"{name!r} and {into!r} are already one entity ({a['name']})")
    now = recorded_now()
    with store.transaction(conn):
        decision_id = record_decision(conn, "merge", a, b, now)
        resolve_every_wing(conn, registry)
    return Decision(decision_id, "merge", a["name"], b["name"], now, None)


def split(conn, name: str, registry: dict | None = None) -> list[Decision]:
    """Undo what ``name`` was resolved into (a user merge, a short form, a legal suffix or
    a project name) and forbid the automatic rules to redo it; re-resolve. Raises :class:`UsageError` when ``name`` is
    not resolved into another entity anywhere."""
    a = entity_named(conn, name)
    targets = resolved_targets(conn, a["id"])
    if not targets:
        raise UsageError(
            f"{a['name']!r} is not merged into another entity",
            hint=f"`palace entity aliases {a['name']!r}` shows how it resolves",
        )
    now = recorded_now()
    out = []
    with store.transaction(conn):
        for target in targets:
            decision_id = record_decision(conn, "split", a, target, now)
            out.append(Decision(decision_id, "split", a["name"], target["name"], now, None))
        resolve_every_wing(conn, registry)
    return out


@dataclass(frozen=True)
class AliasEntry:
    """One alias of an entity and where it comes from (``name``, ``front matter``,
    ``e-mail``, ``short form``, ``user merge``, ``legal suffix``, ``project name``)."""

    alias: str
    source: str


@dataclass(frozen=True)
class AliasReport:
    """``palace entity aliases NAME``: the entity's aliases, the names resolved into it
    (``resolved_from``), how the name itself resolves (``resolved_into``), and the user's
    decisions about it."""

    name: str
    type: str
    aliases: tuple[AliasEntry, ...]
    resolved_from: tuple[Resolution, ...]
    resolved_into: tuple[Resolution, ...]
    decisions: tuple[Decision, ...]

    def to_json(self) -> str:
        """One JSON object with the field names documented in the README. (:func:`palace.results.to_json`)."""
        from palace.results import to_json

        return to_json(self)


def aliases(conn, name: str) -> AliasReport:
    """Build the :class:`AliasReport` of ``name``. Raises :class:`UsageError` if unknown."""
    entity = entity_named(conn, name)
    entries = tuple(AliasEntry(alias, source) for alias, source in alias_entries(conn, entity["id"]))

    def resolutions(into: bool) -> tuple[Resolution, ...]:
        return tuple(Resolution(*r) for r in resolutions_of(conn, entity["id"], into=into))

    decisions = tuple(Decision(*r) for r in entity_decisions_about(conn, entity["key"]))
    return AliasReport(entity["name"], entity_type(conn, entity["id"]), entries, resolutions(True),
                       resolutions(False), decisions)
