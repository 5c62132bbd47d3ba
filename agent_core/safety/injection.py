"""The injection screen: text that would reach the system prompt as the project's instructions
(AGENTS.md and kin) is read for known injection phrases before it gets there.

The phrases are looked for in a normal form of the text that undoes the disguises a reader's
eye sees through but a pattern does not (and, like the eye, ignores case and line breaks):

- compatibility forms (fullwidth ``ＩＧＮＯＲＥ``, mathematical ``𝐢𝐠𝐧𝐨𝐫𝐞``, ligatures): NFKC;
- invisible format characters inside words (zero-width spaces and joiners, soft hyphens): removed;
- lookalike letters of other scripts (Greek ``Ι``, Cyrillic ``о``, Cherokee ``Ꭵ``), mixed into
  Latin words or making up whole words: folded to the Latin letters they imitate by
  ``decancer_py`` (bindings of the decancer library, which follows Unicode's confusables data),
  imported only when the text is not plain ASCII, so most files never load it;
- letters spelled out one by one (``i g n o r e  p r e v i o u s``): read again with the
  spaces taken out, near each such run only, so ordinary prose is never squashed together;
- Markdown, which a reader sees through (``Ignore *all previous* instructions``, a phrase split
  over two list items, headings or quoted lines, links, inline HTML): the phrases are looked for
  a second time in the plain form (``plain_form``), with the marks taken out. Marks only ever
  join words a reader already reads together, so this makes no ordinary prose suspect; the
  first reading, with the marks kept, still sees ``<|im_start|>`` and its kin.

Text in another language is not suspect for that: Greek or Russian prose folds into Latin
letters that spell no English phrase. Characters that can hide text outright (Unicode tags,
bidirectional overrides, zero-width spaces) block the file on their own.
"""

from __future__ import annotations

import re
import unicodedata

# A space stands for a word break: whitespace in the text, nothing in a spelled-out run.
PHRASES: tuple[str, ...] = (
    r"ignore (all |any )?(the )?(previous|prior|above|earlier) (instructions|prompts?|rules)",
    r"disregard (all |any )?(the )?(previous|prior|above|system) (instructions|prompts?)",
    r"forget (all )?(your|previous) instructions",
    r"you are now (in )?(developer|dan|jailbreak|unrestricted)",
    r"<\|im_start\|>",
    r"<\|system\|>",
    r"\[\[system\]\]",
    r"begin system prompt",
    r"(send|upload|post|exfiltrate) (the |all |your )?"
    r"(api keys?|secrets?|credentials|tokens?|\.env)",
)
WORDS = re.compile("|".join(p.replace(" ", r"\s+") for p in PHRASES))  # over lower case
SPELLED = re.compile("|".join(p.replace(" ", "") for p in PHRASES))

# Hidden text (Unicode tag characters), reordered text (bidirectional embeddings, overrides
# and isolates), and characters that only split words. A single zero-width joiner or non-joiner
# and the left-to-right and right-to-left marks are left alone: Persian, the Indic scripts,
# right-to-left text and emoji sequences need them; a run of them is how data is smuggled.
INVISIBLE = re.compile(
    "[\u200b\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]|[\u200c-\u200f]{2,}"
)
# Four or more single letters in a row, each followed by one to three separators.
SPELLED_OUT = re.compile(r"(?<![a-z0-9])(?:[a-z][^a-z0-9]{1,3}){3,}[a-z](?![a-z0-9])")
SPELLED_CONTEXT = 40  # characters either side of a spelled-out run read with it

# Markdown's marks, which the plain form takes out. What starts a line: quote markers, headings,
# list bullets and numbers, task boxes (any of them nested) ...
LINE_MARKS = re.compile(
    r"^[ \t]*(?:(?:>|#{1,6}|[-*+]|\d{1,9}[.)]|\[[ xX]\])(?=\s|$)[ \t]*)+", re.MULTILINE
)
# ... lines of marks only: rules, a heading's underline, a table's separator, a code fence ...
MARK_LINE = re.compile(r"^[-=*_#>|:+~` \t]*$", re.MULTILINE)
# ... and inline: HTML comments and tags, a link's target (its text stays), escapes and hard
# line breaks, then the emphasis, strike-through, code, bracket, quote and table marks.
COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
LINK_TARGET = re.compile(r"\]\([^()\s]*(?:\s+\"[^\"]*\")?\)")
ESCAPE = re.compile(r"\\(?=[!-/:-@\[-`{-~\n])")
INLINE_MARKS = dict.fromkeys(map(ord, '*_~`[]()"\u201c\u201d\u00ab\u00bb'), None) | {ord("|"): " "}


def screen(text: str) -> str | None:
    """Why ``text`` must not reach the model as instructions, or None."""
    if INVISIBLE.search(text.lstrip("\ufeff")):
        return "it contains invisible Unicode characters that can hide instructions"
    read = _read(text)
    if found := _phrase(_spaced(read)) or _phrase(_spaced(_unmarked(read))):
        return f"it looks like a prompt injection ({found!r})"
    return None


def normal_form(text: str) -> str:
    """``text`` as it reads: compatibility forms composed, format characters dropped, lookalike
    letters folded to Latin, lower case, each run of whitespace one space."""
    return _spaced(_read(text))


def plain_form(text: str) -> str:
    """The normal form with Markdown's marks taken out: what a reader of the rendered text
    reads, line breaks and list items run together."""
    return _spaced(_unmarked(_read(text)))


def _read(text: str) -> str:
    """The normal form with its lines kept (each line's runs of whitespace one space)."""
    if "&" in text:
        import html  # its table of entities: only for text that has one

        text = html.unescape(text)  # character references, as HTML and Markdown show them
    text = unicodedata.normalize("NFKC", text)
    hidden = {c for c in set(text) if unicodedata.category(c) == "Cf"}
    if hidden:
        text = text.translate(dict.fromkeys(map(ord, hidden)))
    if text.isascii():
        return text.lower()
    from decancer_py import parse  # ~1 ms; only for text that needs it

    # Line by line: decancer takes time quadratic in a text's line breaks.
    lines = (" ".join(line.split()) for line in text.splitlines())
    return "\n".join(line.lower() if line.isascii() else str(parse(line)) for line in lines)


def _unmarked(text: str) -> str:
    text = COMMENT.sub(" ", text)
    text = MARK_LINE.sub("", LINE_MARKS.sub("", text))
    text = LINK_TARGET.sub("]", TAG.sub("", text))
    return ESCAPE.sub("", text).translate(INLINE_MARKS)


def _spaced(text: str) -> str:
    return " ".join(text.split())


def _phrase(normal: str) -> str | None:
    """The phrase ``normal`` spells, in words or letter by letter."""
    if match := WORDS.search(normal):
        return match.group(0)
    for run in SPELLED_OUT.finditer(normal):
        start, end = max(run.start() - SPELLED_CONTEXT, 0), run.end() + SPELLED_CONTEXT
        letters = re.sub(r"[^a-z]", "", normal[start:end])
        if match := SPELLED.search(letters):
            return match.group(0)
    return None
