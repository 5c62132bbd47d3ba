"""MCP servers a session uses: the editor's (from ``session/new``) and the user's (config.toml).

``servers`` describes them (pure data), ``connection`` keeps one server connected through the
official ``mcp`` SDK (imported lazily, off the start-up path), ``tool`` makes each of its tools a
Heron tool, ``results`` converts what a call returns, and ``pool`` runs a session's servers.
"""
