"""The dangerous operations: what asks in every mode, ``full-access`` included.

One table of (programs, condition, reason), read over each simple command of a line after its
wrappers are unwrapped (``judge.py``); a condition is read over the normalised arguments (flags
in any order and spelling, see ``argv.py``). Beside it: the variables whose assignment asks,
git's ``-c`` options that run programs, credential reads, and writes that reach beyond the
workspace. A false alarm costs one click; a miss costs what the sandbox lets through.
"""

from __future__ import annotations

import fnmatch
import os
import re

from agent_core.safety.argv import (
    ALWAYS,
    Argv,
    Condition,
    Rule,
    arg,
    by_program,
    flag,
    names,
    operand,
    sub,
    unless,
    words,
)
from agent_core.safety.network import LOCAL_URL, NETWORK_RULES
from agent_core.safety.paths import (
    CREDENTIAL_STORES,
    PROTECTED_NAMES,
    PROTECTED_PREFIX,
    SHELL_STARTUP_FILES,
    is_system_path,
)
from agent_core.safety.teardown import TEARDOWN_RULES


def _disk(value: str) -> bool:
    return bool(re.match(r"(of=)?/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|loop|mapper/|md|sr)", value))


def _everyone(value: str) -> bool:
    return value == "-1"


def _everything(value: str) -> bool:
    """A pathspec for the whole tree: ``.``, ``./``, ``*``, ``:/``."""
    return value.rstrip("/") in (".", "*", ":", "") or value in (":/", ":(top)", ":/*")


def _force_or_delete_refspec(value: str) -> bool:
    return value.startswith(("+", ":")) and len(value) > 1


def _mounts_root(argv: Argv) -> bool:
    """A volume of the host's root: ``-v /:/host``, ``--mount type=bind,source=/,…``. A word
    known only at run time might be one, unless it starts from the working directory."""
    for word in argv.args:
        if word.value is None:
            here = word.source.lstrip('"').startswith(("$PWD", "${PWD}", "$(pwd)"))
            if argv.wild and not here:
                return True
        elif word.value.startswith(("/:", "--volume=/:", "-v/:")) or "source=/," in word.value:
            return True
    return False


def _runs_program(value: str) -> bool:
    return value.lower().startswith(("exec:", "system:"))


def _uploads_elsewhere(argv: Argv) -> bool:
    """curl sends a local file (``-d @file``, ``-F f=@file``, ``-T file``) to a host that is not
    this machine, or to one known only at run time."""
    sends = argv.has_flag(("-T", "--upload-file")) or argv.any_arg(
        lambda v: v.startswith("@") or "=@" in v or "=<" in v
    )
    urls = [w for w in argv.operands if w.value is None or "://" in w.value]
    return sends and (
        not urls or any(w.value is None or not LOCAL_URL.match(w.value) for w in urls)
    )


_CONFIG_WRITES = names(
    "--unset --unset-all --add --replace-all --rename-section --remove-section -e --edit"
)
_PASS_COMMANDS = names(
    "ls list find search init insert add generate edit rm mv cp git help version grep"
)


def _shows_password(argv: Argv) -> bool:
    first = argv.operand(0)
    return first is not None and (first.value is None or first.value not in _PASS_COMMANDS)


_OPERATIONS: tuple[Rule, ...] = (
    # Deletes of any kind.
    (("rm", "rmdir", "unlink", "shred", "srm", "wipe"), ALWAYS, "deletes files"),
    (("trash", "trash-put", "rimraf", "del", "del-cli"), ALWAYS, "deletes files"),
    (("gio",), sub("trash", "remove", "rm"), "deletes files"),
    (("find",), flag("-delete"), "deletes files (-delete)"),
    (
        ("rsync",),
        arg(lambda v: v.startswith(("--del", "--remove-source")), "--delete"),
        "deletes files",
    ),
    (("tar",), flag("--remove-files"), "deletes files (--remove-files)"),
    (("zip",), flag("-m", "--move"), "deletes files (moves them into the archive)"),
    (("cmake",), flag("-E") & sub("rm", "remove", "remove_directory"), "deletes files"),
    (("mv",), operand(lambda v: v == "/dev/null", "/dev/null"), "deletes files (into /dev/null)"),
    (("dropdb", "dropuser"), ALWAYS, "drops a database"),
    (("git",), sub("rm"), "deletes files"),
    (("git",), sub("clean", then=unless("-n", "--dry-run")), "deletes untracked files"),
    (("git",), sub("worktree", then=words("remove") | words("prune")), "deletes a worktree"),
    # Git: force, mirror and delete pushes; discarded work; history rewrites; configuration.
    (
        ("git",),
        sub(
            "push",
            then=flag(
                *names(
                    "-f --force --force-with-lease --force-if-includes --mirror -d --delete --prune"
                )
            )
            | operand(_force_or_delete_refspec, "+ref or :ref"),
        )
        | sub("send-pack", then=flag("-f", "--force", "--mirror")),
        "overwrites or deletes remote history (force, mirror or delete)",
    ),
    (("git",), sub("reset", then=flag("--hard", "--merge", "--keep")), "discards uncommitted work"),
    (
        ("git",),
        sub("checkout", then=flag("-f", "--force") | operand(_everything, "."))
        | sub(
            "restore",
            then=(flag("-W", "--worktree") | unless("-S", "--staged")) & operand(_everything, "."),
        )
        | sub("switch", then=flag("-f", "--force", "--discard-changes"))
        | sub("read-tree", then=flag("-u", "--reset"))
        | sub("checkout-index", then=flag("-f", "--force")),
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
            | flag(*_CONFIG_WRITES),
        ),
        "changes git's configuration",
    ),
    (("git-filter-repo",), ALWAYS, "rewrites history"),
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
    (("fuser",), flag("-k", "--kill"), "kills the processes using a file"),
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
    (
        ("git",),
        sub("credential", "credential-cache", "credential-store"),
        "reads stored credentials",
    ),
    (
        ("gh",),
        words("auth", "token") | (words("auth", "status") & flag("-t", "--show-token")),
        "prints a credential",
    ),
    (
        ("gcloud",),
        arg(lambda v: v.startswith("print-") and "token" in v, "print-*-token"),
        "prints a credential",
    ),
    (("az",), words("account", "get-access-token"), "prints a credential"),
    (
        ("aws",),
        words("configure", "get") | words("configure", "export-credentials"),
        "prints a credential",
    ),
    (
        ("kubectl", "oc", "kubecolor"),
        words("config", "view") & flag("--raw"),
        "prints cluster credentials",
    ),
    (("op",), sub("read", "item", "inject"), "reads a password manager"),
    (("pass",), sub("show") | Condition(_shows_password, "an entry"), "reads a password manager"),
    (("secret-tool",), sub("lookup", "search"), "reads the keyring"),
    # Data leaving the machine, and publishing.
    (("curl",), Condition(_uploads_elsewhere, "@file"), "uploads a local file"),
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
    (("yarn",), words("npm", "publish"), "publishes a package"),
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
        | words("system", "reset")
        | words("volume", "rm")
        | words("volume", "prune")
        | words("container", "prune")
        | words("image", "prune")
        | sub("rm", "rmi"),
        "deletes containers, images or volumes",
    ),
    (
        ("docker", "podman"),
        sub(
            "run",
            "create",
            then=flag("--privileged", "--pid", "--net", "--network")
            | Condition(_mounts_root, "-v /:"),
        ),
        "gives a container the machine (privileged, the host's root or namespaces)",
    ),
    (("kubectl", "oc", "kubecolor"), sub("delete", "drain"), "deletes cluster resources"),
    (("helm",), sub("uninstall", "delete"), "deletes cluster resources"),
    (
        ("terraform", "tofu", "terragrunt", "pulumi"),
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

DANGEROUS: tuple[Rule, ...] = _OPERATIONS + NETWORK_RULES + TEARDOWN_RULES


DANGEROUS_BY_PROGRAM = by_program(DANGEROUS)

# Variables that change what a program loads or runs: setting one asks.
LOADER_VARIABLES = names(
    "LD_PRELOAD LD_AUDIT LD_LIBRARY_PATH DYLD_INSERT_LIBRARIES BASH_ENV ENV PROMPT_COMMAND "
    "SHELLOPTS BASHOPTS IFS PATH NODE_OPTIONS NODE_PATH PERL5OPT PERL5LIB RUBYOPT RUBYLIB "
    "PYTHONPATH PYTHONSTARTUP PYTHONINSPECT GIT_SSH GIT_SSH_COMMAND GIT_EXTERNAL_DIFF "
    "GIT_EXEC_PATH GIT_CONFIG GIT_CONFIG_COUNT GIT_CONFIG_PARAMETERS GIT_CONFIG_GLOBAL "
    "GIT_CONFIG_SYSTEM GIT_DIR GIT_WORK_TREE GIT_TEMPLATE_DIR GIT_ASKPASS SSH_ASKPASS "
    "GIT_PROXY_COMMAND GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_PAGER GIT_EDITOR"
)
# git -c keys (lower-cased) that run programs, or change what a push or a clean does.
GIT_RISKY_KEYS = re.compile(
    r"core\.(fsmonitor|hookspath|pager|editor|sshcommand|askpass|gitproxy|alternaterefscommand)$"
    r"|(diff|merge|filter)\..+\.(command|textconv|driver|clean|smudge|process)$"
    r"|diff\.external$|sequence\.editor$|credential\..*helper$|gpg\.(.+\.)?program$"
    r"|gpg\.ssh\.defaultkeycommand$|trailer\..+\.(command|cmd)$|alias\..+|include\.path$"
    r"|includeif\..+|uploadpack\..+|protocol\..*allow$|pager\..+"
    r"|remote\..+\.(uploadpack|receivepack|proxy|mirror|url|pushurl|push)$|push\..+"
    r"|clean\.requireforce$"
)

_CREDENTIALS = re.compile(
    "|".join(
        [rf"(^|[/~]){re.escape(store)}($|/)" for store in CREDENTIAL_STORES]
        + [
            r"\bid_(rsa|dsa|ecdsa|ed25519)\b",
            r"/etc/(shadow|gshadow|sudoers)\b",
            r"/proc/\S*environ\b",
            r"(^|[/~])\.heron/config\.toml\b",
        ]
    )
)
# What a glob in a command could match, to see a credential through `~/.ss*/id_*`.
_CREDENTIAL_FILES = (
    *(f"~/{store}{tail}" for store in CREDENTIAL_STORES for tail in ("", "/id_rsa", "/config")),
    "/proc/1/environ",
    "/etc/shadow",
)


def reads_credentials(text: str) -> bool:
    """``text`` (a word as written) names a credential store, plainly or by a pattern."""
    if _CREDENTIALS.search(text):
        return True
    if any(c in text for c in "*?["):
        pattern = text.replace("$HOME/", "~/").replace("${HOME}/", "~/")
        return any(fnmatch.fnmatchcase(candidate, pattern) for candidate in _CREDENTIAL_FILES)
    return False


_STARTUP = re.compile("|".join(rf"(^|/){re.escape(name)}$" for name in SHELL_STARTUP_FILES))
_DEVICE = re.compile(r"^/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|loop|mapper/|md|sr|mem|kmem|port)")


def network_device(path: str) -> bool:
    return path.startswith(("/dev/tcp/", "/dev/udp/"))


def write_danger(path: str) -> str | None:
    """Why writing to ``path`` (as written in the command) needs a question, or None."""
    normal = os.path.normpath(path) if path.startswith("/") else path
    if network_device(normal):
        return f"it opens a network connection ({path})"
    if _DEVICE.match(normal):
        return f"it writes raw to a disk device ({path})"
    if is_system_path(normal):
        return f"it writes to a system path ({path})"
    if _STARTUP.search(normal):
        return f"it changes a start-up file that runs programs ({path})"
    parts = [p.lower() for p in normal.split("/") if p]
    if any(p in PROTECTED_NAMES for p in parts) or (
        parts and parts[-1].startswith(PROTECTED_PREFIX)
    ):
        return f"it changes a protected path ({path})"
    return None
