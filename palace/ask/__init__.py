"""Asking: planning a question, the retrievers and their fusion, ranking, and the answers."""
