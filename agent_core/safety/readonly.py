"""The commands that only read: in ``ask`` mode, a command line whose every part is one of
these runs without a question (still inside the sandbox).

Conditions exclude the flags that write, run programs or read from the network. A command with
a word known only at run time qualifies only when its condition is ALWAYS; one given by a path
outside the system's own folders (``./ls``) never does. A documented list: the README points
here.
"""

from __future__ import annotations

import re

from agent_core.safety.argv import ALWAYS, Argv, Condition, flag, names, no_flag, sub, words

GIT_READ_ONLY = names(
    "status diff log show blame shortlog describe rev-parse rev-list ls-files ls-tree cat-file "
    "show-ref for-each-ref name-rev merge-base grep diff-tree diff-files diff-index "
    "check-ignore count-objects whatchanged cherry range-diff version help"
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

# A sed script that only prints or substitutes: addresses with p, d, q or =, or s/…/…/ with
# the delimiter / and no w or e flag. Anything else (w, e, r, other delimiters) is not read-only.
_SED_ADDRESS = r"(\d+|\$|/[^/]*/)?(,(\d+|\$|/[^/]*/))?"
_SED_COMMAND = rf"{_SED_ADDRESS}\s*([pdq=]|s/[^/]*/[^/]*/[gIip0-9]*)"
_SED_PLAIN = re.compile(rf"\s*{_SED_COMMAND}\s*(;\s*{_SED_COMMAND}\s*)*;?\s*")


def _plain_sed(argv: Argv) -> bool:
    """sed that prints: no in-place editing, no script file, every script plain."""
    if argv.has_flag(("-i", "--in-place", "-f", "--file", "-s", "--separate")):
        return False
    scripts: list[str] = []
    args = list(argv.args)
    for index, word in enumerate(args):
        value = word.value or ""
        if value in ("-e", "--expression") and index + 1 < len(args):
            scripts.append(args[index + 1].value or "w")
        elif value.startswith("--expression=") or (value.startswith("-e") and len(value) > 2):
            scripts.append(value.split("=", 1)[1] if "=" in value else value[2:])
    if not scripts and argv.operands:
        scripts.append(argv.operands[0].value or "w")
    return bool(scripts) and all(_SED_PLAIN.fullmatch(s) for s in scripts)


READ_ONLY: dict[str, Condition] = {
    **dict.fromkeys(
        names(
            "ls dir vdir cat tac head tail less more wc nl cut tr rev fold paste join comm "
            "column expand unexpand grep egrep fgrep echo printf pwd cd pushd popd dirs true "
            "false : test [ [[ basename dirname realpath readlink stat file du df which whereis "
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
    "sed": Condition(_plain_sed, "prints only"),
    # git's own options before the subcommand (-c, -p…) are judged apart: see judge.py.
    "git": no_flag("--output", "--ext-diff", "--textconv", "--exec", "-O", "--open-files-in-pager")
    & _GIT_LISTING,
}
# Where the programs of the READ_ONLY table live; `./ls` is the workspace's own, not `ls`.
SYSTEM_BIN = ("/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/opt/homebrew/bin")
