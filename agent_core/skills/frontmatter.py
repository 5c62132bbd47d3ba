"""The YAML front matter of a ``SKILL.md``, read without a YAML library.

A skill's head is a few top-level string keys between two ``---`` lines: ``name`` and
``description``, sometimes ``license``, ``allowed-tools`` or ``metadata``. This reads the part of
YAML such heads are written in: plain scalars (continued on indented lines), single- and
double-quoted scalars, literal and folded block scalars (``|``, ``>``, with ``-`` or ``+``), and
comments. Lists and nested maps are passed over, so a head with keys Heron does not use still
loads. It is lenient where YAML is strict for no reader's benefit (a ``: `` inside a plain
description); a head it cannot read raises ``FrontMatterError`` saying which line.
"""

from __future__ import annotations

import re

KEY = re.compile(r"^([A-Za-z_][\w.-]*)\s*:(?:[ \t]+(.*))?$")
BLOCK_HEADER = re.compile(r"^([|>])([+-]?)([1-9]?)([+-]?)\s*(?:#.*)?$")
ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", '"': '"', "\\": "\\", "/": "/", " ": " "}


class FrontMatterError(ValueError):
    """The head of a ``SKILL.md`` cannot be read; the message names the line."""


def split_front_matter(text: str) -> tuple[dict[str, str], str]:
    """The head's top-level string keys and the text after it. Without a head: ``({}, text)``.
    A key whose value is a list, a map or empty is left out."""
    lines = text.removeprefix("\ufeff").splitlines()
    if not lines or lines[0].rstrip() != "---":
        return {}, text
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if end is None:
        raise FrontMatterError("the front matter has no closing '---' line")
    return _mapping(lines[1:end]), "\n".join(lines[end + 1 :]).strip()


def _mapping(lines: list[str]) -> dict[str, str]:
    fields: dict[str, str] = {}
    i = 0
    while i < len(lines):
        line, number = lines[i], i + 2  # the file's line number: after the opening ---
        if not line.strip() or line.lstrip().startswith("#"):
            i += 1
            continue
        match = KEY.match(line)
        if match is None:
            raise FrontMatterError(f"line {number} is not 'key: value': {line.strip()[:60]!r}")
        key, rest = match.group(1), (match.group(2) or "").strip()
        if key in fields:
            raise FrontMatterError(f"line {number}: {key!r} is given twice")
        end = i + 1  # the lines that belong to this key: indented, or a list's items
        while end < len(lines) and _continues(lines[end], list_items=not rest):
            end += 1
        try:
            value = _value(rest, lines[i + 1 : end])
        except FrontMatterError as exc:
            raise FrontMatterError(f"line {number} ({key}): {exc}") from None
        if value is not None:
            fields[key] = value
        i = end
    return fields


def _continues(line: str, *, list_items: bool) -> bool:
    return not line.strip() or line[0] in " \t" or (list_items and line.startswith("-"))


def _value(rest: str, block: list[str]) -> str | None:
    if not rest or rest[0] in "#[{&*!":  # empty, nested, a flow collection, a tag: not a string
        return None
    if header := BLOCK_HEADER.match(rest):
        return _block_scalar(header.group(1), header.group(2) + header.group(4), block)
    text = " ".join([rest, *(line.strip() for line in block if line.strip())])
    if rest[0] == '"':
        return _double_quoted(text)
    if rest[0] == "'":
        return _single_quoted(text)
    return re.sub(r"\s+#.*$", "", text).strip()  # a plain scalar, its comment dropped


def _block_scalar(style: str, chomping: str, block: list[str]) -> str:
    content = [line for line in block if line.strip()]
    indent = min((len(line) - len(line.lstrip(" ")) for line in content), default=0)
    lines = [line[indent:] for line in block]
    if style == "|":
        text = "\n".join(lines)
    else:  # folded: lines of a paragraph joined by spaces, blank lines kept as breaks
        paragraphs = "\n".join(lines).split("\n\n")
        text = "\n".join(" ".join(p.split("\n")) for p in paragraphs)
    if chomping == "+":
        return text + "\n"
    return text.rstrip("\n") + ("" if chomping == "-" else "\n")


def _double_quoted(text: str) -> str:
    out: list[str] = []
    i = 1
    while i < len(text):
        char = text[i]
        if char == '"':
            _only_comment_after(text[i + 1 :])
            return "".join(out)
        if char == "\\" and i + 1 < len(text):
            code = text[i + 1]
            if code == "u" and re.fullmatch(r"[0-9A-Fa-f]{4}", text[i + 2 : i + 6]):
                out.append(chr(int(text[i + 2 : i + 6], 16)))
                i += 6
                continue
            out.append(ESCAPES.get(code, "\\" + code))
            i += 2
            continue
        out.append(char)
        i += 1
    raise FrontMatterError('a double-quoted value has no closing "')


def _single_quoted(text: str) -> str:
    match = re.match(r"'((?:[^']|'')*)'(.*)$", text)
    if match is None:
        raise FrontMatterError("a single-quoted value has no closing '")
    _only_comment_after(match.group(2))
    return match.group(1).replace("''", "'")


def _only_comment_after(tail: str) -> None:
    if tail.strip() and not tail.strip().startswith("#"):
        raise FrontMatterError(f"unexpected text after a quoted value: {tail.strip()[:40]!r}")
