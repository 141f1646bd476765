"""The transcript model: entries, the tree and its active branch,
well-formed JSON text, times; pure, no I/O."""
