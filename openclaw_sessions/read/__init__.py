"""What the read commands compute: search (its SQL, snippets, --explain), history and status,
scoped by the caller's visibility."""
