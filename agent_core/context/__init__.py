"""Prompt assembly, context files, compaction and token estimates."""
