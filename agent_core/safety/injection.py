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
  spaces taken out, near each such run only, so ordinary prose is never squashed together.

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


def screen(text: str) -> str | None:
    """Why ``text`` must not reach the model as instructions, or None."""
    if INVISIBLE.search(text.lstrip("\ufeff")):
        return "it contains invisible Unicode characters that can hide instructions"
    if found := _phrase(normal_form(text)):
        return f"it looks like a prompt injection ({found!r})"
    return None


def normal_form(text: str) -> str:
    """``text`` as it reads: compatibility forms composed, format characters dropped, lookalike
    letters folded to Latin, lower case, each run of whitespace one space."""
    text = unicodedata.normalize("NFKC", text)
    hidden = {c for c in set(text) if unicodedata.category(c) == "Cf"}
    if hidden:
        text = text.translate(dict.fromkeys(map(ord, hidden)))
    text = " ".join(text.split())
    if text.isascii():
        return text.lower()
    from decancer_py import parse  # ~1 ms; only for text that needs it

    return str(parse(text))


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
