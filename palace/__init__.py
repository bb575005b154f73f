"""palace: a command-line personal knowledge miner (drawers, temporal graph, hybrid search)."""
