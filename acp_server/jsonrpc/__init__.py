"""NDJSON framing, a stdio transport and a bidirectional JSON-RPC 2.0 connection.

Knows no ACP method names and imports nothing else from the project. The package imports none
of its modules: the front door uses the framing and the values before the rest is loaded.
"""
