"""``make bench``: Heron's figures, measured against real processes, written to docs/PERFORMANCE.md."""
