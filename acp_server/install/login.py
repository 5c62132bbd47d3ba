"""``heron login``: choose a provider, paste its key; it goes to ``config.toml`` (mode 0600).

Editors that run terminal auth methods (Zed, JetBrains) start this for the user; it works the
same from any terminal. The key is never echoed, logged or written anywhere else.
"""

from __future__ import annotations

import getpass
import sys
from collections.abc import Callable
from typing import TextIO

from agent_core.config import load_settings
from agent_core.config_keys import DEFAULT_MODELS, store_api_key
from agent_core.errors import ConfigError
from agent_core.providers import PROVIDER_ENV

PROVIDERS = tuple(PROVIDER_ENV)  # the built-in providers reached with a key


def run_login(
    out: TextIO,
    read_line: Callable[[str], str],
    read_secret: Callable[[str], str] | None = None,
    *,
    provider: str | None = None,
) -> int:
    settings = load_settings(read_file=False)
    if provider is None:
        out.write(
            "Which provider? " + ", ".join(f"{i}) {p}" for i, p in enumerate(PROVIDERS, 1)) + "\n"
        )
        answer = read_line("Provider [1]: ").strip() or "1"
        provider = (
            PROVIDERS[int(answer) - 1]
            if answer.isdigit() and 0 < int(answer) <= len(PROVIDERS)
            else answer
        )
    if provider not in PROVIDERS:
        out.write(f"Unknown provider {provider!r}; choose one of {', '.join(PROVIDERS)}.\n")
        return 1
    key = (read_secret or _read_secret(out))(f"{provider} API key (not shown): ").strip()
    if not key:
        out.write("No key entered; nothing changed.\n")
        return 1
    try:
        file = store_api_key(settings.home, provider, key)
    except ConfigError as exc:
        out.write(f"{exc}\n")
        return 1
    out.write(f"Saved your {provider} key in {file} (readable only by you).\n")
    out.write(
        "A running `heron acp` picks it up at its next session or prompt, no restart needed "
        "(a key set in its environment still comes first).\n"
    )
    try:
        model = load_settings().model or DEFAULT_MODELS[provider]
    except ConfigError as exc:  # the key is saved; something else in the file needs fixing
        out.write(f"{exc}\n")
        return 1
    out.write(f"Model: {model}. Change it with `model = ...` there.\n")
    if provider == "openai-chat":
        out.write(f"For a server other than OpenAI, set base_url under [providers.{provider}].\n")
    return 0


def _read_secret(out: TextIO) -> Callable[[str], str]:
    """Unechoed from a terminal; a plain line from a pipe (which echoes nothing anyway)."""
    if sys.stdin.isatty():
        return getpass.getpass

    def from_pipe(prompt: str) -> str:
        out.write(prompt + "\n")
        return sys.stdin.readline()

    return from_pipe
