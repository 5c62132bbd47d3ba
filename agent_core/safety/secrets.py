"""Secrets: kept out of the environment of every process Heron starts, and out of everything
Heron writes down.

A variable is a secret by its name (``GITHUB_TOKEN``, ``MYSQL_PWD``, ``SENTRY_DSN``) or by its
value (a URL with a password, a token in a well-known format). ``scrub`` splits an environment
into what children may see and what they may not; ``[terminal] keep_environment`` is the
explicit way back for a name. ``Redactor`` replaces the values Heron knows to be secret (its
provider keys and whatever it scrubbed) wherever they turn up in text it stores or logs.
``secret_in_text`` finds a secret in text Heron is asked to keep (memory), in the forms a reader
sees through: compatibility characters (fullwidth ``ｓｋ-``) composed, invisible ones dropped,
and a value split over lines or list entries read whole.
"""

from __future__ import annotations

import base64
import json
import re
import unicodedata
from collections.abc import Mapping, Sequence
from itertools import accumulate
from urllib.parse import quote

from msgspec import Struct

# A name is a secret when one of its words (split on _ . -) is one of these…
SECRET_WORDS = frozenset(
    {
        "KEY",
        "KEYS",
        "APIKEY",
        "TOKEN",
        "TOKENS",
        "SECRET",
        "SECRETS",
        "PASSWORD",
        "PASSWORDS",
        "PASSWD",
        "PASS",
        "PWD",
        "PASSPHRASE",
        "CREDENTIAL",
        "CREDENTIALS",
        "CREDS",
        "AUTH",
        "PRIVATE",
        "COOKIE",
        "PAT",
        "DSN",
        "WEBHOOK",
    }
)
# …or when it contains one of these anywhere (AUTHTOKEN, DBPASSWORD).
SECRET_PARTS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "APIKEY", "CREDENTIAL", "PRIVATEKEY")
NOT_SECRET = frozenset({"PWD", "OLDPWD"})  # the working directory, not a password
# Values that are secrets whatever their variable is called.
SECRET_VALUES: tuple[tuple[str, str], ...] = (
    (r"^[a-z][a-z0-9+.-]*://[^\s/:@]*:[^\s/@]+@", "a URL with a password"),
    (r"\bsk-[A-Za-z0-9_-]{16,}", "an API key"),
    (r"\b(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}", "a GitHub token"),
    (r"\bgithub_pat_[A-Za-z0-9_]{20,}", "a GitHub token"),
    (r"\bglpat-[A-Za-z0-9_-]{16,}", "a GitLab token"),
    (r"\bxox[abposr]-[A-Za-z0-9-]{10,}", "a Slack token"),
    (r"\b(AKIA|ASIA)[A-Z0-9]{16}\b", "an AWS access key"),
    (r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", "a JSON web token"),
    (r"\bAIza[0-9A-Za-z_-]{35}", "a Google API key"),
    (r"\b(sk|rk)_live_[A-Za-z0-9]{16,}", "a Stripe key"),
    (r"\bnpm_[A-Za-z0-9]{36}", "an npm token"),
    (r"\bpypi-[A-Za-z0-9_-]{50,}", "a PyPI token"),
    (r"\bhf_[A-Za-z0-9]{30,}", "a Hugging Face token"),
    (r"-----BEGIN [A-Z ]*PRIVATE KEY-----", "a private key"),
    (r"hooks\.slack\.com/services/", "a Slack webhook"),
)
_SECRET_VALUES = tuple((re.compile(pattern), kind) for pattern, kind in SECRET_VALUES)
MIN_REDACTED = 8  # shorter values are too likely to occur by chance to be replaced everywhere
# What a line of text may start with (list bullets and numbers, quote markers) and what may
# wrap a piece of a value (code marks, quotes, emphasis), left out when lines are joined.
LINE_START = re.compile(r"^\s*(?:(?:[-*+>]|\d{1,9}[.)])\s+)*")
WRAPPING = " \t`'\"*"
WORD = re.compile(r"\w")
SCHEME = re.compile(r"[\w+.-]")  # what a URL's scheme is made of


class _Joinable(Struct, frozen=True):
    """A value pattern read over lines joined without a break: its anchors hold where a line
    was joined to the one before, ``\\b`` at a word's edge, and ``^`` (a whole value, such as a
    URL with a password) wherever the value starts in running text; its spaces may be lost."""

    core: re.Pattern[str]  # the pattern without its anchors
    start: str  # "^", "\\b" or ""
    end: bool  # it ends with \\b
    kind: str


def _joinable(pattern: str, kind: str) -> _Joinable:
    start = next((a for a in ("^", r"\b") if pattern.startswith(a)), "")
    end = pattern.endswith(r"\b")
    core = pattern[len(start) : len(pattern) - 2 if end else len(pattern)]
    core = re.sub(r" (?![^\[]*\])", " ?", core)  # a space may be lost where a line was cut
    return _Joinable(re.compile(core), start, end, kind)


_JOINABLE = tuple(_joinable(pattern, kind) for pattern, kind in SECRET_VALUES)


def secret_name(name: str) -> bool:
    upper = name.upper()
    if upper in NOT_SECRET:
        return False
    words = set(re.split(r"[_.\-]", upper))
    return bool(words & SECRET_WORDS) or any(part in upper for part in SECRET_PARTS)


def secret_value(value: str) -> str | None:
    """What kind of secret ``value`` looks like, or None."""
    for pattern, kind in _SECRET_VALUES:
        if pattern.search(value):
            return kind
    return None


def secret_in_text(text: str) -> str | None:
    """What kind of secret ``text`` holds, or None: read in its NFKC form with format
    characters dropped, its lines joined without a break (their bullets, quote markers and code
    marks left out), so a value split over lines or list entries is found whole."""
    composed = unicodedata.normalize("NFKC", text)
    hidden = {c for c in set(composed) if unicodedata.category(c) == "Cf"}
    if hidden:
        composed = composed.translate(dict.fromkeys(map(ord, hidden)))
    pieces = [LINE_START.sub("", line).strip(WRAPPING) for line in composed.splitlines()]
    return _secret_over(pieces)


def _secret_over(pieces: Sequence[str]) -> str | None:
    joined = "".join(pieces)
    junctions = {0, *accumulate(len(piece) for piece in pieces)}
    for pattern in _JOINABLE:
        position = 0
        while found := pattern.core.search(joined, position):
            start, end = found.span()
            starts = pattern.start == "" or start in junctions
            if not starts:
                before = SCHEME if pattern.start == "^" else WORD
                starts = not before.match(joined[start - 1])
            ends = not pattern.end or end in junctions or not WORD.match(joined[end : end + 1])
            if starts and ends:
                return pattern.kind
            position = start + 1
    return None


class Scrubbed(Struct, frozen=True):
    kept: dict[str, str]  # what children see
    removed: dict[str, str]  # what they do not: name -> value


def scrub(environment: Mapping[str, str], keep: frozenset[str] = frozenset()) -> Scrubbed:
    kept: dict[str, str] = {}
    removed: dict[str, str] = {}
    for name, value in environment.items():
        if name not in keep and (secret_name(name) or secret_value(value)):
            removed[name] = value
        else:
            kept[name] = value
    return Scrubbed(kept, removed)


class Redactor:
    """Replaces known secret values with ``[REDACTED:<name>]``, also in the forms they take
    inside JSON strings, URLs and base64."""

    def __init__(self, secrets: Mapping[str, str]) -> None:
        forms: dict[str, str] = {}
        for name, value in secrets.items():
            if len(value) < MIN_REDACTED:
                continue
            for form in _forms(value):
                forms.setdefault(form, name)
        self._names = forms
        ordered = sorted(forms, key=len, reverse=True)  # the longest first: no partial leftovers
        self._pattern = re.compile("|".join(map(re.escape, ordered))) if ordered else None

    def __call__(self, text: str) -> str:
        if self._pattern is None:
            return text
        return self._pattern.sub(lambda m: f"[REDACTED:{self._names[m.group(0)]}]", text)

    def __bool__(self) -> bool:
        return self._pattern is not None


def _forms(value: str) -> set[str]:
    encoded = base64.b64encode(value.encode()).decode()
    return {value, json.dumps(value)[1:-1], quote(value, safe=""), encoded.rstrip("=")}
