"""The agent tool's limits (upstream's `sessions_search`), in one place: what --as and the MCP
server enforce, and what the operator may ask for with --max-bytes."""

MAX_QUERY_CHARS = 4096  # a query's length, in characters
AS_MAX_LIMIT = 25  # the largest limit (26 is an error)
MAX_RESULT_BYTES = 32768  # SESSIONS_SEARCH_MAX_BYTES: the results' JSON (a batch shares it)
MAX_BATCH_QUERIES = 8  # SESSIONS_SEARCH_MAX_BATCH_QUERIES
MAX_EXCLUDED = 200  # SESSIONS_SEARCH_MAX_SESSION_KEYS
