"""The store layer: the palace's tables behind typed reads and writes.

- :mod:`palace.db.store`: the schema, its migrations, the connection, transactions,
  owner-only files.
- :mod:`palace.db.facts`: :class:`~palace.db.facts.FactFilter` → :class:`~palace.db.facts.FactView`
  (valid time, recorded time, what "holds on a day" means).
- :mod:`palace.db.entities`: names and aliases to entities.
- :mod:`palace.db.drawers`: files, drawers and their full-text rows.
- :mod:`palace.db.graph`: entities as read, aliases, mentions, date mentions, facts;
  invalidation and the closing of timelines.
- :mod:`palace.db.resolution`: resolutions, repointing, implied aliases, user decisions.

Reads that belong to one algorithm (the BM25, date and graph retrievers, a profile card,
``status``, ``doctor``) still hold their own SQL in their modules.
"""
