"""Hooks: the user's own commands run at points of a session (before and after a tool call,
after an edit, when a prompt is submitted, when a turn ends), configured in
``$HERON_HOME/config.toml`` only, and run in the session's sandbox."""
