"""The operating system's sandbox around what Heron runs: commands, scripts, and (when
configured) MCP servers. ``policy.py`` says what a process may touch, ``bubblewrap.py`` and
``seatbelt.py`` say it to Linux and macOS, ``detect.py`` finds which one works here, and
``confinement.py`` is one session's sandbox."""
