"""Where commands run when they do not run on the host: the container backend.

``settings`` reads ``[execution]``; ``engine`` finds and probes Podman or Docker and fixes what a
machine's defaults get wrong; ``container`` keeps one container per workspace; ``server`` is the
command server inside it and its host client; ``runner`` is the ``CommandRunner`` over that
server, and the launcher that stands in for the OS sandbox.
"""
