"""Readers of what runs other programs, judged as what they run: ``eval``, ``source``,
``alias`` and ``trap`` bodies, wrappers (``sudo``, ``env``, ``timeout``…), runners (``uv
run``, ``docker exec``), multi-call binaries (``busybox``), ``xargs``, ``parallel``, ``find
-exec``, and options whose value is a shell command (``su -c``, ``watch``). The words are
taken apart by ``launchers.py``; what is found goes back to the walker (``Walk.simple``,
``Walk.line``).
"""

from __future__ import annotations

from agent_core.safety.dangerous import LOADER_VARIABLES
from agent_core.safety.findings import STDIN_NAMES
from agent_core.safety.launchers import (
    ELSEWHERE,
    SHELL_STRING_OPTIONS,
    WRAPPER_POSITIONALS,
    WRAPPERS,
    after_options,
    exec_commands,
    parallel_command,
    runner,
    xargs_command,
)
from agent_core.safety.managers import OWN_COMMANDS
from agent_core.safety.reading import Call, Reading, Walk, code_string, launched, script_file
from agent_core.safety.shell import Word


def evaluates(walk: Walk, call: Call) -> Reading:
    """``eval WORDS``: the words joined are shell code."""
    code_string(walk, call.args, call.depth, "eval")
    return launched(call)


def sources(walk: Walk, call: Call) -> Reading:
    """``source x.sh``, ``. x.sh``: judged when this line wrote it; never only a read."""
    script = call.args[0] if call.args else None
    if script is not None and (script.value is None or script.value in STDIN_NAMES):
        walk.findings.unknown("it sources a script produced at run time")
    elif script is not None:
        script_file(walk, script, None, call.depth)
    walk.findings.read_only = False
    walk.findings.prefixes.append(f"{call.name} {script.text}" if script is not None else call.name)
    return launched(call)


def defines(walk: Walk, call: Call) -> Reading:
    """``alias x='…'``, ``trap '…' EXIT``: the code they define is judged now."""
    name = call.name
    for word in call.args[:1] if name == "trap" else call.args:
        code = (word.value or "").partition("=")[2] if name == "alias" else word.value
        if word.value is None:
            walk.findings.unknown(f"it defines shell code built at run time ({name})")
        elif code:
            walk.line(code, call.depth + 1)
    return launched(call)


def shell_string(walk: Walk, call: Call) -> Reading | None:
    """``su -c CMD``, ``flock f -c CMD``, ``npx -c CMD``, ``watch CMD…``: judge the string;
    None when it has none."""
    name, args, depth = call.name, call.args, call.depth
    if name == "watch":
        code_string(walk, after_options(args, frozenset({"-n", "--interval"})), depth, "watch")
        return launched(call)
    options = SHELL_STRING_OPTIONS[name]
    for index, word in enumerate(args):
        value = word.value or ""
        if value in options and index + 1 < len(args):
            code_string(walk, [args[index + 1]], depth, name)
            return launched(call)
        if any(value.startswith(f"{o}=") for o in options if o.startswith("--")):
            code_string(walk, [Word(value, value.split("=", 1)[1])], depth, name)
            return launched(call)
    return None


def multicall(walk: Walk, call: Call) -> Reading:
    """``busybox rm -rf x`` is ``rm -rf x``."""
    if call.args:
        walk.simple(list(call.args), call.command, call.depth)
    return launched(call)


def fills_in(walk: Walk, call: Call) -> Reading:
    """``xargs CMD``, ``parallel CMD ::: …``: the command, its arguments known at run time."""
    inner = xargs_command(call.args) if call.name == "xargs" else parallel_command(call.args)
    walk.simple(inner or [Word("echo", "echo")], call.command, call.depth)
    return launched(call)


def finds_and_runs(walk: Walk, call: Call) -> None:
    """``find -exec CMD ;``, ``fd -x CMD``: each command is judged, and find itself too."""
    for segment in exec_commands("fd" if call.name == "fdfind" else call.name, call.args):
        walk.simple(segment, call.command, call.depth)


def wrapped(walk: Walk, call: Call) -> Reading:
    """``sudo CMD``, ``timeout 5 CMD``, ``env X=1 CMD``: the program it runs is judged."""
    name, args = call.name, call.args
    if name == "command" and any(w.value in ("-v", "-V") for w in args[:1]):
        return launched(call)  # it only says what a name is
    inner = _unwrap(walk, name, args, call.depth)
    if inner:
        walk.simple(inner, call.command, call.depth)
    elif name not in ("env", "exec"):  # env alone prints; exec alone redirects
        walk.findings.read_only = False
    return launched(call)


def _unwrap(walk: Walk, name: str, args: tuple[Word, ...], depth: int) -> list[Word]:
    valued = WRAPPERS[name]
    rest = list(args)
    positionals = WRAPPER_POSITIONALS.get(name, 0)
    if name == "taskset" and any(w.value in ("-c", "--cpu-list") for w in args):
        positionals = 0  # the CPU list is -c's value, not a mask before the program
    while rest:
        value = rest[0].value
        if value is None:
            break
        if value == "--":
            rest.pop(0)
            break
        if name == "env" and "=" in value and not value.startswith("-"):
            if value.partition("=")[0] in LOADER_VARIABLES:
                walk.findings.unknown(f"it sets {value.partition('=')[0]}, which changes what runs")
            rest.pop(0)
        elif name == "env" and value.startswith(("-S", "--split-string")):
            rest.pop(0)
            attached = value.split("=", 1)[1] if "=" in value else value[2:]
            if (value.startswith("--") and "=" not in value) or value == "-S":
                string = rest.pop(0) if rest else Word("", "")
            else:
                string = Word(attached, attached)
            code_string(walk, [string], depth, "env -S")
        elif value.startswith("-") and value != "-":
            rest.pop(0)
            if value in valued and rest:
                rest.pop(0)
        elif positionals:
            rest.pop(0)
            positionals -= 1
        else:
            break
    return rest


def runs_package(walk: Walk, call: Call) -> Reading | None:
    """``npx jest``, ``uv run pytest``, ``kubectl exec pod -- psql``: what the runner runs is
    judged, after the runner's words (what "always allow" remembers with it); None when it
    runs nothing (``uv sync``)."""
    found = runner(call.name, call.args)
    if found is None:
        return None
    head, inner = found
    if (call.name, head[1] if len(head) > 1 else None) in ELSEWHERE:
        walk.findings.read_only = False
        walk.findings.prefixes.append(" ".join((*call.head, *head)))
    walk.simple(inner, call.command, call.depth, (*call.head, *head))
    if call.name in OWN_COMMANDS:  # `pnpm x`, `yarn run x`: a script of that name, maybe;
        walk.findings.read_only = False  # and its own rows, for the words' other readings
        return launched(call)  # (`yarn --new-option value publish`)
    return Reading(None)
