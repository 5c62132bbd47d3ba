"""Heron's ACP server: editors start ``heron acp`` and speak the Agent Client Protocol to it."""

__version__ = "0.1.0"
