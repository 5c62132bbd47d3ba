"""``heron batch``: many tasks, each a ``heron exec --json`` run in a copy of its workspace.

- ``tasks``: TASKS.jsonl read and checked (pure), the flags' defaults, ``--shard``.
- ``workspace``: a task's copy (a folder copied, or a repository checked out at a commit) and
  the diff of what the run changed in it.
- ``results``: what one run comes to (a summary row), read from the ``heron exec`` stream (pure).
- ``trajectory``: the run's stored session as ShareGPT (the export's translation).
- ``runner``: one task, in its own process group, under its time limit.
- ``pool``: the workers, resuming a batch, the summary.
- ``progress``: the bar and the running tally, the table at the end.
- ``command``: ``heron batch`` itself (the flags, the exit code); ``usage``: its ``--help``.
"""
