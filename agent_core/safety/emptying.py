"""Files emptied or overwritten in place: ``truncate -s 0 f``, ``cp /dev/null f``, ``dd of=f``,
``sed -i d f`` (and ``perl -i -ne ''``, ``awk -i inplace 'NR==0'``: ``inplace.py``),
``ln -sf /dev/null f``, local changes discarded (``git checkout -- f``, ``git restore f``);
and, in ``findings.py``, nothing redirected over a file (``: > f``, ``> f``, ``echo -n > f``,
and ``: > "$F"``, whose file is named only at run time).

Unlike ``dangerous.py``'s operations these are undone by ``/undo`` when the turn's checkpoint
was taken before the command ran and keeps the files as they are (not ignored, not too big):
the policy lets them run unasked (in ``full-access``, or when remembered) only then, and asks
otherwise. ``emptied_files`` names the files a row empties, for that check. Writes outside the
workspace ask anyway (``dangerous.write_danger``), and the sandbox keeps the rest out of reach.
"""

from __future__ import annotations

import re

from agent_core.safety.argv import Argv, Condition, Rule, arg, flag, names, operand, sub, unless
from agent_core.safety.emitted import EMPTY_SOURCES
from agent_core.safety.inplace import awk_edit, awk_empties, perl_edit, perl_empties
from agent_core.safety.shell import Word

_SHRINKS = re.compile(r"^(0+(\.0*)?[KMGTPEZY]?(i?B)?|[-<%/].*)$", re.IGNORECASE)
# A sed script that deletes every line: d (or D) with no address or one that matches all.
_SED_DELETES_ALL = re.compile(r"^\s*(1\s*,\s*\$|/\^?/|/\.\*/|/\$/|1~1|0~1)?\s*[dD]\s*;?\s*$")


def _truncates(argv: Argv) -> bool:
    """``truncate -s 0``, ``-s -10``, ``-s <5``, ``-s %2``, or ``-r REF`` (any size)."""
    sizes = _option_values(argv, "-s", "--size")
    return argv.has_flag(("-r", "--reference")) or any(
        v is None or _SHRINKS.match(v) for v in sizes
    )


def _option_values(argv: Argv, short: str, long: str) -> list[str | None]:
    found: list[str | None] = []
    words = list(argv.args)
    for index, word in enumerate(words):
        value = word.value
        if value is None:
            continue
        if value in (short, long) and index + 1 < len(words):
            found.append(words[index + 1].value)
        elif value.startswith(f"{long}="):
            found.append(value.split("=", 1)[1])
        elif value.startswith(short) and len(value) > len(short) and not value.startswith("--"):
            found.append(value[len(short) :])
    return found


def _copies_nothing(argv: Argv) -> bool:
    """An empty source copied over a file: ``cp /dev/null f``."""
    sources = argv.operands[:-1]
    return len(argv.operands) >= 2 and any(w.value in EMPTY_SOURCES for w in sources)


def _sed_scripts(argv: Argv) -> list[str]:
    scripts = [v or "" for v in _option_values(argv, "-e", "--expression")]
    if not scripts and argv.operands:
        scripts.append(argv.operands[0].value or "")
    return scripts


def _sed_empties(argv: Argv) -> bool:
    """``sed -i d f``, ``sed -i '1,$d' f``; or ``sed -n -i`` with nothing printed."""
    scripts = _sed_scripts(argv)
    if any(_SED_DELETES_ALL.match(s) for s in scripts):
        return True
    quiet = argv.has_flag(("-n", "--quiet", "--silent"))
    return quiet and not any("p" in s or "w" in s for s in scripts)


def _paths_after_tree(argv: Argv) -> bool:
    """``git checkout -- f``, ``git checkout HEAD~1 f``: paths, not a branch to switch to."""
    return any(w.value == "--" for w in argv.args) or len(argv.operands) >= 2


EMPTYING: tuple[Rule, ...] = (
    (("truncate",), Condition(_truncates, "-s 0"), "cuts a file short (truncate)"),
    (
        ("cp", "install", "rsync"),
        Condition(_copies_nothing, "/dev/null"),
        "copies an empty file over a file",
    ),
    (
        ("ln",),
        flag("-f", "--force") & operand(lambda v: v in EMPTY_SOURCES, "/dev/null"),
        "replaces a file with a link to /dev/null",
    ),
    (
        ("dd",),
        arg(lambda v: v.startswith("of=") and not v.startswith("of=/dev/"), "of=FILE"),
        "overwrites a file in place (dd)",
    ),
    (
        ("sed",),
        flag("-i", "--in-place") & Condition(_sed_empties, "d"),
        "deletes every line of a file in place",
    ),
    (("perl",), Condition(perl_empties, "-i -n"), "deletes every line of a file in place"),
    (
        ("awk", "gawk"),
        Condition(awk_empties, "-i inplace"),
        "deletes every line of a file in place",
    ),
    (
        ("git",),
        sub(
            "checkout",
            then=Condition(_paths_after_tree, "-- paths") & unless(*names("-b -B --orphan")),
        )
        | sub("restore", then=flag("-W", "--worktree") | unless("-S", "--staged")),
        "discards local changes to files",
    ),
)


# Options whose value is the next word, per program: not a file it empties.
_VALUED: dict[str, frozenset[str]] = {
    "truncate": frozenset({"-s", "--size", "-r", "--reference"}),
    "sed": frozenset({"-e", "--expression", "-f", "--file", "-l", "--line-length"}),
    "restore": frozenset({"-s", "--source", "--conflict"}),
    "checkout": frozenset({"--conflict"}),
}


def emptied_files(argv: Argv) -> tuple[str | None, ...]:
    """The files a row of ``EMPTYING`` empties, as the command names them; None for one only
    known at run time, or when the command does not name it (``xargs truncate -s 0``)."""
    found: list[Word] = []
    program = argv.program
    if program in ("truncate", "sed"):
        found = _plain(argv.args, _VALUED[program])
        scripts = _option_values(argv, "-e", "--expression") + _option_values(argv, "-f", "--file")
        if program == "sed" and not scripts:
            found = found[1:]  # the first word is the script
    elif program in ("cp", "install", "rsync", "ln"):
        operands = argv.operands
        named = len(operands) >= 2 and not argv.has_flag(("-t", "--target-directory"))
        found = list(operands[-1:]) if named else []
    elif program == "perl":
        found = list(perl_edit(argv).files)
    elif program in ("awk", "gawk"):
        found = list(awk_edit(argv)[2])
    elif program == "dd":
        found = [w for w in argv.operands if (w.value or "").startswith("of=")]
        found = [Word(w.source, (w.value or "").removeprefix("of=")) for w in found]
    elif program == "git" and argv.operands:
        verb, args = argv.operands[0].value or "", argv.args[1:]
        ends = [i for i, w in enumerate(args) if w.value == "--"]
        if ends:
            found = list(args[ends[0] + 1 :])
        else:
            words = _plain(args, _VALUED.get(verb, frozenset()))
            found = words if verb == "restore" else words[1:]  # checkout TREE paths
    return tuple(w.value for w in found) or (None,)


def _plain(args: tuple[Word, ...], valued: frozenset[str]) -> list[Word]:
    """The words that are neither options nor their values; all of them after ``--``."""
    plain: list[Word] = []
    skip, ended = False, False
    for word in args:
        value = word.value
        if skip:
            skip = False
        elif ended or value is None or value == "-" or not value.startswith("-"):
            plain.append(word)
        elif value == "--":
            ended = True
        else:
            skip = value in valued
    return plain
