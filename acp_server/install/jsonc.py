"""JSON with comments (Zed's and VS Code's settings files): read it, and set one entry in it
without disturbing anything else: comments, order, formatting and trailing commas stay.

``parse`` builds a small tree of spans over the original text; ``set_member`` splices the new
value into the text at the right place. Pure functions on strings.
"""

from __future__ import annotations

import json
import re
from typing import Any, cast

from msgspec import Struct, field

TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<line_comment>//[^\n]*)
  | (?P<block_comment>/\*.*?\*/)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<punct>[{}\[\]:,])
  | (?P<literal>-?[0-9][0-9.eE+-]*|true|false|null)
""",
    re.VERBOSE | re.DOTALL,
)


class JsoncError(ValueError):
    """The text is not JSON with comments; says where."""


class Node(Struct):
    start: int  # offset of the value's first character
    end: int  # offset just past its last character
    members: dict[str, tuple[int, Node]] = field(default_factory=dict[str, "tuple[int, Node]"])
    is_object: bool = False  # members: key -> (offset of the key's opening quote, value)


class _Token(Struct, frozen=True):
    kind: str
    text: str
    start: int


def loads(text: str) -> Any:
    """The value, comments and trailing commas allowed (an empty file is an empty object)."""
    tokens = _tokens(text)
    if not tokens:
        return {}
    parser = _Parser(text, tokens)
    return parser.value_of(parser.parse())


def member(value: Any, path: tuple[str, ...]) -> Any:
    """``value[path[0]][path[1]]...``, or None where the path leads nowhere."""
    for key in path:
        value = cast(dict[str, Any], value).get(key) if isinstance(value, dict) else None
    return value


def parse(text: str) -> Node:
    """The tree of spans; the top level must be an object (empty text counts as one)."""
    tokens = _tokens(text)
    if not tokens:
        return Node(0, 0, is_object=True)
    root = _Parser(text, tokens).parse()
    if not root.is_object:
        raise JsoncError("the settings file must hold a JSON object")
    return root


def set_member(text: str, path: tuple[str, ...], value: Any) -> str:
    """``text`` with ``value`` at ``path`` (object keys), creating objects on the way."""
    if not text.strip():
        return json.dumps(nest(path, value), indent=2) + "\n"
    node = parse(text)
    for depth, key in enumerate(path):
        member = node.members.get(key)
        if member is None:
            return _insert(text, node, key, nest(path[depth + 1 :], value), depth + 1)
        node = member[1]
        if depth < len(path) - 1 and not node.is_object:
            raise JsoncError(f"{'.'.join(path[: depth + 1])} is not an object")
    indent = _indent_at(text, node.start)
    return text[: node.start] + _dump(value, indent) + text[node.end :]


def nest(path: tuple[str, ...], value: Any) -> Any:
    for key in reversed(path):
        value = {key: value}
    return value


def _insert(text: str, parent: Node, key: str, value: Any, depth: int) -> str:
    """A new first member of ``parent``, so no existing comma or comment has to move."""
    opening = parent.start + 1
    inner_indent = _member_indent(text, parent, depth)
    rendered = f"{json.dumps(key)}: {_dump(value, inner_indent)}"
    separator = "," if parent.members else ""
    closing = "" if parent.members else "\n" + inner_indent[: max(0, len(inner_indent) - 2)]
    return f"{text[:opening]}\n{inner_indent}{rendered}{separator}{closing}{text[opening:]}"


def _member_indent(text: str, parent: Node, depth: int) -> str:
    if parent.members:
        first = min(offset for offset, _ in parent.members.values())
        return _indent_at(text, first)
    return "  " * depth


def _indent_at(text: str, offset: int) -> str:
    line_start = text.rfind("\n", 0, offset) + 1
    line = text[line_start:offset]
    return line[: len(line) - len(line.lstrip())]


def _dump(value: Any, indent: str) -> str:
    lines = json.dumps(value, indent=2, ensure_ascii=False).splitlines()
    return "\n".join([lines[0], *(indent + line for line in lines[1:])])


def _tokens(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    position = 0
    while position < len(text):
        match = TOKEN.match(text, position)
        if match is None:
            raise JsoncError(f"unexpected {text[position]!r} at {_where(text, position)}")
        kind = match.lastgroup or ""
        if kind not in ("space", "line_comment", "block_comment"):
            tokens.append(_Token(kind, match.group(), position))
        position = match.end()
    return tokens


def _where(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"line {line}, column {column}"


class _Parser:
    def __init__(self, text: str, tokens: list[_Token]) -> None:
        self.text, self.tokens, self.index = text, tokens, 0
        self.values: dict[int, Any] = {}  # start offset -> decoded value, for loads()

    def parse(self) -> Node:
        node = self._value()
        if self.index != len(self.tokens):
            raise self._error("unexpected text after the end of the value")
        return node

    def value_of(self, node: Node) -> Any:
        return self.values[node.start]

    def _value(self) -> Node:
        token = self._next("a value")
        if token.text == "{":
            return self._object(token)
        if token.text == "[":
            return self._array(token)
        if token.kind in ("string", "literal"):
            try:
                self.values[token.start] = json.loads(token.text)
            except ValueError:
                raise self._error(f"bad value {token.text!r}", token) from None
            return Node(token.start, token.start + len(token.text))
        raise self._error(f"expected a value, found {token.text!r}", token)

    def _object(self, opening: _Token) -> Node:
        node = Node(opening.start, 0, is_object=True)
        decoded: dict[str, Any] = {}
        while True:
            token = self._next("a key or '}'")
            if token.text == "}":
                break
            if token.kind != "string":
                raise self._error(f"expected a key, found {token.text!r}", token)
            if self._next("':'").text != ":":
                raise self._error("expected ':' after a key", token)
            value = self._value()
            key = json.loads(token.text)
            node.members[key] = (token.start, value)
            decoded[key] = self.values[value.start]
            separator = self._next("',' or '}'")
            if separator.text == "}":
                token = separator
                break
            if separator.text != ",":
                raise self._error(f"expected ',' or '}}', found {separator.text!r}", separator)
        node.end = token.start + 1
        self.values[node.start] = decoded
        return node

    def _array(self, opening: _Token) -> Node:
        items: list[Any] = []
        while True:
            if self._peek() == "]":
                token = self._next("']'")
                break
            items.append(self.values[self._value().start])
            token = self._next("',' or ']'")
            if token.text == "]":
                break
            if token.text != ",":
                raise self._error(f"expected ',' or ']', found {token.text!r}", token)
        self.values[opening.start] = items
        return Node(opening.start, token.start + 1)

    def _peek(self) -> str | None:
        return self.tokens[self.index].text if self.index < len(self.tokens) else None

    def _next(self, expected: str) -> _Token:
        if self.index >= len(self.tokens):
            raise JsoncError(f"the file ends where {expected} was expected")
        token = self.tokens[self.index]
        self.index += 1
        return token

    def _error(self, message: str, token: _Token | None = None) -> JsoncError:
        at = token or self.tokens[min(self.index, len(self.tokens) - 1)]
        return JsoncError(f"{message} at {_where(self.text, at.start)}")
