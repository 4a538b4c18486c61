"""Experiments: the experiment file, the runner (variants in batches until decided), tips at several strengths."""
