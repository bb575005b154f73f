"""palace.db: the SQLite store that is the source of truth.

Opens the database with WAL, ``busy_timeout`` and foreign keys on, and applies named
migrations in order (the applied names are kept in ``schema_migrations``). Chroma holds
only what can be rebuilt from these tables.

Tables (migrations ``0001_initial`` to ``0013_forgotten_content``, in :data:`MIGRATIONS`):

- ``meta(key, value)``: palace-wide settings (embedding model name and dimension).
- ``files``: one row per path seen under a wing, with status ``indexed`` / ``skipped`` /
  ``failed`` and the reason, content hash, encoding, title, document date and its source.
- ``drawers``: chunks of indexed files (char and line span, heading path, verbatim text,
  ``text_hash``, ``embed_hash`` of the text given to the embedder, date bounds, whether
  the vector is in Chroma).
- ``drawers_fts``: FTS5 over title, heading path, text and the file's path in its wing
  (BM25; the tokenizer splits ``sig-node/3077-contextual-logging/README.md`` into its
  words), keyed by drawer rowid.
- ``entities`` (one per name key; ``type`` is the majority NER label of its mentions),
  ``aliases``, ``mentions``, ``date_mentions``, ``facts``: the graph. Mentions and facts
  keep the entity as read (``raw_entity_id``, ``raw_subject_id``, ``raw_object_id``) beside
  the resolved one, so a resolution can be undone. Mentions and date mentions go with
  their drawer; facts never do: when their drawer leaves, they get ``invalidated_at`` and
  a reason, and history keeps them. A fact's ``status`` (``live``, ``candidate``,
  ``rejected``, ``retracted``, ``invalidated``, ``planned``) and the ``decision_id`` of the
  fact decision that put it there are written only through :mod:`palace.store.fact_states`.
- ``entity_decisions``: the user's merges and splits (``palace entity merge/split``),
  replayed on every re-mine; ``entity_resolutions``: how each entity as read resolves in a
  wing (into which entity, by which rule, with what evidence; no target = ambiguous).
- ``mine_runs``: one row per finished mining run of a wing (recorded start and end, files
  indexed and deleted), so "what changed" without a date can mean "since the previous
  mining" in recorded time.
- ``lowercase_hits``, ``lowercase_unscanned``, ``lowercase_names``: where each drawer
  writes a known name in lower case (linked or not), which drawers are not searched yet
  (a trigger adds each new drawer) and for which names, so that linking lower-case names
  costs what changed (:mod:`palace.graph.resolution`).
- ``wing_readings``, ``readings_changed``, ``entity_bases``: how often each name is read
  in each wing (by label, by NER or lower-case linking), kept by triggers through every
  write; the names whose readings or facts changed since their wing was last resolved;
  each name's family bases. Resolution plans only what changed (:mod:`palace.store.readings`).
- ``meta`` also keeps, by triggers, the number of drawers (``drawers``) and the longest
  span of a drawer's own date (``drawer_span_days``), for BM25 and date windows.
- ``fact_decisions``: the user's added, retracted and confirmed facts (``palace fact``),
  each with the fact's subject, predicate, object and valid time as keys, so that a
  re-mine replays them on the facts it reads again; reversible (``reverted_at``).
- ``forget_log``, ``forgotten_paths``: what ``palace forget`` removed (kind, a SHA-256 of
  the target, counts, when: no forgotten content) and the hashes of the ``wing/path``
  a re-mine skips, with the hashes of the folders and the wing holding it (``scopes``,
  so that ``--allow`` can lift a folder or a wing) and the note's ``content_hash`` (an
  export carries the list; an import forgets a note found by either hash).
- ``vector_tombstones``: drawer ids whose vectors must leave Chroma (written in the same
  transaction that deletes the drawers, cleared once Chroma has dropped them), so a kill
  between the two stores never leaves a vector that search would return.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

from palace.errors import SchemaError, UsageError

DB_FILENAME = "palace.db"

#: The full-text rows of every drawer (rowid, title, heading path, text, path), as
#: :func:`palace.store.drawers.insert_drawer` writes them one by one: what a rebuild inserts.
FTS_ROWS = (
    "SELECT d.rowid, f.title, (SELECT group_concat(value, ' ') FROM json_each(d.heading_path)), d.text, f.path"
    " FROM drawers d JOIN files f ON f.id = d.file_id"
)

MIGRATIONS: list[tuple[str, str]] = [
    (
        "0001_initial",
        """
        CREATE TABLE meta (
            key   TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        CREATE TABLE files (
            id              INTEGER PRIMARY KEY,
            wing            TEXT NOT NULL,
            root            TEXT NOT NULL,
            path            TEXT NOT NULL,
            room            TEXT NOT NULL,
            size            INTEGER,
            mtime           REAL,
            content_hash    TEXT,
            status          TEXT NOT NULL CHECK (status IN ('indexed', 'skipped', 'failed')),
            reason          TEXT,
            encoding        TEXT,
            title           TEXT,
            doc_date        TEXT,
            doc_date_source TEXT,
            tags            TEXT,
            aliases         TEXT,
            words           INTEGER NOT NULL DEFAULT 0,
            mined_at        TEXT NOT NULL,
            UNIQUE (wing, path)
        );
        CREATE TABLE drawers (
            rowid         INTEGER PRIMARY KEY,
            id            TEXT NOT NULL UNIQUE,
            file_id       INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            ordinal       INTEGER NOT NULL,
            char_start    INTEGER NOT NULL,
            char_end      INTEGER NOT NULL,
            line_start    INTEGER NOT NULL,
            line_end      INTEGER NOT NULL,
            heading_path  TEXT NOT NULL,
            text          TEXT NOT NULL,
            text_hash     TEXT NOT NULL,
            embed_hash    TEXT NOT NULL,
            date_start    TEXT,
            date_end      TEXT,
            date_granularity TEXT,
            embedded      INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX drawers_file ON drawers(file_id, ordinal);
        CREATE INDEX drawers_embedded ON drawers(embedded) WHERE embedded = 0;
        CREATE VIRTUAL TABLE drawers_fts USING fts5(
            title, heading, text, tokenize = 'porter unicode61 remove_diacritics 2'
        );
        CREATE TABLE entities (
            id      INTEGER PRIMARY KEY,
            name    TEXT NOT NULL,
            type    TEXT NOT NULL,
            key     TEXT NOT NULL,
            UNIQUE (key, type)
        );
        CREATE TABLE aliases (
            entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
            alias     TEXT NOT NULL,
            key       TEXT NOT NULL,
            source    TEXT NOT NULL,
            UNIQUE (entity_id, key)
        );
        CREATE INDEX aliases_key ON aliases(key);
        CREATE TABLE mentions (
            id          INTEGER PRIMARY KEY,
            entity_id   INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
            drawer_id   TEXT NOT NULL REFERENCES drawers(id) ON DELETE CASCADE,
            char_start  INTEGER NOT NULL,
            char_end    INTEGER NOT NULL,
            surface     TEXT NOT NULL,
            extractor   TEXT NOT NULL,
            confidence  REAL NOT NULL
        );
        CREATE INDEX mentions_entity ON mentions(entity_id);
        CREATE INDEX mentions_drawer ON mentions(drawer_id);
        CREATE TABLE date_mentions (
            id          INTEGER PRIMARY KEY,
            drawer_id   TEXT NOT NULL REFERENCES drawers(id) ON DELETE CASCADE,
            char_start  INTEGER NOT NULL,
            char_end    INTEGER NOT NULL,
            surface     TEXT NOT NULL,
            start       TEXT NOT NULL,
            end         TEXT NOT NULL,
            granularity TEXT NOT NULL,
            extractor   TEXT NOT NULL
        );
        CREATE INDEX date_mentions_drawer ON date_mentions(drawer_id);
        CREATE INDEX date_mentions_span ON date_mentions(start, end);
        CREATE TABLE facts (
            id                  INTEGER PRIMARY KEY,
            subject_id          INTEGER NOT NULL REFERENCES entities(id),
            predicate           TEXT NOT NULL,
            object_id           INTEGER REFERENCES entities(id),
            object_value        TEXT,
            valid_from          TEXT,
            valid_to            TEXT,
            valid_granularity   TEXT,
            recorded_at         TEXT NOT NULL,
            invalidated_at      TEXT,
            invalidation_reason TEXT,
            superseded_by       INTEGER REFERENCES facts(id),
            drawer_id           TEXT NOT NULL,
            wing                TEXT NOT NULL,
            path                TEXT NOT NULL,
            char_start          INTEGER NOT NULL,
            char_end            INTEGER NOT NULL,
            sentence            TEXT NOT NULL,
            extractor           TEXT NOT NULL,
            confidence          REAL NOT NULL,
            evidence            TEXT NOT NULL DEFAULT 'stated'
        );
        CREATE INDEX facts_subject ON facts(subject_id, predicate);
        CREATE INDEX facts_object ON facts(object_id);
        CREATE INDEX facts_drawer ON facts(drawer_id);
        CREATE TABLE vector_tombstones (
            drawer_id TEXT PRIMARY KEY
        );
        """,
    ),
    (
        # one entity per name key (NER types of one name vary: the type becomes the
        # majority label of its mentions; a leading "the" is no longer part of the key,
        # so "the Leadership Council" is "Leadership Council"); the entity as read is kept beside the resolved
        # one, so that resolutions (short forms, user merges) can be undone; decisions
        # and resolutions are recorded for audit
        "0002_entity_resolution",
        """
        ALTER TABLE mentions ADD COLUMN label TEXT;
        ALTER TABLE mentions ADD COLUMN raw_entity_id INTEGER;
        UPDATE mentions SET label = (SELECT type FROM entities e WHERE e.id = mentions.entity_id),
            raw_entity_id = entity_id;
        ALTER TABLE facts ADD COLUMN raw_subject_id INTEGER;
        ALTER TABLE facts ADD COLUMN raw_object_id INTEGER;
        UPDATE facts SET raw_subject_id = subject_id, raw_object_id = object_id;
        CREATE TEMP TABLE entity_map AS
            SELECT e.id AS old, (SELECT min(k.id) FROM entities k WHERE
                (CASE WHEN k.key LIKE 'the %' THEN substr(k.key, 5) ELSE k.key END)
                = (CASE WHEN e.key LIKE 'the %' THEN substr(e.key, 5) ELSE e.key END)) AS new FROM entities e;
        DELETE FROM entity_map WHERE old = new;
        UPDATE mentions SET entity_id = (SELECT new FROM entity_map WHERE old = mentions.entity_id),
            raw_entity_id = (SELECT new FROM entity_map WHERE old = mentions.entity_id)
            WHERE entity_id IN (SELECT old FROM entity_map);
        UPDATE facts SET subject_id = (SELECT new FROM entity_map WHERE old = facts.subject_id),
            raw_subject_id = (SELECT new FROM entity_map WHERE old = facts.subject_id)
            WHERE subject_id IN (SELECT old FROM entity_map);
        UPDATE facts SET object_id = (SELECT new FROM entity_map WHERE old = facts.object_id),
            raw_object_id = (SELECT new FROM entity_map WHERE old = facts.object_id)
            WHERE object_id IN (SELECT old FROM entity_map);
        INSERT OR IGNORE INTO aliases (entity_id, alias, key, source)
            SELECT m.new, a.alias, a.key, a.source FROM aliases a JOIN entity_map m ON m.old = a.entity_id;
        DELETE FROM aliases WHERE entity_id IN (SELECT old FROM entity_map);
        DELETE FROM entities WHERE id IN (SELECT old FROM entity_map);
        DROP TABLE entity_map;
        UPDATE entities SET key = substr(key, 5) WHERE key LIKE 'the %';
        UPDATE OR IGNORE aliases SET key = substr(key, 5) WHERE key LIKE 'the %';
        DELETE FROM aliases WHERE key LIKE 'the %';
        UPDATE entities SET type = coalesce((SELECT label FROM mentions m WHERE m.entity_id = entities.id
            GROUP BY label ORDER BY count(*) DESC, label != 'PERSON', label LIMIT 1), type);
        CREATE UNIQUE INDEX entities_one_per_key ON entities(key);
        CREATE INDEX mentions_raw ON mentions(raw_entity_id);
        CREATE INDEX facts_wing ON facts(wing);
        CREATE TABLE entity_decisions (
            id          INTEGER PRIMARY KEY,
            action      TEXT NOT NULL CHECK (action IN ('merge', 'split')),
            name        TEXT NOT NULL,
            name_key    TEXT NOT NULL,
            into_name   TEXT NOT NULL,
            into_key    TEXT NOT NULL,
            created_at  TEXT NOT NULL,
            reverted_at TEXT
        );
        CREATE TABLE entity_resolutions (
            raw_entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
            wing          TEXT NOT NULL,
            entity_id     INTEGER REFERENCES entities(id) ON DELETE CASCADE,
            rule          TEXT NOT NULL,
            evidence      TEXT NOT NULL,
            created_at    TEXT NOT NULL,
            PRIMARY KEY (raw_entity_id, wing)
        );
        """,
    ),
    (
        # the history of mining runs: "what changed" without a window means since the
        # previous mining, in recorded time (a killed run leaves no row; its files are
        # counted by the next run that finishes)
        "0003_mine_runs",
        """
        CREATE TABLE mine_runs (
            id          INTEGER PRIMARY KEY,
            wing        TEXT NOT NULL,
            started_at  TEXT NOT NULL,
            finished_at TEXT NOT NULL,
            indexed     INTEGER NOT NULL,
            deleted     INTEGER NOT NULL
        );
        CREATE INDEX mine_runs_finished ON mine_runs(finished_at);
        """,
    ),
    (
        # a name key no longer ends with the period of a legal or generational
        # abbreviation ("acme corp." is "acme corp": spaCy keeps the period at the end of
        # a sentence); an entity whose key meets an existing one joins it, mentions, facts
        # and aliases included (resolutions are recomputed by the next mine)
        "0004_abbreviation_keys",
        """
        CREATE TEMP TABLE dotted (ending TEXT NOT NULL);
        INSERT INTO dotted VALUES (' inc.'), (' corp.'), (' corporation.'), (' ltd.'), (' limited.'), (' llc.'),
            (' gmbh.'), (' plc.'), (' s.a.'), (' sa.'), (' ag.'), (' co.'), (' jr.'), (' sr.');
        CREATE TEMP TABLE key_fix AS
            SELECT id AS old, substr(key, 1, length(key) - 1) AS new_key FROM entities
            WHERE EXISTS (SELECT 1 FROM dotted WHERE entities.key LIKE '%' || ending);
        CREATE TEMP TABLE entity_map AS
            SELECT f.old, e.id AS new FROM key_fix f JOIN entities e ON e.key = f.new_key;
        UPDATE mentions SET entity_id = (SELECT new FROM entity_map WHERE old = mentions.entity_id)
            WHERE entity_id IN (SELECT old FROM entity_map);
        UPDATE mentions SET raw_entity_id = (SELECT new FROM entity_map WHERE old = mentions.raw_entity_id)
            WHERE raw_entity_id IN (SELECT old FROM entity_map);
        UPDATE facts SET subject_id = (SELECT new FROM entity_map WHERE old = facts.subject_id)
            WHERE subject_id IN (SELECT old FROM entity_map);
        UPDATE facts SET raw_subject_id = (SELECT new FROM entity_map WHERE old = facts.raw_subject_id)
            WHERE raw_subject_id IN (SELECT old FROM entity_map);
        UPDATE facts SET object_id = (SELECT new FROM entity_map WHERE old = facts.object_id)
            WHERE object_id IN (SELECT old FROM entity_map);
        UPDATE facts SET raw_object_id = (SELECT new FROM entity_map WHERE old = facts.raw_object_id)
            WHERE raw_object_id IN (SELECT old FROM entity_map);
        INSERT OR IGNORE INTO aliases (entity_id, alias, key, source)
            SELECT m.new, a.alias, a.key, a.source FROM aliases a JOIN entity_map m ON m.old = a.entity_id;
        DELETE FROM entity_resolutions WHERE raw_entity_id IN (SELECT old FROM entity_map)
            OR entity_id IN (SELECT old FROM entity_map);
        DELETE FROM entities WHERE id IN (SELECT old FROM entity_map);
        UPDATE entities SET key = (SELECT new_key FROM key_fix WHERE old = entities.id)
            WHERE id IN (SELECT old FROM key_fix);
        UPDATE OR IGNORE aliases SET key = substr(key, 1, length(key) - 1)
            WHERE EXISTS (SELECT 1 FROM dotted WHERE aliases.key LIKE '%' || ending);
        DELETE FROM aliases WHERE EXISTS (SELECT 1 FROM dotted WHERE aliases.key LIKE '%' || ending);
        UPDATE entity_decisions SET name_key = substr(name_key, 1, length(name_key) - 1)
            WHERE EXISTS (SELECT 1 FROM dotted WHERE entity_decisions.name_key LIKE '%' || ending);
        UPDATE entity_decisions SET into_key = substr(into_key, 1, length(into_key) - 1)
            WHERE EXISTS (SELECT 1 FROM dotted WHERE entity_decisions.into_key LIKE '%' || ending);
        DROP TABLE entity_map;
        DROP TABLE key_fix;
        DROP TABLE dotted;
        """,
    ),
    (
        # facts whose text bounds or ends them: "from 1999 to 2003" (stated_to is the
        # end the text gives, beside valid_to, which supersession may bring earlier),
        # "stepped down as lead" (no valid_from: the start is unknown); the note a fact
        # came from may carry no date of its own
        "0005_stated_ends",
        """
        ALTER TABLE facts ADD COLUMN stated_to TEXT;
        CREATE INDEX facts_predicate ON facts(predicate, valid_to);
        """,
    ),
    (
        # folder and file names are searched with the drawer ("sig-node", a KEP number
        # in its folder's name); FTS5 cannot add a column, so the index is rebuilt
        "0006_path_search",
        """
        CREATE VIRTUAL TABLE drawers_fts_paths USING fts5(
            title, heading, text, path, tokenize = 'porter unicode61 remove_diacritics 2'
        );
        INSERT INTO drawers_fts_paths (rowid, title, heading, text, path) """ + FTS_ROWS + """;
        DROP TABLE drawers_fts;
        ALTER TABLE drawers_fts_paths RENAME TO drawers_fts;
        """,
    ),
    (
        # lower-case name linking kept up to date note by note: the matches of the wing's
        # known names in each drawer (whether linked or not), which drawers were scanned,
        # and the names the scan covered; a watch step scans only what changed
        "0007_lowercase_index",
        """
        CREATE TABLE lowercase_hits (
            drawer_id  TEXT NOT NULL REFERENCES drawers(id) ON DELETE CASCADE,
            key        TEXT NOT NULL,
            char_start INTEGER NOT NULL,
            char_end   INTEGER NOT NULL,
            surface    TEXT NOT NULL
        );
        CREATE INDEX lowercase_hits_drawer ON lowercase_hits(drawer_id);
        CREATE TABLE lowercase_scanned (
            drawer_id TEXT PRIMARY KEY REFERENCES drawers(id) ON DELETE CASCADE
        );
        CREATE TABLE lowercase_names (
            wing TEXT NOT NULL,
            key  TEXT NOT NULL,
            PRIMARY KEY (wing, key)
        );
        """,
    ),
    (
        # facts a person states, retracts or confirms (palace fact add|retract|confirm),
        # and candidates accepted or rejected (palace review), kept apart from the facts
        # so that a re-mine replays them, and reversible; an agent's proposal is pending
        "0008_fact_decisions",
        """
        CREATE TABLE fact_decisions (
            id                INTEGER PRIMARY KEY,
            action            TEXT NOT NULL CHECK (action IN ('add', 'retract', 'confirm', 'accept', 'reject')),
            by                TEXT NOT NULL DEFAULT 'user',
            subject           TEXT NOT NULL,
            subject_key       TEXT NOT NULL,
            predicate         TEXT NOT NULL,
            object            TEXT NOT NULL,
            object_key        TEXT NOT NULL,
            valid_from        TEXT,
            valid_to          TEXT,
            note              TEXT NOT NULL DEFAULT '',
            fact_id           INTEGER,
            previous_evidence TEXT,
            pending           INTEGER NOT NULL DEFAULT 0,
            created_at        TEXT NOT NULL,
            reverted_at       TEXT
        );
        CREATE INDEX facts_evidence ON facts(evidence) WHERE evidence NOT IN ('stated', 'inferred');
        """,
    ),
    (
        # palace forget: what was forgotten, by a hash only (the audit holds no forgotten
        # content), and the paths a re-mine must not read again
        "0009_forget",
        """
        CREATE TABLE forget_log (
            id          INTEGER PRIMARY KEY,
            kind        TEXT NOT NULL CHECK (kind IN ('path', 'wing', 'entity')),
            target_hash TEXT NOT NULL,
            counts      TEXT NOT NULL,
            created_at  TEXT NOT NULL
        );
        CREATE TABLE forgotten_paths (
            hash        TEXT PRIMARY KEY,
            scopes      TEXT NOT NULL DEFAULT '',
            created_at  TEXT NOT NULL
        );
        """,
    ),
    (
        # resolution in proportion to what changed: how often each name is read in each
        # wing, by label and by NER or lower-case linking, kept by triggers through every
        # write (a mention, a drawer, a note, a whole wing deleted), and the names whose
        # readings or facts changed since the wing was last resolved; each name's family
        # bases ("acme" of "Acme Inc.", "falcon" of "Project Falcon") for lookups; the
        # drawers lower-case linking has not searched yet. A name's row of
        # wing_readings is the aggregate of its mentions, never edited by hand. In a
        # cascade SQLite deletes the parent row before its children's triggers run, so
        # each level subtracts its own subtree once: the note (before its deletion), a
        # drawer whose note still exists, a mention whose drawer still exists. No write
        # of palace changes a mention's name, label or drawer, or a note's wing, in place
        # (a migration that would must count wing_readings again).
        "0010_incremental_resolution",
        """
        CREATE TABLE wing_readings (
            wing      TEXT NOT NULL,
            entity_id INTEGER NOT NULL,
            label     TEXT NOT NULL,
            ner       INTEGER NOT NULL,
            n         INTEGER NOT NULL,
            PRIMARY KEY (wing, entity_id, label, ner)
        ) WITHOUT ROWID;
        CREATE INDEX wing_readings_entity ON wing_readings(entity_id);
        INSERT INTO wing_readings (wing, entity_id, label, ner, n)
            SELECT f.wing, m.raw_entity_id, coalesce(m.label, ''), m.extractor != 'palace.lowercase.v1', count(*)
            FROM mentions m JOIN drawers d ON d.id = m.drawer_id JOIN files f ON f.id = d.file_id
            WHERE m.raw_entity_id IS NOT NULL GROUP BY 1, 2, 3, 4;
        CREATE TABLE readings_changed (
            wing      TEXT NOT NULL,
            entity_id INTEGER NOT NULL,
            PRIMARY KEY (wing, entity_id)
        ) WITHOUT ROWID;
        INSERT INTO readings_changed SELECT DISTINCT wing, entity_id FROM wing_readings;
        CREATE TABLE entity_bases (
            entity_id    INTEGER PRIMARY KEY REFERENCES entities(id) ON DELETE CASCADE,
            legal_base   TEXT,
            project_base TEXT
        );
        CREATE INDEX entity_bases_legal ON entity_bases(legal_base) WHERE legal_base IS NOT NULL;
        CREATE INDEX entity_bases_project ON entity_bases(project_base) WHERE project_base IS NOT NULL;
        CREATE INDEX facts_raw_subject ON facts(raw_subject_id);
        CREATE INDEX facts_raw_object ON facts(raw_object_id) WHERE raw_object_id IS NOT NULL;
        CREATE INDEX lowercase_hits_key ON lowercase_hits(key);
        CREATE TABLE lowercase_unscanned (
            drawer_id TEXT PRIMARY KEY REFERENCES drawers(id) ON DELETE CASCADE
        );
        INSERT INTO lowercase_unscanned SELECT d.id FROM drawers d
            WHERE NOT EXISTS (SELECT 1 FROM lowercase_scanned s WHERE s.drawer_id = d.id);
        DROP TABLE lowercase_scanned;
        CREATE TRIGGER drawers_unscanned AFTER INSERT ON drawers BEGIN
            INSERT OR IGNORE INTO lowercase_unscanned VALUES (NEW.id);
        END;
        CREATE TRIGGER mentions_read AFTER INSERT ON mentions WHEN NEW.raw_entity_id IS NOT NULL BEGIN
            INSERT INTO wing_readings (wing, entity_id, label, ner, n)
                SELECT f.wing, NEW.raw_entity_id, coalesce(NEW.label, ''), NEW.extractor != 'palace.lowercase.v1', 1
                FROM drawers d JOIN files f ON f.id = d.file_id WHERE d.id = NEW.drawer_id
                ON CONFLICT DO UPDATE SET n = n + 1;
            INSERT OR IGNORE INTO readings_changed SELECT f.wing, NEW.raw_entity_id
                FROM drawers d JOIN files f ON f.id = d.file_id WHERE d.id = NEW.drawer_id;
        END;
        CREATE TRIGGER mentions_unread AFTER DELETE ON mentions WHEN OLD.raw_entity_id IS NOT NULL BEGIN
            INSERT OR IGNORE INTO readings_changed SELECT f.wing, OLD.raw_entity_id
                FROM drawers d JOIN files f ON f.id = d.file_id WHERE d.id = OLD.drawer_id;
            UPDATE wing_readings SET n = n - 1 WHERE entity_id = OLD.raw_entity_id
                AND label = coalesce(OLD.label, '') AND ner = (OLD.extractor != 'palace.lowercase.v1')
                AND wing = (SELECT f.wing FROM drawers d JOIN files f ON f.id = d.file_id WHERE d.id = OLD.drawer_id);
            DELETE FROM wing_readings WHERE entity_id = OLD.raw_entity_id AND n <= 0;
        END;
        CREATE TRIGGER drawers_unread BEFORE DELETE ON drawers BEGIN
            INSERT OR IGNORE INTO readings_changed SELECT DISTINCT f.wing, m.raw_entity_id
                FROM mentions m JOIN files f ON f.id = OLD.file_id WHERE m.drawer_id = OLD.id AND m.raw_entity_id IS NOT NULL;
            INSERT OR IGNORE INTO readings_changed SELECT DISTINCT f.wing, e.id FROM lowercase_hits h
                JOIN entities e ON e.key = h.key JOIN files f ON f.id = OLD.file_id WHERE h.drawer_id = OLD.id;
            UPDATE wing_readings SET n = n - (SELECT count(*) FROM mentions m WHERE m.drawer_id = OLD.id
                    AND m.raw_entity_id = wing_readings.entity_id AND coalesce(m.label, '') = wing_readings.label
                    AND (m.extractor != 'palace.lowercase.v1') = wing_readings.ner)
                WHERE wing = (SELECT wing FROM files WHERE id = OLD.file_id)
                AND entity_id IN (SELECT raw_entity_id FROM mentions WHERE drawer_id = OLD.id);
            DELETE FROM wing_readings WHERE n <= 0
                AND entity_id IN (SELECT raw_entity_id FROM mentions WHERE drawer_id = OLD.id);
        END;
        CREATE TRIGGER files_unread BEFORE DELETE ON files BEGIN
            INSERT OR IGNORE INTO readings_changed SELECT DISTINCT OLD.wing, m.raw_entity_id
                FROM drawers d JOIN mentions m ON m.drawer_id = d.id WHERE d.file_id = OLD.id AND m.raw_entity_id IS NOT NULL;
            INSERT OR IGNORE INTO readings_changed SELECT DISTINCT OLD.wing, e.id FROM drawers d
                JOIN lowercase_hits h ON h.drawer_id = d.id JOIN entities e ON e.key = h.key WHERE d.file_id = OLD.id;
            UPDATE wing_readings SET n = n - (SELECT count(*) FROM drawers d JOIN mentions m ON m.drawer_id = d.id
                    WHERE d.file_id = OLD.id AND m.raw_entity_id = wing_readings.entity_id
                    AND coalesce(m.label, '') = wing_readings.label
                    AND (m.extractor != 'palace.lowercase.v1') = wing_readings.ner)
                WHERE wing = OLD.wing AND entity_id IN
                    (SELECT m.raw_entity_id FROM drawers d JOIN mentions m ON m.drawer_id = d.id WHERE d.file_id = OLD.id);
            DELETE FROM wing_readings WHERE wing = OLD.wing AND n <= 0 AND entity_id IN
                (SELECT m.raw_entity_id FROM drawers d JOIN mentions m ON m.drawer_id = d.id WHERE d.file_id = OLD.id);
        END;
        CREATE TRIGGER facts_read AFTER INSERT ON facts BEGIN
            INSERT OR IGNORE INTO readings_changed SELECT NEW.wing, NEW.raw_subject_id WHERE NEW.raw_subject_id IS NOT NULL;
            INSERT OR IGNORE INTO readings_changed SELECT NEW.wing, NEW.raw_object_id WHERE NEW.raw_object_id IS NOT NULL;
        END;
        """,
    ),
    (
        # how many drawers the palace holds, kept by triggers: a question's BM25 weighs its
        # terms against it without counting 100,000 rows (palace.ask.retrievers.bm25); the
        # longest span of a drawer's own date (days, never lowered), so that a date
        # window finds its drawers by a bounded range of an index on their start
        # (palace.ask.retrievers.in_window); a note's facts by its path (a one-note edit
        # reads its front-matter facts without a scan of the wing's)
        "0011_drawer_count",
        """
        INSERT OR REPLACE INTO meta VALUES ('drawers', (SELECT count(*) FROM drawers));
        INSERT OR REPLACE INTO meta VALUES ('drawer_span_days',
            (SELECT coalesce(max(julianday(date_end) - julianday(date_start)), 0) FROM drawers));
        CREATE INDEX drawers_date ON drawers(date_start);
        CREATE INDEX facts_path ON facts(wing, path);
        CREATE TRIGGER drawers_counted AFTER INSERT ON drawers BEGIN
            UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'drawers';
            UPDATE meta SET value = max(CAST(value AS REAL), julianday(NEW.date_end) - julianday(NEW.date_start))
                WHERE key = 'drawer_span_days' AND NEW.date_end IS NOT NULL AND NEW.date_start IS NOT NULL;
        END;
        CREATE TRIGGER drawers_uncounted AFTER DELETE ON drawers BEGIN
            UPDATE meta SET value = CAST(value AS INTEGER) - 1 WHERE key = 'drawers';
        END;
        """,
    ),
    (
        # a fact's state as data (palace.store.fact_states): live, a candidate awaiting
        # review, rejected, retracted, invalidated (its text left the notes, or the user
        # withdrew the fact they added) or planned (a later issue: a future valid time,
        # never current early; nothing writes it yet), and the fact decision that put it
        # there (a retraction, a rejection, an acceptance; NULL for the state mining or
        # the fact's own statement gave it). Backfilled from the prose of
        # invalidation_reason, which stays what users read, and its "(decision #N)";
        # an accepted fact from the acceptance in force with its keys
        "0012_fact_status",
        """
        ALTER TABLE facts ADD COLUMN status TEXT NOT NULL DEFAULT 'live'
            CHECK (status IN ('live', 'candidate', 'rejected', 'retracted', 'invalidated', 'planned'));
        ALTER TABLE facts ADD COLUMN decision_id INTEGER;
        UPDATE facts SET status = CASE
                WHEN invalidation_reason = 'candidate awaiting review' THEN 'candidate'
                WHEN invalidation_reason GLOB 'rejected by the user*' THEN 'rejected'
                WHEN invalidation_reason GLOB 'retracted by the user*' THEN 'retracted'
                ELSE 'invalidated' END
            WHERE invalidated_at IS NOT NULL;
        UPDATE facts SET decision_id = CAST(substr(invalidation_reason,
                instr(invalidation_reason, '(decision #') + length('(decision #')) AS INTEGER)
            WHERE status IN ('rejected', 'retracted') AND instr(invalidation_reason, '(decision #') > 0;
        UPDATE facts SET decision_id = (SELECT max(d.id) FROM fact_decisions d JOIN entities s ON s.id = facts.subject_id
                LEFT JOIN entities o ON o.id = facts.object_id
                WHERE d.action = 'accept' AND d.reverted_at IS NULL AND d.pending = 0 AND d.subject_key = s.key
                AND d.predicate = facts.predicate AND d.object_key = coalesce(o.key, lower(trim(facts.object_value)))
                AND d.valid_from IS facts.valid_from AND (d.fact_id = facts.id OR facts.evidence = 'confirmed'))
            WHERE status = 'live' AND EXISTS (SELECT 1 FROM fact_decisions WHERE action = 'accept');
        CREATE INDEX facts_candidates ON facts(id) WHERE status = 'candidate';
        CREATE INDEX facts_decision ON facts(decision_id) WHERE decision_id IS NOT NULL;
        """,
    ),
    (
        # the forget list travels with an export: each forgotten note's content hash beside
        # the hash of its wing/path, so an import can forget a note mined again elsewhere
        "0013_forgotten_content",
        """
        ALTER TABLE forgotten_paths ADD COLUMN content_hash TEXT;
        """,
    ),
    (
        # names match with diacritics and case folded ("Beránek" = "Beranek") and a short
        # name resolves inside its own note first (issue 22, item 3): each name's match
        # key and the first and last words of a longer name, to find its short forms by
        # index; the resolutions made inside one note; the notes whose mentions changed
        # since their wing was last resolved (kept by the triggers). An older palace is
        # resolved again, whole, by the next `palace mine` or `palace doctor --repair`
        # (every name is marked changed and every wing pending): spelling variants it
        # stored as two entities are joined then, the other written as an alias
        "0014_name_matching",
        """
        DELETE FROM entity_bases;
        ALTER TABLE entity_bases ADD COLUMN folded TEXT;
        ALTER TABLE entity_bases ADD COLUMN first_word TEXT;
        ALTER TABLE entity_bases ADD COLUMN last_word TEXT;
        CREATE INDEX entity_bases_folded ON entity_bases(folded);
        CREATE INDEX entity_bases_first ON entity_bases(first_word) WHERE first_word IS NOT NULL;
        CREATE INDEX entity_bases_last ON entity_bases(last_word) WHERE last_word IS NOT NULL;
        CREATE TABLE note_resolutions (
            raw_entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
            file_id       INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            entity_id     INTEGER REFERENCES entities(id) ON DELETE CASCADE,
            rule          TEXT NOT NULL,
            evidence      TEXT NOT NULL,
            PRIMARY KEY (raw_entity_id, file_id)
        ) WITHOUT ROWID;
        CREATE INDEX note_resolutions_file ON note_resolutions(file_id);
        CREATE INDEX note_resolutions_target ON note_resolutions(entity_id) WHERE entity_id IS NOT NULL;
        CREATE TABLE notes_changed (file_id INTEGER PRIMARY KEY);
        CREATE TRIGGER mentions_note_read AFTER INSERT ON mentions
            WHEN NEW.raw_entity_id IS NOT NULL AND NEW.extractor != 'palace.lowercase.v1' BEGIN
            INSERT OR IGNORE INTO notes_changed SELECT file_id FROM drawers WHERE id = NEW.drawer_id;
        END;
        CREATE TRIGGER drawers_note_unread BEFORE DELETE ON drawers BEGIN
            INSERT OR IGNORE INTO notes_changed VALUES (OLD.file_id);
        END;
        INSERT INTO notes_changed SELECT id FROM files;
        INSERT OR IGNORE INTO readings_changed SELECT DISTINCT wing, entity_id FROM wing_readings;
        INSERT OR IGNORE INTO meta (key, value)
            SELECT DISTINCT 'resolution_pending:' || wing, datetime('now') FROM wing_readings;
        """,
    ),
]


def connect(palace_dir: Path, *, setup: bool = True) -> sqlite3.Connection:
    """Open (creating if needed; the folder made owner-only, :func:`private`)
    ``palace_dir/palace.db`` and bring its schema up to date.

    Returns a connection in autocommit mode (``isolation_level=None``; callers open
    transactions with :func:`transaction`), WAL journal, ``busy_timeout`` 30 s, foreign
    keys on, rows as :class:`sqlite3.Row`.

    ``setup=False`` only opens a connection to a palace another connection has set up
    (no folder creation, permissions or migrations: a warm process's second thread).

    Raises :class:`SchemaError` when the database holds migrations this version does not
    know, or is not a database SQLite can open and write (damaged, truncated, read-only).
    """
    if setup:
        try:
            palace_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot create the palace at {palace_dir}: {exc.strerror or exc}",
                             hint="pass --palace DIR on a writable disk") from None
        private(palace_dir)
    path = palace_dir / DB_FILENAME
    try:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30.0)
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA busy_timeout = 30000")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        if setup:
            migrate(conn)
            private(palace_dir)  # palace.db now exists (a new one got the umask's mode)
    except sqlite3.DatabaseError as exc:  # not a database, truncated, read-only, locked for good
        raise SchemaError(
            f"{path} cannot be opened: {exc}",
            hint="if it is damaged, move it aside and mine again (the notes are the source); if it is"
                 " read-only, give write access",
        ) from None
    return conn


def private(palace_dir: Path) -> None:
    """Make the palace owner-only, whatever the umask: the folder (a symlink to it is
    followed) and every folder in it 0700, every file readable and writable by its owner
    alone (``0600``, or ``0700`` for one its owner may execute). Drawers, vectors and the
    watcher's log hold the notes' text and paths, and no other local user may read them.
    SQLite gives its ``-wal`` and ``-shm`` files the database file's mode, so they
    follow. Anything owned by someone else, and links inside, are left as they are."""
    try:
        uid = os.getuid()
    except AttributeError:  # no getuid (Windows): its ACLs are another matter
        return
    top = Path(palace_dir).resolve()
    for folder, _dirs, files in os.walk(top):
        for path, is_dir in ((folder, True), *((os.path.join(folder, f), False) for f in files)):
            try:
                st = os.lstat(path)
                if st.st_uid != uid or stat.S_ISLNK(st.st_mode) or not st.st_mode & 0o077:
                    continue
                os.chmod(path, 0o700 if is_dir else (st.st_mode & 0o700) | 0o600)
            except OSError:  # gone meanwhile, or not ours to change
                pass


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Apply the migrations not yet applied, each in its own transaction; return their names."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    applied = {row[0] for row in conn.execute("SELECT name FROM schema_migrations")}
    known = {name for name, _ in MIGRATIONS}
    unknown = applied - known
    if unknown:
        raise SchemaError(
            f"palace.db has migrations this palace does not know: {', '.join(sorted(unknown))}",
            hint="upgrade palace, or point --palace at another folder",
        )
    done = []
    for name, sql in MIGRATIONS:
        if name in applied:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            if conn.execute("SELECT 1 FROM schema_migrations WHERE name = ?", (name,)).fetchone():
                conn.execute("COMMIT")  # another process applied it while this one waited
                continue
            for statement in _statements(sql):
                conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_migrations VALUES (?, datetime('now'))", (name,)
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        done.append(name)
    return done


def _statements(sql: str) -> list[str]:
    """The statements of a migration script, a trigger's ``BEGIN … END`` kept whole
    (:func:`sqlite3.complete_statement` decides where one ends)."""
    out, pending = [], ""
    for piece in sql.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \n;"):
                out.append(pending.strip())
            pending = ""
    if pending.strip(" \n;"):
        out.append(pending.strip())
    return out


class transaction:
    """Context manager: ``BEGIN IMMEDIATE`` … ``COMMIT``, or ``ROLLBACK`` on any exception.

    A kill inside the block leaves the database as it was before it (SQLite's atomic commit).
    Inside another transaction of the same connection it is a savepoint: an exception
    undoes its own block alone, and its writes commit (or roll back) with the outer
    transaction — so a run of short writes (an import) is one transaction, all or nothing.
    """

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._savepoint: str | None = None

    def __enter__(self) -> sqlite3.Connection:
        if self.conn.in_transaction:
            self._savepoint = f"palace_{id(self):x}"
            self.conn.execute(f"SAVEPOINT {self._savepoint}")
        else:
            self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type, exc, tb) -> None:
        if self._savepoint is not None:
            if exc_type is not None:
                self.conn.execute(f"ROLLBACK TO {self._savepoint}")
            self.conn.execute(f"RELEASE {self._savepoint}")
            self._savepoint = None
        elif exc_type is None:
            self.conn.execute("COMMIT")
        else:
            self.conn.execute("ROLLBACK")


#: How long a background writer keeps retrying a write that finds the database locked.
LOCKED_RETRY_S = 600.0


def retry_locked(write, *, cancel=None, patience_s: float = LOCKED_RETRY_S):
    """Run ``write()`` (a short transaction), again after a pause while SQLite says the
    database is locked (another connection's long transaction outlasted the 30 s busy
    timeout, as a loaded machine's end-of-mine resolution can), for up to ``patience_s``
    seconds or until ``cancel`` (a ``threading.Event``) is set. Returns what ``write``
    returns; raises the last ``sqlite3.OperationalError`` when patience runs out."""
    import time

    deadline = time.monotonic() + patience_s
    pause = 0.1
    while True:
        try:
            return write()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline or (cancel is not None and cancel.is_set()):
                raise
        time.sleep(pause)
        pause = min(pause * 2, 5.0)


def get_meta(conn: sqlite3.Connection, key: str) -> str | None:
    """Return the value stored under ``key`` in ``meta``, or None."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    """Store ``value`` under ``key`` in ``meta`` (inside the caller's transaction, if any)."""
    conn.execute(
        "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, value),
    )
