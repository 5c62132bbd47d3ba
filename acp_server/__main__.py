"""``python -m acp_server [--model M]`` is ``heron acp [--model M]``."""

import sys

from acp_server.cli import main

raise SystemExit(main(["acp", *sys.argv[1:]]))
