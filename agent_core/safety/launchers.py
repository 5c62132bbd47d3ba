"""Programs that run other programs, and how to find what they run.

Wrappers (``sudo``, ``env``, ``timeout``…) run the program named in their arguments; runners
(``npx``, ``uv run``…) run a package's program; some take a whole shell command as one string
(``su -c``, ``watch``); ``xargs``, ``find -exec``, ``fd -x`` and ``parallel`` fill in their
command's arguments at run time. The functions here only take the words apart; the readers
in ``launches.py`` judge what they find.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent_core.safety.argv import Argv, names
from agent_core.safety.grammar import normal_args
from agent_core.safety.managers import FOREACH_VALUED, IN_WORKSPACE, runs_program
from agent_core.safety.shell import Word

RUN_TIME = Word("(run time)", None)  # an argument only known when the command runs

# Wrapper -> its options that take a value (so the value is not taken for the program).
WRAPPERS: dict[str, frozenset[str]] = {
    "env": names("-u --unset -C --chdir -S --split-string"),
    "sudo": names("-u -g -h -p -C -r -t -U -D -R -T"),
    "doas": names("-u -C"),
    "nice": names("-n --adjustment"),
    "ionice": names("-c -n -p -P -u --class --classdata"),
    "timeout": names("-s --signal -k --kill-after"),
    "nohup": frozenset(),
    "setsid": frozenset(),
    "time": names("-o --output -f --format"),
    "command": frozenset(),
    "builtin": frozenset(),
    "exec": names("-a"),
    "stdbuf": names("-i -o -e --input --output --error"),
    "unbuffer": frozenset(),
    "chrt": frozenset(),
    "taskset": names("-c --cpu-list"),
    "flock": names("-w --timeout -E --conflict-exit-code"),
    "strace": names("-o -e -p -s -u -E -P -I -b -a -X"),
    "ltrace": names("-o -e -p -s -u -n -a"),
    "valgrind": frozenset(),
    "xvfb-run": names("-n -s -f -e -p"),
    "catchsegv": frozenset(),
    "unshare": names("-S --setuid -G --setgid -R --root -w --wd --map-user --map-group"),
    "fakeroot": names("-l --lib --faked -s -i -b"),
    "chroot": names("--userspec --groups"),
    "setpriv": names("--reuid --regid --groups --inh-caps --ambient-caps --bounding-set"),
    "prlimit": names("-p --pid"),
    "systemd-run": names("-u --unit -p --property --slice -E --setenv --uid --gid -M"),
    "firejail": frozenset(),
    "nsenter": names("-t --target"),
    "proxychains": names("-f"),
    "proxychains4": names("-f"),
    "torsocks": frozenset(),
    "caffeinate": names("-t -w"),
    "coproc": frozenset(),
}
# Wrappers with positional words before the program: timeout DURATION, chroot DIR…
WRAPPER_POSITIONALS = {"timeout": 1, "flock": 1, "chrt": 1, "taskset": 1, "chroot": 1}
# Into a container: `docker exec c CMD`, `docker compose exec SERVICE CMD` (two words).
_CONTAINER_EXECS: tuple[tuple[str, str], ...] = (
    ("docker", "exec"),
    ("podman", "exec"),
    ("nerdctl", "exec"),
    ("docker-compose", "exec"),
    ("podman-compose", "exec"),
    ("docker", "compose exec"),
    ("podman", "compose exec"),
    ("nerdctl", "compose exec"),
)
_COMPOSE_RUNS: tuple[tuple[str, str], ...] = (
    ("docker-compose", "run"),
    ("podman-compose", "run"),
    ("docker", "compose run"),
    ("podman", "compose run"),
    ("nerdctl", "compose run"),
)
# Runners: (program, subcommand or None) -> their options that take a value. The options and
# their values stay in what "always allow" remembers: `npx -p other jest` is not `npx jest`.
RUNNERS: dict[tuple[str, str | None], frozenset[str]] = {
    ("npx", None): names("-p --package"),
    ("bunx", None): names("-p --package"),
    ("pnpx", None): frozenset(),
    ("uvx", None): names("--from --with -p --python --index-url"),
    ("npm", "exec"): names("-p --package -w --workspace"),
    ("pnpm", "exec"): names("-C --dir --filter -F"),
    ("pnpm", "dlx"): names("--package"),
    ("yarn", "dlx"): names("-p --package"),
    ("yarn", "exec"): frozenset(),
    ("yarn", "run"): frozenset(),  # a script, else a package's program (and `yarn prisma`)
    ("bun", "run"): frozenset(),
    ("bun", "x"): frozenset(),
    ("uv", "run"): names(
        "--with --with-requirements --python -p --project --directory --package --extra "
        "--group --env-file --index --index-url"
    ),
    ("poetry", "run"): names("-C --directory -P --project"),
    ("pipenv", "run"): frozenset(),
    ("pdm", "run"): names("-p --project"),
    ("hatch", "run"): frozenset(),
    ("rye", "run"): frozenset(),
    ("pipx", "run"): names("--spec --python"),
    ("bundle", "exec"): frozenset(),
    ("conda", "run"): names("-n --name -p --prefix --cwd"),
    ("mamba", "run"): names("-n --name -p --prefix --cwd"),
    ("micromamba", "run"): names("-n --name -p --prefix --cwd"),
    ("mise", "exec"): names("-C --cd"),
    ("mise", "x"): names("-C --cd"),
    ("asdf", "exec"): frozenset(),
    ("direnv", "exec"): frozenset(),
    # Into a container or a pod: what runs there is judged like what runs here.
    **dict.fromkeys(
        _CONTAINER_EXECS,
        names("-e --env --env-file -u --user -w --workdir --detach-keys --index"),
    ),
    **dict.fromkeys(  # a new container of a compose service
        _COMPOSE_RUNS,
        names(
            "-e --env --env-file -u --user -w --workdir --name --entrypoint -p --publish "
            "-v --volume -l --label --pull --cap-add --cap-drop"
        ),
    ),
    **dict.fromkeys(
        (("kubectl", "exec"), ("oc", "exec"), ("kubecolor", "exec")),
        names("-c --container -f --filename --pod-running-timeout"),
    ),
}
# Runners that reach a container or a cluster: never only a read, whatever runs there.
ELSEWHERE: frozenset[tuple[str, str | None]] = frozenset(
    (*_CONTAINER_EXECS, *_COMPOSE_RUNS, *((p, "exec") for p in ("kubectl", "oc", "kubecolor")))
)
# Runners with positional words before the program: the folder, the container, the pod.
RUNNER_POSITIONALS: dict[tuple[str, str | None], int] = {
    ("direnv", "exec"): 1,
    **dict.fromkeys(ELSEWHERE, 1),
}
# Program -> the options whose value is a whole shell command ("watch": all its operands).
SHELL_STRING_OPTIONS: dict[str, tuple[str, ...]] = {
    "su": ("-c", "--command"),
    "flock": ("-c", "--command"),
    "script": ("-c", "--command"),
    "nix-shell": ("--run", "--command"),
    "npx": ("-c", "--call"),
    "npm": ("-c", "--call"),
    "mapfile": ("-C",),  # the callback runs for every few lines read
    "readarray": ("-C",),
    "watch": (),
}
SHELLS = names("sh bash dash zsh ksh ksh93 mksh ash fish csh tcsh")
MULTICALL = names("busybox toybox")  # `busybox rm -rf x` is rm
# Interpreter -> its options whose value is inline code.
INTERPRETERS: dict[str, frozenset[str]] = {
    "python": names("-c"),
    "ipython": names("-c"),
    "pypy": names("-c"),
    "node": names("-e --eval -p --print"),
    "nodejs": names("-e --eval -p --print"),
    "bun": names("-e --eval -p --print"),
    "deno": frozenset(),  # `deno eval CODE`, `deno run -`
    "perl": names("-e -E"),
    "ruby": names("-e"),
    "php": names("-r"),
    "lua": names("-e"),
    "luajit": names("-e"),
    "rscript": names("-e"),
    "r": names("-e"),
    "osascript": names("-e"),
    "pwsh": names("-c -command"),
    "powershell": names("-c -command"),
    "tclsh": frozenset(),
    "awk": frozenset(),  # the program is the first operand, or -f FILE
    "gawk": frozenset(),
    "mawk": frozenset(),
    "nawk": frozenset(),
    "make": frozenset(),  # -f - reads a makefile from stdin; --eval runs text
}
AWK = names("awk gawk mawk nawk")
# Programs whose subcommand "always allow" remembers with them: `git status`, `npm test`.
SUBCOMMAND_PROGRAMS = names(
    "git npm pnpm yarn bun npx cargo go dotnet docker podman kubectl pip pip3 uv poetry pdm "
    "hatch make just gradle mvn bundle rake mix swift deno brew apt apt-get conda gh "
    "terraform helm rustup composer dart flutter task nx turbo"
)
# `npm run build`: these subcommands name a script, remembered as a third word.
SCRIPT_SUBCOMMANDS = names("run run-script exec x dlx")
_XARGS_VALUED = names(
    "-I -n -L -l -P -d -E -e -s -a --arg-file --delimiter --max-args --max-procs --replace "
    "--max-lines --eof --max-chars"
)
_EXEC_OPTIONS = {
    "find": names("-exec -execdir -ok -okdir"),
    "fd": names("-x --exec -X --exec-batch"),
}


def program_name(value: str) -> str:
    """``/usr/bin/RM`` and ``rm.exe`` are ``rm``; ``mkfs.ext4`` is ``mkfs``."""
    name = value.rstrip("/").rsplit("/", 1)[-1].lower().removesuffix(".exe")
    return "mkfs" if name.startswith("mkfs.") else name


def interpreter_of(name: str) -> str | None:
    """The INTERPRETERS key for ``python3.12``, ``pypy3``, ``php-cgi``…, or None."""
    if name in INTERPRETERS:
        return name
    for prefix in ("python", "ipython", "pypy", "perl", "ruby", "php", "lua"):
        if name.startswith(prefix) and re.fullmatch(r"[\d.]*(w|-cgi|-cli)?", name[len(prefix) :]):
            return prefix
    return None


def after_options(words: Sequence[Word], valued: frozenset[str]) -> list[Word]:
    """``words`` from the first operand on (options, and the values of ``valued`` ones, gone)."""
    rest = list(words)
    while rest and (value := rest[0].value) is not None and value.startswith("-") and value != "-":
        rest.pop(0)
        if value == "--":
            break
        if value in valued and rest:
            rest.pop(0)
    return rest


def xargs_command(args: Sequence[Word]) -> list[Word]:
    """The command xargs runs, with what it fills in from its input left to run time."""
    replace: str | None = None
    for index, word in enumerate(args):
        value = word.value or ""
        if value in ("-I", "--replace") and index + 1 < len(args):
            replace = args[index + 1].value or "{}"
        elif value.startswith(("-i", "--replace=")) or (value.startswith("-I") and len(value) > 2):
            replace = value.partition("=")[2] or value[2:] or "{}"
    inner = after_options(args, _XARGS_VALUED)
    if replace is None:
        return [*inner, RUN_TIME] if inner else []
    return [RUN_TIME if replace in (w.value or "") else w for w in inner]


def exec_commands(program: str, args: Sequence[Word]) -> list[list[Word]]:
    """The commands of ``find -exec … ;`` or ``fd -x …``, with ``{}`` filled at run time."""
    options = _EXEC_OPTIONS.get(program, frozenset())
    segments: list[list[Word]] = []
    current: list[Word] | None = None
    for word in args:
        if current is None:
            if word.value in options:
                current = []
        elif word.value in (";", "+", "\\;"):
            segments.append(current)
            current = None
        else:
            current.append(RUN_TIME if word.value is not None and "{" in word.value else word)
    if current:
        segments.append(current)
    return [segment for segment in segments if segment]


def parallel_command(args: Sequence[Word]) -> list[Word]:
    """GNU parallel's command: what comes before ``:::``, its arguments filled at run time."""
    before: list[Word] = []
    for word in after_options(args, names("-j --jobs -S --sshlogin --joblog --results")):
        if word.value in (":::", "::::", ":::+"):
            break
        before.append(RUN_TIME if word.value is not None and "{" in word.value else word)
    return [*before, RUN_TIME] if before else []


def runner(name: str, args: Sequence[Word]) -> tuple[tuple[str, ...], list[Word]] | None:
    """(the runner's words, the program it runs), for ``npx jest``, ``uv run pytest`` or
    ``kubectl -n prod exec pod -- psql``."""
    rest = list(args)
    head: list[str] = [name]
    key: tuple[str, str | None] = (name, None)
    if key not in RUNNERS:
        operands = after_options(normal_args(name, tuple(rest)), frozenset())
        first = operands[0].value if operands else None
        key, rest = (name, first), operands[1:]
        then = after_options(rest, frozenset())  # `docker compose -f x.yml exec`
        if key not in RUNNERS and then and (name, f"{first} {then[0].value}") in RUNNERS:
            key, rest = (name, f"{first} {then[0].value}"), then[1:]
        elif key in IN_WORKSPACE and len(rest) > 1:  # yarn workspace NAME CMD: yarn CMD
            return (name, key[1] or "", rest[0].text), [Word(name, name), *rest[1:]]
        elif key == ("yarn", "workspaces") and then and then[0].value == "foreach":
            each = after_options(then[1:], FOREACH_VALUED)  # yarn workspaces foreach -A CMD
            return ((name, "workspaces foreach"), [Word(name, name), *each]) if each else None
        elif key not in RUNNERS and runs_program(name, first):  # pnpm prisma: pnpm exec prisma
            return (name,), operands
        if key not in RUNNERS or key[1] is None:
            return None
        head.append(key[1])
    valued, positionals = RUNNERS[key], RUNNER_POSITIONALS.get(key, 0)
    while rest and (value := rest[0].value) is not None:
        if value == "--":
            rest.pop(0)
            break
        if value.startswith("-") and value != "-":
            rest.pop(0)
            if value.split("=", 1)[0] in valued:  # a package or a project: part of what runs
                head.append(value)
                if "=" not in value and rest:
                    head.append(rest.pop(0).text)
        elif positionals:  # direnv exec DIR, docker exec CONTAINER
            positionals -= 1
            head.append(rest.pop(0).text)
        else:
            break
    return (tuple(head), rest) if rest else None


def option_values(args: Sequence[Word], options: Sequence[str]) -> list[Word]:
    """The values given to ``options`` (``-o FILE``, ``--output=FILE``, ``-oFILE``)."""
    values: list[Word] = []
    for index, word in enumerate(args):
        text = word.text
        for option in options:
            if text == option and index + 1 < len(args):
                values.append(args[index + 1])
            elif option.startswith("--") and text.startswith(f"{option}="):
                values.append(Word(text, text.split("=", 1)[1]))
            elif not option.startswith("--") and text.startswith(option) and len(text) > 2:
                values.append(Word(text, text[2:]))
    return values


def prefix_of(written: str, name: str, argv: Argv) -> str:
    """What "always allow" remembers: the program as written, and its subcommand (and the
    script an ``npm run`` names)."""
    first, second = argv.operand(0), argv.operand(1)
    if name not in SUBCOMMAND_PROGRAMS or first is None or not first.value:
        return written
    if first.value in SCRIPT_SUBCOMMANDS and second is not None and second.value:
        return f"{written} {first.value} {second.value}"
    return f"{written} {first.value}"
