"""The store: SQLite (the truth: schema, migrations, every table's reads and writes), the vector
stores derived from it, and the embedding model that fills them."""
