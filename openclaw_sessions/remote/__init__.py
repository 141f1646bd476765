"""The fleet: push a host's redacted index rows and session metadata to a PostgreSQL database,
and search that database with local search's semantics (issue 28). The only package that
imports psycopg (the `postgres` extra); nothing else in the tool needs it."""
