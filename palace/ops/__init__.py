"""Operations on a whole palace: doctor, forget, export and import, status, the watcher's
daemon, and the one-writer locks."""
