"""``make bench``: figures measured against real processes, written to docs/PERFORMANCE.md."""
