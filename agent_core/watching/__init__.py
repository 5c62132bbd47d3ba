"""A live workspace: what Heron reads on its own (instructions, commands, skills, memory, its
config) followed by a file system watcher, so a change is known without waiting for a prompt.

``targets.py`` says what is followed and what a changed path means (pure, but for the stats that
find the folders to watch); ``watcher.py`` runs one watcher per root, shared by the sessions in
it. The ACP side decides what a change becomes (``acp_server/handlers/live.py``).
"""
