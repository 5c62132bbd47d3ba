"""SQL that destroys data, read as statements rather than matched as a phrase: ``DROP`` and
``TRUNCATE`` of anything, ``ALTER TABLE … DROP``, and ``DELETE`` or ``UPDATE`` whose ``WHERE``
restricts nothing (none at all, or one that is always true: ``WHERE 1=1``, ``WHERE true``,
``WHERE id = id OR 1``), in any case, spacing, line breaks or comments, and a few document
stores' equivalents (``db.users.drop()``, ``deleteMany({})``).

The text is normalised first: comments become spaces, ``\\n``-style escapes too (a client given
``"DROP\\nTABLE"`` may well see a line break), whitespace collapses, case folds. String literals
are kept whole, so a ``;`` or a ``WHERE`` inside one neither splits nor restricts.
"""

from __future__ import annotations

import re

_COMMENTS = re.compile(r"--[^\n]*|/\*.*?\*/|#[^\n]*", re.DOTALL)
_ESCAPES = re.compile(r"\\[ntr]")
_STRINGS = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"")
_DROPS = re.compile(
    r"\bdrop\s+(table|database|schema|index|view|materialized\s+view|user|role|collection"
    r"|sequence|function|procedure|trigger|keyspace|owned|type|extension|tablespace)\b"
    r"|\btruncate\s+(table\s+)?[\w.\"`\[]|\balter\s+table\s+\S+\s+drop\b"
    r"|\bdropdatabase\s*\(|\.drop\s*\(\s*\)|\.(deletemany|remove)\s*\(\s*(\{\s*\})?\s*\)"
    r"|\bflushall\b|\bflushdb\b"
)
_CHANGES = re.compile(r"^(with\b.*?\)\s*)?(delete\b|update\s+\S+(\s+\w+)?\s+set\b)")
_NESTED = re.compile(r"\(\s*(delete\b|update\s+\S+(\s+\w+)?\s+set\b)")
_WHERE = re.compile(r"\bwhere\b(.*)$")
_TAIL = re.compile(r"\b(returning|order\s+by|limit|option)\b.*$")
_TOKENS = re.compile(r"'[^']*'|\"[^\"]*\"|[a-z_][\w.$]*|\d+(?:\.\d+)?|[<>=!]+|\S")
_CONSTANTS = frozenset({"true", "false", "null", "not", "and", "is", "like", "in", "between"})


def destroys_data(text: str, *, embedded: bool = False) -> bool:
    """``text`` holds a statement that drops, truncates, or deletes or updates every row.
    ``embedded``: ``text`` is a program whose string literals may hold SQL (``python -c``)."""
    statements = _statements(_normal(text))
    if embedded:
        for match in _STRINGS.finditer(text):
            statements += _statements(_normal(match.group()[1:-1]))
    return any(_DROPS.search(s) or _unrestricted_change(s) for s in statements)


def _normal(text: str) -> str:
    kept: list[str] = []
    position = 0
    for match in _STRINGS.finditer(text):  # comments and escapes outside strings only
        kept.append(_plain(text[position : match.start()]))
        kept.append("'s'")  # a string's content never restricts or splits
        position = match.end()
    kept.append(_plain(text[position:]))
    return "".join(kept)


def _plain(text: str) -> str:
    text = _ESCAPES.sub(" ", _COMMENTS.sub(" ", text))
    return " ".join(text.split()).lower()


def _statements(text: str) -> list[str]:
    return [s.strip() for s in text.split(";") if s.strip()]


def _unrestricted_change(statement: str) -> bool:
    """A ``DELETE`` or ``UPDATE`` of every row: the statement itself, or one inside a ``WITH``
    (``with x as (delete from users returning *) select 1``) or another parenthesis."""
    if any(_unrestricted(inner) for inner in _nested_changes(statement)):
        return True
    return _unrestricted(statement)


def _nested_changes(statement: str) -> list[str]:
    """The data-changing statements in parentheses, each up to its closing one."""
    found: list[str] = []
    for match in _NESTED.finditer(statement):
        depth, start = 0, match.end() - len(match.group(1))
        for index in range(start, len(statement)):
            char = statement[index]
            depth += (char == "(") - (char == ")")
            if depth < 0:
                found.append(statement[start:index])
                break
        else:
            found.append(statement[start:])
    return found


def _unrestricted(statement: str) -> bool:
    if not _CHANGES.search(statement):
        return False
    where = _WHERE.search(statement)
    if where is None:
        return True
    condition = _TAIL.sub("", where.group(1))
    return any(_always_true(part) for part in re.split(r"\bor\b", condition))


def _always_true(condition: str) -> bool:
    """A condition that names no column (``1=1``, ``true``, ``'a'='a'``), or compares a name
    with itself (``id = id``), restricts nothing."""
    tokens = [t for t in _TOKENS.findall(condition) if t not in "()"]
    names = [t for t in tokens if t[0].isalpha() or t[0] == "_"]
    if all(n in _CONSTANTS for n in names):
        return True
    conjuncts = re.split(r"\band\b", condition)
    return all(_same_sides(c) or not _names_in(c) for c in conjuncts)


def _same_sides(condition: str) -> bool:
    sides = re.split(r"\s*(?:=|<=|>=|\bis\b)\s*", condition.strip(" ()"))
    return len(sides) == 2 and sides[0] == sides[1] and bool(sides[0])


def _names_in(condition: str) -> bool:
    tokens = _TOKENS.findall(condition)
    return any((t[0].isalpha() or t[0] == "_") and t not in _CONSTANTS for t in tokens)
