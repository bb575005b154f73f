"""The temporal graph: facts and their valid time, changes, name resolution, the user's
corrections, profiles and cards."""
