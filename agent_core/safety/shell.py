"""A shell command line as the parts that will run: every simple command, wherever it sits.

Commands are parsed with tree-sitter's bash grammar, not matched as text: pipelines, lists,
subshells, ``$(...)``, backquotes, process substitutions, function bodies, loops and heredoc
tails all yield their simple commands, each with its words after quote removal, its variable
assignments and its redirections. A word that expands at run time (``$x``, ``$(...)``, brace
expansion) is marked as such instead of guessed. Why tree-sitter: it is a maintained grammar
of bash (a superset of what ``/bin/sh`` accepts), it ships as wheels for every platform, and a
line parses in ~10 µs; ``shlex`` only splits words, and bashlex is unmaintained and rejects much
of modern bash. The import (~20 ms) happens on first use, off the start-up path.

What this module does not do is judge: that is ``judge.py``, over the structure built here.
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING

from msgspec import Struct, field
from msgspec.structs import replace

from agent_core.safety.escapes import ansi_c
from agent_core.safety.shell_parts import CommandLine, Redirect, SimpleCommand, Word, programs

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

__all__ = ["CommandLine", "Redirect", "SimpleCommand", "Word", "parse", "programs", "warm_up"]

# Nodes whose text is a literal once quotes and escapes are removed.
_QUOTED = frozenset({"string", "translated_string"})
# Unquoted braces with a comma or a range expand to several words in bash: {rm,-rf,x}.
_BRACE_EXPANSION = re.compile(r"\{[^{}\s]*(,|\.\.)[^{}\s]*\}")
_STATEMENT_KEYWORDS = frozenset({"export", "declare", "local", "readonly", "typeset", "unset"})


MAX_SOURCE = 64 * 1024  # longer lines are not read: they ask


@cache
def _parser() -> Parser:
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))


def warm_up() -> None:
    """Load the grammar before the first command needs it."""
    _parser()


def parse(source: str) -> CommandLine:
    if len(source) > MAX_SOURCE:
        return CommandLine((), (), problems=(f"it is too long to read ({len(source)} characters)",))
    tree = _parser().parse(source.encode("utf-8", "surrogateescape"))
    builder = _Builder()
    try:
        builder.visit(tree.root_node)
    except RecursionError:
        return CommandLine((), (), problems=("it nests too deeply to read",))
    problems = list(builder.problems)
    if tree.root_node.has_error:
        problems.insert(0, "it is not valid shell syntax")
    return CommandLine(
        tuple(c.fed() for c in builder.commands),
        tuple(builder.redirects),
        tuple(builder.functions),
        tuple(problems),
        builder.arithmetic,
    )


_REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_HEREDOC_PARTS = frozenset({"heredoc_start", "heredoc_end", "file_descriptor"})
_SUBSTITUTIONS = frozenset({"command_substitution", "process_substitution"})
_PIPES = frozenset({"|", "|&"})
_SIMPLE_STAGES = frozenset({"command", "redirected_statement", "declaration_command"})
_WORDS = frozenset({"word", "string", "raw_string", "ansi_c_string", "concatenation", "number"})


class _Builder(Struct):
    """Walks the tree once, top down; ``piped`` travels down from the pipelines."""

    commands: list[SimpleCommand] = field(default_factory=list[SimpleCommand])
    redirects: list[Redirect] = field(default_factory=list[Redirect])
    functions: list[tuple[str, tuple[str, ...]]] = field(
        default_factory=list[tuple[str, tuple[str, ...]]]
    )
    problems: list[str] = field(default_factory=list[str])
    arithmetic: bool = False

    def visit(self, node: Node, piped: bool = False, outer: tuple[Redirect, ...] = ()) -> None:
        """``piped``: it may read a pipe; ``outer``: the redirections of the statement whose
        body ``node`` is."""
        match node.type:
            case "command" | "declaration_command" | "unset_command":
                self._command(node, piped, outer)
            case "test_command":
                self._test(node, piped)
            case "variable_assignment":  # a statement of its own: x=1; PATH=.
                self.commands.append(SimpleCommand((), (_assignment(node),), (), piped))
                self._inside(node)
            case "redirected_statement":
                self._redirected(node, piped)
            case "function_definition":
                self._function(node)
            case "pipeline":
                self._pipeline(node, piped)
            case kind if kind in _REDIRECTS:
                self._redirect(node)
            case kind if kind in _SUBSTITUTIONS:
                self._inside(node)  # its own pipes, not ours
            case "expansion" if any(c.type == "P" for c in node.children):
                self.problems.append("it expands a variable as a prompt (${x@P}), running its text")
                self._inside(node)
            case "arithmetic_expansion" | "compound_statement" if _is_arithmetic(node):
                self.arithmetic = self.arithmetic or _has_variable(node)
                self._inside(node)
            case _:
                for child in node.named_children:
                    self.visit(child, piped)

    def _pipeline(self, node: Node, piped: bool, upstream: SimpleCommand | None = None) -> None:
        """Each stage after a pipe reads one; the simple command that reads it learns which
        simple command feeds it (``echo … | sh``)."""
        after_pipe = upstream is not None
        for child in node.children:
            if child.type in _PIPES:
                after_pipe = True
                continue
            if not child.is_named:
                continue
            start = len(self.commands)
            self.visit(child, piped or after_pipe)
            if len(self.commands) == start:
                upstream = None
                continue
            reader = len(self.commands) - 1 if child.type in _SIMPLE_STAGES else start
            if upstream is not None and child.type in (*_SIMPLE_STAGES, "list"):
                self.commands[reader] = replace(self.commands[reader], upstream=upstream)
            upstream = self.commands[-1] if child.type in _SIMPLE_STAGES else None

    def _inside(self, node: Node) -> None:
        for child in node.named_children:
            self.visit(child)

    def _command(self, node: Node, piped: bool, outer: tuple[Redirect, ...]) -> None:
        words: list[Word] = []
        if node.type != "command":  # export, declare, local, readonly, typeset, unset
            keyword = node.children[0].type if node.children else ""
            words.append(Word(keyword, keyword if keyword in _STATEMENT_KEYWORDS else None))
        assignments: list[tuple[str, Word]] = []
        redirects = list(outer)
        for child in node.named_children:
            if child.type == "variable_assignment":
                assignments.append(_assignment(child))
                self._inside(child)
            elif child.type in _REDIRECTS:
                redirects.append(self._redirect(child))
            elif child.type == "command_name":
                name = child.named_children[0] if child.named_children else child
                words.append(_word(name))
                self.visit(name)
            else:
                words.append(_word(child))
                self.visit(child)  # what a substitution inside it runs
        self.commands.append(
            SimpleCommand(tuple(words), tuple(assignments), tuple(redirects), piped)
        )

    def _test(self, node: Node, piped: bool) -> None:
        """``[[ … ]]``: a read-only command whose words may still hide code (``-v 'a[$(…)]'``)."""
        words = [Word("[[", "[[")]
        self._test_words(node, words)
        self.commands.append(SimpleCommand(tuple(words), (), (), piped))

    def _test_words(self, node: Node, words: list[Word]) -> None:
        for child in node.named_children:
            if child.type in _WORDS:
                words.append(_word(child))
                self.visit(child)
            elif child.type in _SUBSTITUTIONS:
                self.visit(child)
            else:
                self._test_words(child, words)

    def _redirect(self, node: Node, after: list[Node] | None = None) -> Redirect:
        """``after``: where a here-document's redirection puts what follows it on its line
        (``cat <<EOF > x.sh && sh x.sh``: tree-sitter nests ``> x.sh`` and ``&& sh x.sh`` in
        it), to be visited once the command it feeds is known."""
        redirect = _redirect(node)
        at = len(self.redirects)
        self.redirects.append(redirect)
        for child in node.named_children:
            if child.type in _HEREDOC_PARTS:
                continue
            heredoc = after is not None and node.type == "heredoc_redirect"
            if heredoc and after is not None and child.type != "heredoc_body":
                after.append(child)
                continue
            self.visit(child)  # substitutions in a target or an unquoted heredoc's body
        target = node.child_by_field_name("destination")
        if target is not None and target.type == "process_substitution":
            inner = target.named_children
            simple = len(inner) == 1 and inner[0].type == "command" and bool(self.commands)
            feeder = self.commands[-1] if simple else None
            redirect = replace(redirect, substituted=True, feeder=feeder)
            self.redirects[at] = redirect
        return redirect

    def _redirected(self, node: Node, piped: bool) -> None:
        body = node.child_by_field_name("body")
        after: list[Node] = []
        own = [self._redirect(c, after) for c in node.named_children if c.type in _REDIRECTS]
        nested = [n for n in after if n.type in _REDIRECTS]
        own += [self._redirect(n) for n in nested]
        start = len(self.commands)
        if body is not None:
            self.visit(body, piped, tuple(own) if body.type == "command" else ())
        else:  # `> f` alone: a command of no words that opens (and empties) f
            self.commands.append(SimpleCommand((), (), tuple(own), piped))
        if body is not None and _last_command(body) and len(self.commands) > start:
            # tree-sitter hangs `a && b > f` and `a | b > f` on the whole; bash, on b
            last = self.commands[-1]
            self.commands[-1] = replace(last, redirects=(*last.redirects, *own))
        fed = self.commands[-1] if body is None or body.type == "command" else None
        for rest in (n for n in after if n not in nested):
            if rest.type == "pipeline":  # `cat <<EOF | sh`: the pipe reads what cat prints
                self._pipeline(rest, piped, fed)
            else:
                self.visit(rest)

    def _function(self, node: Node) -> None:
        name = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        start = len(self.commands)
        if body is not None:
            self.visit(body)
        called = tuple(c.program.text for c in self.commands[start:] if c.program is not None)
        if name is not None:
            self.functions.append((_text(name), called))


def _last_command(node: Node) -> bool:
    """A list or pipeline whose last part is a simple command."""
    if node.type not in ("list", "pipeline"):
        return False
    while node.type in ("list", "pipeline") and node.named_children:
        node = node.named_children[-1]
    return node.type == "command"


def _is_arithmetic(node: Node) -> bool:
    return node.type == "arithmetic_expansion" or (
        bool(node.children) and node.children[0].type == "(("
    )


def _has_variable(node: Node) -> bool:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in ("variable_name", "simple_expansion", "expansion"):
            return True
        stack.extend(current.named_children)
    return False


def _assignment(node: Node) -> tuple[str, Word]:
    name = node.child_by_field_name("name")
    value = node.child_by_field_name("value")
    return (_text(name) if name else "", _word(value) if value else Word("", ""))


def _redirect(node: Node) -> Redirect:
    operator = next((c.type for c in node.children if not c.is_named), "")
    if node.type == "heredoc_redirect":
        start = next((c for c in node.named_children if c.type == "heredoc_start"), None)
        body = next((c for c in node.named_children if c.type == "heredoc_body"), None)
        quoted = start is not None and any(q in _text(start) for q in "'\"\\")
        expands = (
            body is not None
            and not quoted
            and any(c.type != "heredoc_content" for c in body.named_children)
        )
        return Redirect(operator, None, _text(body) if body else "", expands)
    if node.type == "herestring_redirect":
        word = _word(node.named_children[-1]) if node.named_children else Word("", "")
        return Redirect(operator, None, word.text, not word.literal)
    destination = node.child_by_field_name("destination")
    return Redirect(operator, _word(destination) if destination else None)


def _word(node: Node) -> Word:
    return Word(_text(node), _value(node))


def _value(node: Node) -> str | None:
    """The literal value of a word-like node, or None when it expands at run time."""
    match node.type:
        case "word":
            text = _text(node)
            if _BRACE_EXPANSION.search(text):
                return None
            return re.sub(r"\\(.)", r"\1", text.replace("\\\n", ""), flags=re.DOTALL)
        case "number" | "variable_name" | "test_operator":
            return _text(node)
        case "raw_string":
            return _text(node)[1:-1]
        case "ansi_c_string":
            return ansi_c(_text(node)[2:-1])
        case kind if kind in _QUOTED:
            if any(child.type != "string_content" for child in node.named_children):
                return None
            text = _text(node)  # whole, as line breaks fall between string_content nodes
            inner = text[text.find('"') + 1 : -1].replace("\\\n", "")
            return re.sub(r'\\([$`"\\\n])', r"\1", inner)
        case "concatenation":
            values = [_value(child) for child in node.named_children]
            if any(v is None for v in values):
                return None
            joined = "".join(v for v in values if v is not None)
            return None if _BRACE_EXPANSION.search(_text(node)) else joined
        case _:
            return None


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "surrogateescape")
