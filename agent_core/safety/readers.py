"""What Heron does specially with a program, in one table: program name -> its reader.

A reader takes the walker and one call (``reading.py``) and judges what the program runs or
carries: code (a shell's, an interpreter's, a database client's SQL), another program (a
wrapper's, a runner's, ``xargs``'s), or options of its own (git's). A program with no row is
judged by the tables alone. ``first(a, b)``: ``b`` when ``a`` finds nothing (``npx -c CMD``
is a shell string, ``npx jest`` a runner's program).
"""

from __future__ import annotations

from agent_core.safety.inline import SQL_CLIENTS
from agent_core.safety.interpreters import awk, deno, interpreter, make, shell
from agent_core.safety.launchers import (
    AWK,
    INTERPRETERS,
    MULTICALL,
    RUNNERS,
    SHELL_STRING_OPTIONS,
    SHELLS,
    WRAPPERS,
    interpreter_of,
)
from agent_core.safety.launches import (
    defines,
    evaluates,
    fills_in,
    finds_and_runs,
    multicall,
    runs_package,
    shell_string,
    sources,
    wrapped,
)
from agent_core.safety.programs import deferred, git, hash_path, sql_client
from agent_core.safety.reading import Reader, first

READERS: dict[str, Reader] = {
    # What runs other programs: read first, before a runner's subcommand is looked for.
    **dict.fromkeys(WRAPPERS, wrapped),  # sudo, env, timeout, nohup, exec, command…
    **dict.fromkeys(MULTICALL, multicall),  # busybox, toybox
    **dict.fromkeys(SHELL_STRING_OPTIONS, shell_string),  # su -c, script -c, watch…
    "flock": first(shell_string, wrapped),  # flock f -c CMD, flock f CMD
    **dict.fromkeys(("npx", "npm"), first(shell_string, runs_package)),  # -c CMD, or a runner
    "eval": evaluates,
    "source": sources,
    ".": sources,
    "alias": defines,
    "trap": defines,
    "xargs": fills_in,
    "parallel": fills_in,
    **dict.fromkeys(("find", "fd", "fdfind"), finds_and_runs),
    # Runners: npx jest, uv run pytest, docker exec c psql (and bun x, below).
    **dict.fromkeys((p for p, _ in RUNNERS if p not in ("npx", "npm", "bun")), runs_package),
    # Code of their own.
    "git": git,
    **dict.fromkeys(SHELLS, shell),  # sh -c, bash -s, sh < x.sh, sh x.sh
    **dict.fromkeys(INTERPRETERS, interpreter),  # python -c / -m / x.py, node -e…
    "bun": first(runs_package, interpreter),  # bun x jest, else bun -e CODE
    **dict.fromkeys(AWK, awk),  # awk 'PROGRAM', awk -f -
    "make": make,  # make -f -, make --eval
    "deno": deno,  # deno eval CODE, deno run -
    **dict.fromkeys(SQL_CLIENTS, sql_client),  # psql -c SQL, sqlite3 db < x.sql…
    "at": deferred,
    "batch": deferred,
    "hash": hash_path,  # hash -p PATH name
}


def reader_of(name: str) -> Reader | None:
    """``name``'s row; an interpreter's for the names it goes by (``python3.12``, ``php-cgi``)."""
    reader = READERS.get(name)
    if reader is None and interpreter_of(name) is not None:
        return interpreter
    return reader
