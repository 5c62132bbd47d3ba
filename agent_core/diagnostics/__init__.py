"""Diagnostics after edits: what the editor's or Heron's own language servers say about the files
the agent changed, and which of it the edit made new."""
