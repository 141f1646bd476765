"""`openclaw-sessions mcp`: a stdio MCP server whose tools, ``sessions_search`` and
``sessions_history``, answer as one fixed caller under OpenClaw's visibility rules.

identity.py resolves the caller once, at start-up; args.py, batch.py and tools.py (no SDK) turn
a tool call into the core's search or history and its answer into upstream's result shapes;
server.py alone imports the MCP SDK (the optional ``[mcp]`` extra), which nothing else imports.
"""
