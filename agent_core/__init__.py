"""Heron's agent core: the turn loop, models, tools, sessions and context.

Knows nothing of ACP, JSON-RPC, stdio or editors; those reach it through the ports
(``Model``, ``Workspace``, ``Approver``, ``SessionStore``).
"""
