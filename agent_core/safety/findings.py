"""What a command line was found to do.

``Findings`` only records, while ``judge.py`` walks the line: the dangers, the unknowns, the
files emptied in place, whether everything only read, what "always allow" would remember, and
what the line itself writes into files (so a script it writes and then runs is judged as the
code it is). ``Judgement`` is the frozen result.
"""

from __future__ import annotations

from collections.abc import Sequence

from msgspec import Struct, field

from agent_core.safety.emitted import emitted, stdin_text
from agent_core.safety.shell import SimpleCommand, Word

STDIN_NAMES = ("-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0")
TRUNCATING = (">", ">|", "&>", ">&")  # redirections that empty their file first


class Judgement(Struct, frozen=True):
    dangers: tuple[str, ...] = ()  # needs a human's eyes in every mode
    unknowns: tuple[str, ...] = ()  # cannot be read before it runs: asks in every mode too
    read_only: bool = True  # every part only reads
    prefixes: tuple[str, ...] = ()  # what "always allow" remembers: `git push`, `pytest`
    emptied: tuple[str, ...] = ()  # files emptied in place: /undo restores them from a checkpoint
    # The files it empties, relative to where it starts; None: one it does not name before it
    # runs (``truncate -s 0 "$F"``, ``cd x && : > f``): no checkpoint can vouch for it.
    emptied_files: tuple[str | None, ...] = ()

    @property
    def concern(self) -> str | None:
        """Why it asks in every mode, or None."""
        return self.concern_given(checkpoint=False)

    def concern_given(self, *, checkpoint: bool, not_kept: str | None = None) -> str | None:
        """Why it asks in every mode, or None; ``checkpoint``: the turn's checkpoint is taken
        before it runs and keeps every file it empties in place, so ``/undo`` restores them;
        ``not_kept``: why the checkpoint taken does not keep one (ignored, too large...)."""
        if self.dangers or self.unknowns:
            return (self.dangers or self.unknowns)[0]
        if self.emptied and not checkpoint:
            if not_kept is not None:
                return (
                    f"{self.emptied[0]}, and this turn's checkpoint cannot restore it: {not_kept}"
                )
            return f"{self.emptied[0]}, with no checkpoint of this turn to restore it from"
        return None


class Findings(Struct):
    dangers: list[str] = field(default_factory=list[str])
    unknowns: list[str] = field(default_factory=list[str])
    read_only: bool = True
    prefixes: list[str] = field(default_factory=list[str])
    downloads: set[str] = field(default_factory=set[str])  # files this line downloads
    emptied: list[str] = field(default_factory=list[str])
    emptied_files: list[str | None] = field(default_factory=list[str | None])
    moved: bool = False  # it changes directory (cd, git -C): the files it names are elsewhere
    # Files this line writes -> what it writes into them (None: known only at run time).
    scripts: dict[str, str | None] = field(default_factory=dict[str, str | None])

    def result(self) -> Judgement:
        return Judgement(
            tuple(self.dangers),
            tuple(self.unknowns),
            self.read_only,
            tuple(self.prefixes),
            tuple(self.emptied),
            (*self.emptied_files, None)
            if self.moved and self.emptied
            else tuple(self.emptied_files),
        )

    def danger(self, reason: str) -> None:
        self.read_only = False
        if reason not in self.dangers:
            self.dangers.append(reason)

    def unknown(self, reason: str) -> None:
        self.read_only = False
        if reason not in self.unknowns:
            self.unknowns.append(reason)

    def empties(self, reason: str, files: Sequence[str | None]) -> None:
        """It empties ``files`` in place (None: a file it does not name before it runs)."""
        self.read_only = False
        if reason not in self.emptied:
            self.emptied.append(reason)
        self.emptied_files += [f for f in files if f not in self.emptied_files]

    def downloaded(self, word: Word) -> bool:
        return word.text in self.downloads or word.text.lstrip("./") in self.downloads

    # What the line writes into files.

    def record_writes(self, command: SimpleCommand) -> None:
        """What ``command`` writes into files through its redirections (and ``tee``): kept,
        to judge a script the line then runs; nothing written over a file empties it."""
        content = emitted(command)
        targets = [(r.target, r.operator) for r in command.redirects if r.writes and r.target]
        if command.program is not None and command.program.value == "tee":
            content = stdin_text(command)
            append = any(w.value in ("-a", "--append") for w in command.words[1:])
            operator = ">>" if append else ">"
            targets += [(w, operator) for w in command.words[1:] if w.text[:1] != "-"]
        for target, operator in targets:
            if target.value is None:  # named only at run time: no checkpoint can vouch for it
                if operator in TRUNCATING and content is not None and not content.strip():
                    self.empties(f"it empties {target.source} (writes nothing over it)", [None])
                continue
            key = path_key(target.value)
            if operator not in TRUNCATING:
                before = self.scripts.get(key, "")
                self.scripts[key] = None if before is None or content is None else before + content
                continue
            self.scripts[key] = content
            if content is not None and not content.strip():
                self.empties(f"it empties {target.value} (writes nothing over it)", [target.value])

    def written_input(self, command: SimpleCommand) -> Word | None:
        """The file ``command`` reads on stdin (``< x.sh``), when this line writes it."""
        for redirect in command.redirects:
            target = redirect.target
            value = target.value if target is not None else None
            if redirect.operator == "<" and value is not None and path_key(value) in self.scripts:
                return target
        return None


def path_key(path: str) -> str:
    """A path as the line's own writes are kept: ``./x.sh`` is ``x.sh``."""
    while path.startswith("./"):
        path = path[2:]
    return path
