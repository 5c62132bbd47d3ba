"""Session persistence: the ``SessionStore`` port (``store``) and its SQLite implementation."""
