"""What Heron knows about programs: the dangerous operations, the read-only commands, and the
programs that run other programs (wrappers, shells, interpreters, runners).

These are the tables ``judge.py`` applies to every simple command of a command line, after the
line is parsed and wrappers are unwrapped (``sudo env timeout 5 rm -r x`` is judged as ``rm``,
and as ``sudo``). A dangerous operation asks in every mode, ``full-access`` included; a command
whose parts are all read-only runs without a question in ``ask`` mode. The sandbox, not this
table, is what confines a command: a missing entry here costs a question not asked, never
access the sandbox would refuse.
"""

from __future__ import annotations

import re

from agent_core.safety.argv import (
    ALWAYS,
    Argv,
    Condition,
    arg,
    flag,
    no_flag,
    operand,
    sub,
    words,
)
from agent_core.safety.paths import is_system_path


def names(text: str) -> frozenset[str]:
    """A set of names written as one string, for tables that read better that way."""
    return frozenset(text.split())


def _disk(value: str) -> bool:
    return bool(re.match(r"(of=)?/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|loop|mapper/|md|sr)", value))


def _everyone(value: str) -> bool:
    return value == "-1"


def _upload(value: str) -> bool:
    return value.startswith("@") or "=@" in value or value.startswith("<")


def _runs_program(value: str) -> bool:
    return value.lower().startswith(("exec:", "system:"))


def _refspec_force_or_delete(value: str) -> bool:
    return value.startswith(("+", ":")) and len(value) > 1


# The dangerous operations. (programs, condition, reason); a condition is read over the
# normalised arguments (flags in any order and spelling, see argv.py).
DANGEROUS: tuple[tuple[tuple[str, ...], Condition, str], ...] = (
    # Deletes of any kind.
    (("rm", "rmdir", "unlink", "shred", "srm", "wipe"), ALWAYS, "deletes files"),
    (("trash", "trash-put", "rimraf", "del", "del-cli"), ALWAYS, "deletes files"),
    (("gio",), sub("trash", "remove", "rm"), "deletes files"),
    (("find",), flag("-delete"), "deletes files (-delete)"),
    (("rsync",), flag("--delete", "--del", "--remove-source-files"), "deletes files"),
    (("git",), sub("rm"), "deletes files"),
    (("git",), sub("clean", then=flag("-f", "--force")), "deletes untracked files"),
    (
        ("mv",),
        operand(lambda v: v == "/dev/null", "/dev/null"),
        "deletes files (moves them to /dev/null)",
    ),
    (("dropdb", "dropuser"), ALWAYS, "drops a database"),
    # Git: force, mirror and delete pushes; discarded work; history rewrites; configuration.
    (
        ("git",),
        sub(
            "push",
            then=flag(
                "-f",
                "--force",
                "--force-with-lease",
                "--force-if-includes",
                "--mirror",
                "-d",
                "--delete",
                "--prune",
            )
            | operand(_refspec_force_or_delete, "+ref or :ref"),
        ),
        "overwrites or deletes remote history (force, mirror or delete)",
    ),
    (("git",), sub("reset", then=flag("--hard", "--merge", "--keep")), "discards uncommitted work"),
    (
        ("git",),
        sub("checkout", then=flag("-f", "--force") | operand(lambda v: v in (".", "*"), ".")),
        "discards local changes",
    ),
    (("git",), sub("restore"), "discards local changes"),
    (
        ("git",),
        sub("switch", then=flag("-f", "--force", "--discard-changes")),
        "discards local changes",
    ),
    (
        ("git",),
        sub("branch", then=flag("-D") | (flag("-d", "--delete") & flag("-f", "--force"))),
        "force-deletes a branch",
    ),
    (("git",), sub("tag", then=flag("-d", "--delete")), "deletes a tag"),
    (("git",), sub("stash", then=words("drop") | words("clear")), "deletes stashed work"),
    (
        ("git",),
        sub("filter-branch", "filter-repo", "rebase", "replace")
        | sub("reflog", then=words("expire") | words("delete"))
        | sub("update-ref", then=flag("-d"))
        | sub("gc", then=flag("--prune")),
        "rewrites history",
    ),
    (
        ("git",),
        sub(
            "config",
            then=Condition(lambda a: len(a.operands) >= 2, "a key and a value")
            | flag(
                "--unset",
                "--unset-all",
                "--add",
                "--replace-all",
                "--rename-section",
                "--remove-section",
                "-e",
                "--edit",
            ),
        ),
        "changes git's configuration",
    ),
    # Permissions and ownership.
    (
        ("chmod", "chown", "chgrp", "setfacl"),
        flag("-R", "--recursive"),
        "changes permissions recursively",
    ),
    (
        ("chmod", "chown", "chgrp", "setfacl", "chattr"),
        operand(is_system_path, "a system path"),
        "changes permissions of system paths",
    ),
    # Processes and the machine.
    (("kill",), flag("-1") | operand(_everyone, "-1"), "kills every process"),
    (("killall", "killall5", "pkill"), ALWAYS, "kills processes by name"),
    (
        ("crontab",),
        flag("-r") | operand(lambda v: True, "a file"),
        "replaces or removes the crontab",
    ),
    (("sudo", "doas", "su", "pkexec", "run0"), ALWAYS, "runs as root"),
    (("shutdown", "reboot", "halt", "poweroff"), ALWAYS, "stops the machine"),
    (("init", "telinit"), operand(lambda v: v in ("0", "6"), "0 or 6"), "stops the machine"),
    (
        ("systemctl",),
        sub("stop", "disable", "mask", "kill", "poweroff", "reboot", "halt", "isolate"),
        "stops system services",
    ),
    (("service",), arg(lambda v: v == "stop", "stop"), "stops system services"),
    (("launchctl",), sub("unload", "remove", "bootout", "disable"), "stops system services"),
    (("iptables", "ip6tables"), flag("-F", "--flush", "-X", "-P"), "turns off the firewall"),
    (("nft",), words("flush"), "turns off the firewall"),
    (("ufw",), sub("disable", "reset"), "turns off the firewall"),
    (("history",), flag("-c"), "erases shell history"),
    # Disks.
    (
        ("mkfs", "mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk", "cfdisk", "parted", "gdisk"),
        ALWAYS,
        "formats or partitions a disk",
    ),
    (("sgdisk", "blkdiscard", "cryptsetup", "losetup"), ALWAYS, "formats or partitions a disk"),
    (("dd",), operand(_disk, "of=/dev/…"), "writes raw to a disk device"),
    # Credentials.
    (
        ("security",),
        sub("find-generic-password", "find-internet-password", "dump-keychain"),
        "reads credentials from the keychain",
    ),
    (("gh",), words("auth", "token"), "prints a credential"),
    # Data leaving the machine, and publishing.
    (("curl",), flag("-T", "--upload-file") | arg(_upload, "@file"), "uploads a local file"),
    (("wget",), flag("--post-file", "--body-file"), "uploads a local file"),
    (
        ("nc", "ncat", "netcat"),
        flag("-e", "-c", "--exec", "--sh-exec"),
        "opens a shell to the network",
    ),
    (("socat",), arg(_runs_program, "exec:"), "opens a shell to the network"),
    (
        ("npm", "pnpm", "yarn", "bun"),
        sub("publish", "unpublish", "deprecate"),
        "publishes a package",
    ),
    (("twine",), sub("upload"), "publishes a package"),
    (("cargo",), sub("publish", "yank"), "publishes a package"),
    (("gem",), sub("push", "yank"), "publishes a package"),
    (("poetry", "uv", "hatch", "flit", "pdm"), sub("publish"), "publishes a package"),
    (("docker", "podman"), sub("push"), "publishes an image"),
    (
        ("gh",),
        words("repo", "delete") | words("release", "delete"),
        "deletes a repository or release",
    ),
    # Containers, clusters, infrastructure.
    (
        ("docker", "podman"),
        words("system", "prune")
        | words("volume", "rm")
        | words("volume", "prune")
        | words("container", "prune")
        | words("image", "prune")
        | sub("rm", "rmi"),
        "deletes containers, images or volumes",
    ),
    (("kubectl",), sub("delete", "drain"), "deletes cluster resources"),
    (("helm",), sub("uninstall", "delete"), "deletes cluster resources"),
    (
        ("terraform", "tofu", "pulumi"),
        sub("destroy")
        | sub("apply", then=flag("-auto-approve", "--auto-approve"))
        | words("state", "rm"),
        "destroys infrastructure",
    ),
    (("aws",), words("s3", "rm") | words("s3", "rb"), "deletes cloud storage"),
    (
        ("aws", "gcloud", "az"),
        arg(lambda v: v == "delete" or v.startswith(("delete-", "terminate-")), "delete"),
        "deletes cloud resources",
    ),
    (
        ("redis-cli",),
        arg(lambda v: v.lower() in ("flushall", "flushdb"), "flushall"),
        "wipes a database",
    ),
)

# Commands that only read. In `ask` mode a command whose every part is one of these runs
# without a question (still inside the sandbox). Conditions exclude the flags that write,
# run programs or read from the network; a command with a word known only at run time
# qualifies only when its condition is ALWAYS.
GIT_READ_ONLY = (
    "status",
    "diff",
    "log",
    "show",
    "blame",
    "shortlog",
    "describe",
    "rev-parse",
    "rev-list",
    "ls-files",
    "ls-tree",
    "cat-file",
    "show-ref",
    "for-each-ref",
    "name-rev",
    "merge-base",
    "grep",
    "diff-tree",
    "diff-files",
    "diff-index",
    "check-ignore",
    "count-objects",
    "whatchanged",
    "cherry",
    "range-diff",
    "version",
    "help",
)
_BRANCH_CHANGES = names(
    "-d -D -m -M -c -C -u -f --delete --move --copy --set-upstream-to --unset-upstream "
    "--edit-description --force"
)


def _lists_branches(argv: Argv) -> bool:
    listing = ("--list", "-l", "--contains", "--merged", "--no-merged", "--points-at")
    return not argv.operands or argv.has_flag(listing)


_GIT_LISTING = (
    sub(*GIT_READ_ONLY)
    | sub("branch", then=no_flag(*_BRANCH_CHANGES) & Condition(_lists_branches, "listing"))
    | sub("tag", then=Condition(lambda a: not a.operands or a.has_flag(("-l", "--list")), "-l"))
    | sub("remote", then=Condition(lambda a: not a.operands or a.words_start(("get-url",)), "-v"))
    | sub("config", then=flag("--get", "--get-all", "--get-regexp", "--list", "-l"))
    | sub("stash", then=words("list") | words("show"))
    | sub("worktree", then=words("list"))
    | sub("submodule", then=words("status"))
)
READ_ONLY: dict[str, Condition] = {
    **dict.fromkeys(
        names(
            "ls dir vdir cat tac head tail less more wc nl cut tr rev fold paste join comm "
            "column expand unexpand grep egrep fgrep echo printf pwd cd pushd popd dirs true "
            "false : test [ basename dirname realpath readlink stat file du df which whereis "
            "type whoami id groups uname cal uptime nproc arch free ps pgrep seq expr md5sum "
            "sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum sum strings od hexdump "
            "cmp diff jq locate printenv sleep getconf locale lscpu lsblk tty clear export "
            "declare local readonly typeset"
        ),
        ALWAYS,
    ),
    "date": no_flag("-s", "--set"),
    "base64": no_flag("-o", "--output"),
    "hostname": Condition(lambda a: not a.operands, "no new name"),
    "tree": no_flag("-o"),
    "sort": no_flag("-o", "--output", "--compress-program"),
    "uniq": Condition(lambda a: len(a.operands) <= 1, "one file"),
    "xxd": Condition(lambda a: len(a.operands) <= 1 and not a.has_flag(("-r",)), "one file"),
    "find": no_flag(*names("-exec -execdir -ok -okdir -delete -fprint -fprint0 -fprintf -fls")),
    "fd": no_flag("-x", "--exec", "-X", "--exec-batch"),
    "fdfind": no_flag("-x", "--exec", "-X", "--exec-batch"),
    "rg": no_flag("--pre", "--pre-glob", "-z", "--search-zip", "--hostname-bin"),
    "ag": ALWAYS,
    "ack": ALWAYS,
    "yq": no_flag("-i", "--inplace"),
    "sed": no_flag("-i", "--in-place")
    & Condition(lambda a: all(_plain_sed(w.value or "") for w in a.operands[:1]), "no w/e"),
    # git's own options before the subcommand (-c, -p…) are judged apart: see judge.py.
    "git": no_flag("--output", "--ext-diff", "--textconv", "--exec") & _GIT_LISTING,
}


def _plain_sed(script: str) -> bool:
    """A sed script that neither writes files (w, W) nor runs commands (e)."""
    return not re.search(r"(^|[;}\s/])[wWe]\b|/[gIip0-9]*[we]", script)


# Programs that run the program named in their arguments. The value says how to find it:
# the options that take a value (so their value is not mistaken for the program), and
# whether a leading NAME=value is an assignment (env).
WRAPPERS: dict[str, frozenset[str]] = {
    "env": frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}),
    "sudo": frozenset({"-u", "-g", "-h", "-p", "-C", "-r", "-t", "-U", "-D", "-R", "-T"}),
    "doas": frozenset({"-u", "-C"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "-n", "-p", "-P", "-u", "--class", "--classdata"}),
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
    "nohup": frozenset(),
    "setsid": frozenset(),
    "time": frozenset({"-o", "--output", "-f", "--format"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "exec": frozenset({"-a"}),
    "stdbuf": frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}),
    "unbuffer": frozenset(),
    "chrt": frozenset(),
    "taskset": frozenset({"-c", "--cpu-list"}),
    "flock": frozenset({"-w", "--timeout", "-E", "--conflict-exit-code"}),
    "strace": frozenset({"-o", "-e", "-p", "-s", "-u", "-E", "-P", "-I", "-b", "-a", "-X"}),
    "ltrace": frozenset({"-o", "-e", "-p", "-s", "-u", "-n", "-a"}),
    "valgrind": frozenset(),
    "xvfb-run": frozenset({"-n", "-s", "-f", "-e", "-p"}),
    "catchsegv": frozenset(),
    "proxychains": frozenset({"-f"}),
    "proxychains4": frozenset({"-f"}),
    "torsocks": frozenset(),
    "caffeinate": frozenset({"-t", "-w"}),
}
# Wrappers that take one more positional word before the program.
WRAPPER_FIRST_OPERAND = {"timeout": 1, "flock": 1, "chrt": 1, "taskset": 1}
# Runners: (program, its subcommand or None) -> options that take a value. They run a program
# (or package binary) named next; that program is judged as if it ran directly.
RUNNERS: dict[tuple[str, str | None], frozenset[str]] = {
    ("npx", None): frozenset({"-p", "--package", "-c", "--call"}),
    ("bunx", None): frozenset({"-p", "--package"}),
    ("pnpx", None): frozenset(),
    ("uvx", None): frozenset({"--from", "--with", "-p", "--python", "--index-url"}),
    ("npm", "exec"): frozenset({"-p", "--package", "-c", "--call", "-w", "--workspace"}),
    ("pnpm", "exec"): frozenset({"-C", "--dir", "--filter", "-F"}),
    ("pnpm", "dlx"): frozenset({"--package"}),
    ("yarn", "dlx"): frozenset({"-p", "--package"}),
    ("yarn", "exec"): frozenset(),
    ("bun", "x"): frozenset(),
    ("uv", "run"): names(
        "--with --with-requirements --python -p --project --directory --package --extra "
        "--group --env-file --index --index-url"
    ),
    ("poetry", "run"): frozenset({"-C", "--directory", "-P", "--project"}),
    ("pipenv", "run"): frozenset(),
    ("pdm", "run"): frozenset({"-p", "--project"}),
    ("hatch", "run"): frozenset(),
    ("rye", "run"): frozenset(),
    ("pipx", "run"): frozenset({"--spec", "--python"}),
    ("bundle", "exec"): frozenset(),
    ("conda", "run"): frozenset({"-n", "--name", "-p", "--prefix", "--cwd"}),
    ("mamba", "run"): frozenset({"-n", "--name", "-p", "--prefix", "--cwd"}),
    ("micromamba", "run"): frozenset({"-n", "--name", "-p", "--prefix", "--cwd"}),
    ("mise", "exec"): frozenset({"-C", "--cd"}),
    ("mise", "x"): frozenset({"-C", "--cd"}),
    ("asdf", "exec"): frozenset(),
    ("direnv", "exec"): frozenset(),
}
# Programs whose arguments include a shell command as one string: (program, option or index).
SHELL_STRING_ARGS: dict[str, tuple[str, ...]] = {
    "su": ("-c", "--command"),
    "flock": ("-c", "--command"),
    "script": ("-c", "--command"),
    "nix-shell": ("--run", "--command"),
    "watch": (),  # everything after the options is the command, joined
}

SHELLS = names("sh bash dash zsh ksh mksh ash fish csh tcsh busybox")
# Interpreters: name (or name prefix) -> the options whose value is inline code.
INTERPRETERS: dict[str, frozenset[str]] = {
    "python": frozenset({"-c"}),
    "pypy": frozenset({"-c"}),
    "node": frozenset({"-e", "--eval", "-p", "--print"}),
    "nodejs": frozenset({"-e", "--eval", "-p", "--print"}),
    "bun": frozenset({"-e", "--eval", "-p", "--print"}),
    "deno": frozenset(),  # `deno eval CODE`
    "perl": frozenset({"-e", "-E"}),
    "ruby": frozenset({"-e"}),
    "php": frozenset({"-r"}),
    "lua": frozenset({"-e"}),
    "luajit": frozenset({"-e"}),
    "rscript": frozenset({"-e"}),
    "osascript": frozenset({"-e"}),
    "pwsh": frozenset({"-c", "-command"}),
    "powershell": frozenset({"-c", "-command"}),
    "tclsh": frozenset(),
    "awk": frozenset(),  # the program is the first operand
    "gawk": frozenset(),
    "mawk": frozenset(),
    "nawk": frozenset(),
}
AWK = frozenset({"awk", "gawk", "mawk", "nawk"})

# Inline code (python -c, node -e, a heredoc fed to perl…), searched as text in any language.
CODE_DANGERS: tuple[tuple[str, str], ...] = (
    (
        r"\b(rmtree|remove|removedirs|unlink|rmdir|rm_rf|rm_r|remove_tree|rmSync|unlinkSync"
        r"|rmdirSync|Remove-Item)\b|\b(File|Dir|FileUtils)\.(delete|rm\w*)\b|\bfs\.(promises\.)?rm\b",
        "deletes files",
    ),
    (
        r"\b(urllib\d?|urlopen|requests|httpx|aiohttp|http\.client|socket|fetch|XMLHttpRequest"
        r"|WebSocket|Net::HTTP|open-uri|LWP|IO::Socket|HTTP::Tiny|Invoke-WebRequest"
        r"|Invoke-RestMethod|WebClient|curl|wget)\b|\bhttps?\.(get|request)\b|\bnet\.connect\b",
        "uses the network",
    ),
    (
        r"\b(subprocess|os\.system|os\.popen|os\.exec\w*|os\.spawn\w*|os\.fork|pty\.spawn"
        r"|child_process|execSync|execFile\w*|spawnSync|Start-Process|Runtime\.getRuntime"
        r"|IO\.popen|Process\.spawn|Kernel\.(exec|system|spawn)|qx)\b|\bsystem\s*\(|`"
        r"|\|\s*&?\s*getline|\|\s*\"",
        "starts other programs",
    ),
)
# Inline code that builds code at run time: what it does cannot be read from it.
CODE_UNKNOWN = (
    r"\b(eval|exec|__import__|importlib|getattr|b64decode|base64|codecs|marshal|pickle"
    r"|fromCharCode|atob|Function)\b"
)
SQL_CLIENTS = names(
    "psql mysql mariadb sqlite3 sqlite duckdb sqlcmd clickhouse-client clickhouse cqlsh "
    "snowsql bq mongosh mongo cockroach usql"
)
SQL_DANGERS = (
    r"\bdrop\s+(table|database|schema|index|view|user|role|collection)\b"
    r"|\btruncate\s+(table\s+)?[\w.\"`]+"
    r"|\bdelete\s+from\s+[\w.\"`\[\]]+\s*(;|$)"
    r"|\bupdate\s+[\w.\"`\[\]]+\s+set\b(?![^;]*\bwhere\b)"
    r"|\bdropDatabase\s*\("
)
# Variables that change what a program loads or runs: an assignment of one asks.
LOADER_VARIABLES = names(
    "LD_PRELOAD LD_AUDIT LD_LIBRARY_PATH DYLD_INSERT_LIBRARIES BASH_ENV ENV GIT_SSH "
    "GIT_SSH_COMMAND GIT_EXTERNAL_DIFF GIT_EXEC_PATH GIT_CONFIG_COUNT GIT_CONFIG_PARAMETERS "
    "GIT_PAGER GIT_EDITOR NODE_OPTIONS PERL5OPT RUBYOPT PROMPT_COMMAND PYTHONSTARTUP "
    "PYTHONINSPECT SHELLOPTS BASHOPTS IFS"
)
# git -c keys that run programs (as patterns over the lower-cased key).
GIT_PROGRAM_KEYS = (
    r"core\.(fsmonitor|hookspath|pager|editor|sshcommand|askpass|gitproxy)$",
    r"(diff|merge|filter)\..+\.(command|textconv|driver|clean|smudge|process)$",
    r"(diff\.external|sequence\.editor|credential\.helper|gpg\.program|gpg\..+\.program)$",
    r"alias\..+",
    r"include\.path$|includeif\..+",
    r"remote\..+\.(uploadpack|receivepack|proxy)$",
    r"uploadpack\..+|protocol\..*allow$|core\.sshcommand$|pager\..+",
)
# Programs whose subcommand "always allow" remembers with them: `git status`, `npm test`.
SUBCOMMAND_PROGRAMS = names(
    "git npm pnpm yarn bun npx cargo go dotnet docker podman kubectl pip pip3 uv poetry pdm "
    "hatch make just gradle mvn bundle rake mix swift deno brew apt apt-get conda gh "
    "terraform helm rustup composer dart flutter task nx turbo"
)
# `npm run build`: these subcommands name a script, remembered as a third word.
SCRIPT_SUBCOMMANDS = frozenset({"run", "run-script", "exec", "x", "dlx"})


def program_name(value: str) -> str:
    """``/usr/bin/RM`` and ``rm.exe`` are ``rm``; ``mkfs.ext4`` is ``mkfs``."""
    name = value.rstrip("/").rsplit("/", 1)[-1].lower().removesuffix(".exe")
    return "mkfs" if name.startswith("mkfs.") else name


def interpreter_of(name: str) -> str | None:
    """The INTERPRETERS key for ``python3.12``, ``pypy3``, ``node``…, or None."""
    if name in INTERPRETERS:
        return name
    for prefix in ("python", "pypy", "perl", "ruby", "php", "lua"):
        if name.startswith(prefix) and re.fullmatch(r"[\d.]*w?", name[len(prefix) :]):
            return prefix
    return None
