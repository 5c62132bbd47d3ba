"""What ``heron batch --help`` says; plain text, so that the parser loads nothing to say it."""

from __future__ import annotations

HELP = "run each task of a JSON Lines file with `heron exec`, in a copy of its folder"
EPILOG = """\
A task is one JSON object a line: "id" (names its folder in DIR), "prompt", and "workspace" (a
folder, copied) or "repository" with "commit" (checked out into a fresh folder); optional
"model", "mode", "timeout" (seconds) and "allow_dangerous", else the flags'. Relative paths
are taken from the folder of TASKS.jsonl. Bad lines are named before anything runs.

Per task, DIR/<id>/ holds events.jsonl (the `heron exec --json` stream), trajectory.json
(ShareGPT), diff.patch (`git apply`-able, binary-safe), stderr.log and result.json; DIR/
summary.jsonl has one line per task. Running the same command again runs only the tasks with
no result.json: failed and timed-out tasks are results too (--retry-failed runs them again).

Exit codes: 0 every task done, 1 some failed or timed out, 2 usage error, 130 interrupted
(the running tasks are stopped, and run again next time)."""
