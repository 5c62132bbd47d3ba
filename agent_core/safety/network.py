"""What HTTP clients and other network programs send: destructive methods to another machine
(``curl -X DELETE``, ``wget --method=PUT``, ``http DELETE``, ``gh api -X DELETE``), and the
environment (``env | curl -d @- URL``) or a secret file sent away.

Rows of (programs, condition, reason) like ``dangerous.py``'s, read over the arguments after
``grammar.normal_args`` (so ``-X DELETE``, ``-XDELETE`` and ``--request=delete`` read alike);
and two small tables for pipelines: what prints the environment, and what sends its standard
input over the network.
"""

from __future__ import annotations

import re

from agent_core.safety.argv import ALWAYS, Argv, Condition, Rule, names, sub, unless, valued
from agent_core.safety.shell import SimpleCommand

DESTRUCTIVE_METHODS = names("DELETE PUT PATCH")
LOCAL_URL = re.compile(r"^(https?://)?(localhost|127\.\d+\.\d+\.\d+|\[::1\]|0\.0\.0\.0)([:/]|$)")
STDIN_DATA = ("@-", "@/dev/stdin", "-", "/dev/stdin")
_CURL_DATA = names(
    "-d --data --data-binary --data-urlencode --data-ascii --json -F --form -T --upload-file"
)
_SUBSTITUTED_ENVIRONMENT = re.compile(r"\$\(\s*(env|printenv|set|export)\b|`\s*(env|printenv)\b")


def _destructive(value: str) -> bool:
    return value.upper() in DESTRUCTIVE_METHODS


def _remote(argv: Argv) -> bool:
    """It names a host that is not this machine (or one known only at run time)."""
    urls = [w for w in argv.operands if w.value is None or not w.value.startswith("-")]
    listed = [*(w.value for w in urls), *argv.values(("--url",))]
    return any(url is None or not LOCAL_URL.match(url) for url in listed)


_REMOTE = Condition(_remote, "another host")


def _http_method(argv: Argv) -> bool:
    """httpie and xh: ``http DELETE URL``: a method before the URL."""
    first = argv.operand(0)
    return first is not None and (first.value is None or _destructive(first.value))


def _http_remote(argv: Argv) -> bool:
    """The URL after httpie's method (request items follow it) is not this machine."""
    url = argv.operand(1)
    return url is not None and (url.value is None or not LOCAL_URL.match(url.value))


def _sends_environment(argv: Argv) -> bool:
    """``curl -d "$(env)" URL``: the environment substituted into what is sent."""
    return any(_SUBSTITUTED_ENVIRONMENT.search(w.source) for w in argv.args)


NETWORK_RULES: tuple[Rule, ...] = (
    (
        ("curl",),
        valued(("-X", "--request"), _destructive, "-X DELETE") & _REMOTE,
        "sends a DELETE, PUT or PATCH request to another machine",
    ),
    (
        ("wget",),
        valued(("--method",), _destructive, "--method=DELETE") & _REMOTE,
        "sends a DELETE, PUT or PATCH request to another machine",
    ),
    (
        ("http", "https", "xh", "xhs"),
        Condition(_http_method, "DELETE") & Condition(_http_remote, "another host"),
        "sends a DELETE, PUT or PATCH request to another machine",
    ),
    (
        ("gh",),
        sub("api", then=valued(("-X", "--method"), _destructive, "-X DELETE")),
        "sends a DELETE, PUT or PATCH request to GitHub",
    ),
    (
        ("curl", "wget", "http", "https", "xh", "xhs"),
        Condition(_sends_environment, "$(env)"),
        "sends the environment, which holds keys and tokens",
    ),
)

# What prints the environment, which holds keys and tokens: (program, condition).
ENVIRONMENT_PRINTERS: dict[str, Condition] = {
    "env": Condition(lambda a: not a.operands, "no program"),
    "printenv": ALWAYS,
    "set": Condition(lambda a: not a.args, "no arguments"),
    "export": Condition(lambda a: not a.operands, "-p"),
    "declare": Condition(lambda a: a.has_flag(("-x", "-p")) and not a.operands, "-x"),
    "compgen": Condition(lambda a: a.has_flag(("-v", "-e")), "-e"),
}
# What sends its standard input over the network.
STDIN_SENDERS: dict[str, Condition] = {
    "curl": valued(tuple(_CURL_DATA), lambda v: v in STDIN_DATA, "-d @-"),
    "wget": valued(("--post-file", "--body-file"), lambda v: v in STDIN_DATA, "--post-file=-"),
    "http": unless("--ignore-stdin", "-I"),
    "https": unless("--ignore-stdin", "-I"),
    "xh": unless("--ignore-stdin", "-I"),
    **dict.fromkeys(names("nc ncat netcat socat telnet ssh openssl"), ALWAYS),
}


def prints_environment(command: SimpleCommand | None) -> bool:
    """``command`` (the one feeding a pipe) prints the environment."""
    if command is None or not command.words or command.words[0].value is None:
        return False
    name = command.words[0].value.rsplit("/", 1)[-1]
    condition = ENVIRONMENT_PRINTERS.get(name)
    return condition is not None and condition.matches(Argv(name, tuple(command.words[1:])))


def sends_stdin(argv: Argv) -> bool:
    condition = STDIN_SENDERS.get(argv.program)
    return condition is not None and condition.could_match(argv)
