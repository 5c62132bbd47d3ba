"""``heron exec``: Heron without an editor, for scripts and CI (``heron ask`` is its old name).

A run is a headless ACP client of a ``heron acp`` child process, as an editor is: the same
agent, tools, sandbox, approvals and session store, with no second code path. What is here is
only what a client with no person behind it needs:

- ``command``: the command line checked (exit 2 on a usage error) and made into a ``Job``.
- ``run``: the child started in a session of its own, the session opened, the prompt sent,
  SIGINT turned into a clean ``session/cancel``.
- ``client``: the connection's client side: updates in, permission questions answered.
- ``approvals``: how a question is answered with no one to ask (pure).
- ``record``: what the run comes to: answer, tool calls, refusals, usage, exit code (pure).
- ``output``: ``--json`` lines, or the answer on stdout and progress on stderr.
- ``wire``: reading Heron's JSON the way a client must.
"""
