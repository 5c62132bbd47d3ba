"""One program's arguments, normalised, and the small vocabulary the rule tables are written in.

Normalised means: flags are found wherever they stand (``rm x -rf`` is ``rm -r -f x``, as GNU
getopt reads it) up to ``--``; short flags are split out of bundles (``-rf``); a long flag
matches its abbreviations (``--forc`` is ``--force``, as git and getopt_long accept); values
after ``=`` are dropped (``--force=true`` is ``--force``).

A word whose value is only known at run time (``$flag``, ``$(...)``) is *wild*: it might be any
flag or operand. ``matches`` asks whether a condition holds for the words as they are;
``could_match`` whether it could hold for some value of the wild ones.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cached_property

from msgspec import Struct

from agent_core.safety.grammar import WILD
from agent_core.safety.shell import Word

MIN_ABBREVIATION = 1  # getopt_long takes any unambiguous prefix: "--i" may well be --in-place


class Argv(Struct, frozen=True, dict=True):  # dict: for its cached properties
    program: str  # its base name, lower-cased: "/usr/bin/RM" is "rm"
    args: tuple[Word, ...]
    wild: bool = False  # evaluate as if every run-time word could be anything

    @cached_property
    def _split(self) -> tuple[frozenset[str], tuple[Word, ...], bool]:
        flags: set[str] = set()
        operands: list[Word] = []
        has_wild_flag = False
        options_ended = False
        for word in self.args:
            value = word.value
            if value is None:
                operands.append(word)
                has_wild_flag = has_wild_flag or (not options_ended and _could_be_flag(word))
            elif options_ended or value in ("-", "") or not value.startswith("-"):
                operands.append(word)
            elif value == "--":
                options_ended = True
            elif value.startswith("--"):
                flags.add(value.split("=", 1)[0])
            else:  # -rf is -r -f; -n=prod (a value merged by grammar.py) is -n
                head = value.split("=", 1)[0]
                flags.add(head)
                for letter in head[1:]:
                    flags.add("-" + letter)
        return frozenset(flags), tuple(operands), has_wild_flag

    @cached_property
    def tame(self) -> Argv:
        """The same words, with run-time words taken as they are (for ``matches``)."""
        return self if not self.wild else Argv(self.program, self.args)

    @cached_property
    def wilder(self) -> Argv:
        """The same words, a run-time word standing for anything (for ``could_match``)."""
        return self if self.wild else Argv(self.program, self.args, wild=True)

    @property
    def flags(self) -> frozenset[str]:
        return self._split[0]

    @property
    def operands(self) -> tuple[Word, ...]:
        return self._split[1]

    @property
    def literal(self) -> bool:
        return all(word.literal for word in self.args)

    def has_flag(self, names: Iterable[str]) -> bool:
        names = tuple(names)
        if self.wild and self._split[2]:
            return True
        for flag in self.flags:
            if flag in names:
                return True
            abbreviation = flag.startswith("--") and len(flag) - 2 >= MIN_ABBREVIATION
            if abbreviation and any(n.startswith(flag) for n in names if n.startswith("--")):
                return True
        return False

    def any_operand(self, test: Callable[[str], bool]) -> bool:
        return any(
            (w.value is None and self.wild) or (w.value is not None and test(w.value))
            for w in self.operands
        )

    def any_arg(self, test: Callable[[str], bool]) -> bool:
        return any(
            (w.value is None and self.wild) or (w.value is not None and test(w.value))
            for w in self.args
        )

    def values(self, names: Iterable[str]) -> list[str | None]:
        """The values given to these options as ``--opt=value`` (``grammar.normal_args`` writes
        ``-X DELETE`` and ``-XDELETE`` so); None for a value known only at run time."""
        names = tuple(names)
        found: list[str | None] = []
        for word in self.args:
            if word.value is None or not word.value.startswith("-") or "=" not in word.value:
                continue
            option, _, value = word.value.partition("=")
            if option in names:
                found.append(None if value == WILD else value)
        return found

    def any_value(self, names: Iterable[str], test: Callable[[str], bool]) -> bool:
        """Some value given to these options passes ``test`` (a run-time one might)."""
        return any(
            (v is None and self.wild) or (v is not None and test(v)) for v in self.values(names)
        )

    def operand(self, index: int) -> Word | None:
        return self.operands[index] if index < len(self.operands) else None

    def words_start(self, names: tuple[str, ...]) -> bool:
        """The first operands are ``names`` (``system prune``), as far as they are known."""
        for index, name in enumerate(names):
            word = self.operand(index)
            if word is None:
                return False
            if word.value is None:
                return self.wild
            if word.value.lower() != name:
                return False
        return True

    def after(self, count: int) -> Argv:
        """The arguments after the first ``count`` operands (a subcommand's own)."""
        seen, rest = 0, list(self.args)
        while rest and seen < count:
            word = rest.pop(0)
            if word.value is None or not word.value.startswith("-"):
                seen += 1
        return Argv(self.program, tuple(rest), self.wild)


def _could_be_flag(word: Word) -> bool:
    """Whether a word known only at run time might start with a dash: ``$x`` might,
    ``"$PWD"/src`` and ``name-$v`` cannot."""
    source = word.source.lstrip("\"'")
    if source.startswith(("$PWD", "${PWD}", "$(pwd)", "$HOME", "${HOME}", "~")):
        return False
    return source.startswith(("-", "$", "`"))


class Condition(Struct, frozen=True):
    """A test over an ``Argv``; combine with ``&`` and ``|``. Every test here is monotone (a
    wild word can only make it truer), which is what makes ``could_match`` sound."""

    test: Callable[[Argv], bool]
    about: str = ""

    def __and__(self, other: Condition) -> Condition:
        return Condition(
            lambda a: self.test(a) and other.test(a), f"{self.about} and {other.about}"
        )

    def __or__(self, other: Condition) -> Condition:
        return Condition(lambda a: self.test(a) or other.test(a), f"{self.about} or {other.about}")

    def matches(self, argv: Argv) -> bool:
        return self.test(argv.tame)

    def could_match(self, argv: Argv) -> bool:
        return self.test(argv.wilder)


ALWAYS = Condition(lambda a: True, "always")
Rule = tuple[tuple[str, ...], Condition, str]  # a table's row: programs, when, what it does


def by_program(rules: tuple[Rule, ...]) -> dict[str, tuple[Rule, ...]]:
    """The rows that name each program, so a command is read against its own rows only."""
    index: dict[str, list[Rule]] = {}
    for rule in rules:
        for program in rule[0]:
            index.setdefault(program, []).append(rule)
    return {program: tuple(rows) for program, rows in index.items()}


def names(text: str) -> frozenset[str]:
    """A set of names written as one string, for tables that read better that way."""
    return frozenset(text.split())


def flag(*names: str) -> Condition:
    """Any of these flags (``-r``, ``--recursive``) is given."""
    return Condition(lambda a: a.has_flag(names), " ".join(names))


def sub(*names: str, then: Condition = ALWAYS) -> Condition:
    """The first operand is one of ``names`` (a subcommand), and ``then`` holds for the rest."""

    def test(argv: Argv) -> bool:
        word = argv.operand(0)
        if word is None:
            return False
        named = argv.wild if word.value is None else word.value.lower() in names
        return named and then.test(argv.after(1))

    return Condition(test, "/".join(names))


def words(*names: str) -> Condition:
    """The first operands are exactly ``names`` (``system prune``)."""
    return Condition(lambda a: a.words_start(names), " ".join(names))


def operand(test: Callable[[str], bool], about: str) -> Condition:
    """Some operand passes ``test``."""
    return Condition(lambda a: a.any_operand(test), about)


def arg(test: Callable[[str], bool], about: str) -> Condition:
    """Some argument, flag or operand, passes ``test``."""
    return Condition(lambda a: a.any_arg(test), about)


def unless(*names: str) -> Condition:
    """True unless one of these flags is given in so many words (``git clean -n``): a word
    known only at run time never counts as one, which keeps the condition monotone."""
    return Condition(lambda a: not Argv(a.program, a.args).has_flag(names), f"no {names}")


def no_flag(*names: str) -> Condition:
    """None of these flags is given, as far as the literal words tell. Not monotone: for the
    read-only table only, which is consulted only when every word is literal."""
    return Condition(lambda a: not a.has_flag(names), f"no {' '.join(names)}")


def valued(names: tuple[str, ...], test: Callable[[str], bool], about: str) -> Condition:
    """Some value given to these options (``-X DELETE``, ``--method=PUT``) passes ``test``."""
    return Condition(lambda a: a.any_value(names, test), about)
