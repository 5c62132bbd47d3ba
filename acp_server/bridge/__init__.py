"""Translation between the agent core and ACP, and the editor-backed ports.

``updates`` and ``content`` are pure functions; ``workspace`` and ``approver`` talk to the
editor through the connection.
"""
