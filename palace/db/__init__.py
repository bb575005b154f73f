"""The store layer: every read of the palace's tables behind typed filters and results.

- :mod:`palace.db.facts`: :class:`~palace.db.facts.FactFilter` → :class:`~palace.db.facts.FactView`
  (valid time, recorded time, what "holds on a day" means).
- :mod:`palace.db.entities`: names and aliases to entities.

The schema, its migrations and the connection live in :mod:`palace.db.store`.
"""
