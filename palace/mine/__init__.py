"""Mining: discovering and reading notes, the mine run (prepare, NLP, store, resolve, report),
indexing the vectors, the watcher, and ``palace extract`` (the mining NLP on a text)."""
