"""`openclaw-sessions mcp`: a stdio MCP server whose tools, ``sessions_search``,
``sessions_history`` and ``sessions_list``, answer as one fixed caller under OpenClaw's
visibility rules.

identity.py resolves the caller once, at start-up; args.py, batch.py, inventory.py and
tools.py (no SDK) turn a tool call into the core's search, history or listing and its answer
into upstream's result shapes, jstext.py writes its text block as JavaScript would; hosts.py
writes a host's configuration. server.py (the server), wire.py (its stdio wire) and check.py
(``--check``: the SDK's stdio client) alone import the MCP SDK (the optional ``[mcp]`` extra).
"""
