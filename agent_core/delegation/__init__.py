"""Subagents: the ``delegate`` tool hands a task to a child ``Agent`` with a fresh context, and
only the child's report returns to the parent's."""
