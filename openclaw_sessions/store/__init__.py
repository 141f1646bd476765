"""Our per-agent SQLite store: where it lives, connections and transactions, the schema and its
migrations, session rows and the stored active branch."""
