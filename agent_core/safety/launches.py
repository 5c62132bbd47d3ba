"""What runs other programs, judged as what they run: ``eval``, ``source``, ``alias`` and
``trap`` bodies, wrappers (``sudo``, ``env``, ``timeout``…), multi-call binaries (``busybox``),
``xargs``, ``parallel``, ``find -exec``, and options whose value is a shell command (``su -c``,
``watch``). The words are taken apart by ``launchers.py``; ``judge._Judge`` supplies
``simple`` and ``line``, which judge what is found.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_core.safety.dangerous import LOADER_VARIABLES
from agent_core.safety.findings import STDIN_NAMES, Findings
from agent_core.safety.launchers import (
    MULTICALL,
    SHELL_STRING_OPTIONS,
    WRAPPER_POSITIONALS,
    WRAPPERS,
    after_options,
    exec_commands,
    parallel_command,
    xargs_command,
)
from agent_core.safety.shell import SimpleCommand, Word


class Launches(Findings):
    def simple(
        self, words: list[Word], command: SimpleCommand, depth: int, head: tuple[str, ...] = ()
    ) -> None:
        raise NotImplementedError

    def runs_another(
        self, name: str, args: tuple[Word, ...], command: SimpleCommand, depth: int
    ) -> bool:
        """Judge what ``name`` runs, when it runs something; True when it did."""
        if name == "eval":
            self.code_string(args, depth, "eval")
            return True
        if name in ("source", "."):
            return self.sources(name, args, depth)
        if name in ("alias", "trap"):
            return self.defines(name, args, depth)
        if name in SHELL_STRING_OPTIONS and self.shell_string(name, args, depth):
            return True
        if name in MULTICALL:  # busybox rm -rf x is rm
            if args:
                self.simple(list(args), command, depth)
            return True
        if name in ("xargs", "parallel"):
            inner = xargs_command(args) if name == "xargs" else parallel_command(args)
            self.simple(inner or [Word("echo", "echo")], command, depth)
            return True
        if name in ("find", "fd", "fdfind"):
            for segment in exec_commands("fd" if name == "fdfind" else name, args):
                self.simple(segment, command, depth)
            return False  # find itself is judged too
        if name in WRAPPERS:
            return self.wrapped(name, args, command, depth)
        return False

    def sources(self, name: str, args: tuple[Word, ...], depth: int) -> bool:
        script = args[0] if args else None
        if script is not None and (script.value is None or script.value in STDIN_NAMES):
            self.unknown("it sources a script produced at run time")
        elif script is not None:
            self.script_file(script, None, depth)
        self.read_only = False
        self.prefixes.append(f"{name} {script.text}" if script is not None else name)
        return True

    def defines(self, name: str, args: tuple[Word, ...], depth: int) -> bool:
        """``alias x='…'``, ``trap '…' EXIT``: the code they define is judged now."""
        for word in args[:1] if name == "trap" else args:
            code = (word.value or "").partition("=")[2] if name == "alias" else word.value
            if word.value is None:
                self.unknown(f"it defines shell code built at run time ({name})")
            elif code:
                self.line(code, depth + 1)
        return True

    def wrapped(
        self, name: str, args: tuple[Word, ...], command: SimpleCommand, depth: int
    ) -> bool:
        if name == "command" and any(w.value in ("-v", "-V") for w in args[:1]):
            return True  # it only says what a name is
        inner = self.unwrap(name, args, depth)
        if inner:
            self.simple(inner, command, depth)
        elif name not in ("env", "exec"):  # env alone prints; exec alone redirects
            self.read_only = False
        return True

    def unwrap(self, name: str, args: tuple[Word, ...], depth: int) -> list[Word]:
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
                    self.unknown(f"it sets {value.partition('=')[0]}, which changes what runs")
                rest.pop(0)
            elif name == "env" and value.startswith(("-S", "--split-string")):
                rest.pop(0)
                attached = value.split("=", 1)[1] if "=" in value else value[2:]
                if (value.startswith("--") and "=" not in value) or value == "-S":
                    string = rest.pop(0) if rest else Word("", "")
                else:
                    string = Word(attached, attached)
                self.code_string([string], depth, "env -S")
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

    def shell_string(self, name: str, args: tuple[Word, ...], depth: int) -> bool:
        """``su -c CMD``, ``flock f -c CMD``, ``npx -c CMD``, ``watch CMD…``: judge the string."""
        if name == "watch":
            self.code_string(after_options(args, frozenset({"-n", "--interval"})), depth, "watch")
            return True
        options = SHELL_STRING_OPTIONS[name]
        for index, word in enumerate(args):
            value = word.value or ""
            if value in options and index + 1 < len(args):
                self.code_string([args[index + 1]], depth, name)
                return True
            if any(value.startswith(f"{o}=") for o in options if o.startswith("--")):
                self.code_string([Word(value, value.split("=", 1)[1])], depth, name)
                return True
        return False

    def code_string(self, words: Sequence[Word], depth: int, name: str) -> None:
        if all(w.literal for w in words):
            self.line(" ".join(w.value or "" for w in words), depth + 1)
        else:
            self.unknown(f"it runs shell code built at run time ({name})")
