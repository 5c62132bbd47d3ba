"""Code given to an interpreter inline (``python -c``, ``node -e``, a heredoc fed to perl, an
awk program) and SQL given to a database client: searched as text, in any language, for what
asks: deleting files, using the network, starting programs, building code at run time, and SQL
that drops or deletes data (``sql.py``).

Searching text cannot read every program; it reads the usual ones, and code it cannot read at
all (``eval``, ``base64`` decoding…) asks as unknowable. Calls, not mere names: ``import
requests; print(requests.__version__)`` uses no network.
"""

from __future__ import annotations

import re

from agent_core.safety.argv import names
from agent_core.safety.sql import destroys_data

CODE_DANGERS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), reason)
    for pattern, reason in (
        (
            r"\b(rmtree|removedirs|remove_tree|rm_rf|rm_r|rmSync|unlinkSync|rmdirSync|Remove-Item)\b"
            r"|\b(remove|unlink|rmdir|rm|truncate|unlinkat)\s*\(|\bunlink\s+(glob|[\"'$@])"
            r"|\b(File|Dir|FileUtils)\.(delete|rm\w*|unlink|remove\w*)\b",
            "deletes files",
        ),
        (
            r"\b(urlopen|urlretrieve|http\.client|aiohttp|XMLHttpRequest|WebSocket|Net::HTTP"
            r"|open-uri|LWP|IO::Socket|HTTP::Tiny|Invoke-WebRequest|Invoke-RestMethod|WebClient"
            r"|curl|wget)\b|\b(requests|httpx)\.(get|post|put|patch|delete|head|request|Session"
            r"|Client|AsyncClient|stream)\b|\bfrom\s+(requests|httpx|urllib\S*|socket"
            r"|http\.client)\s+import\b|\bsocket\.(socket|create_connection)\b|\bfetch\s*\("
            r"|\bhttps?\.(get|request)\b|\bnet\.(connect|createConnection)\b",
            "uses the network",
        ),
        (
            r"\b(subprocess|child_process|pty\.spawn|Start-Process|Runtime\.getRuntime|IO\.popen"
            r"|Process\.spawn|execSync|execFile\w*|spawnSync|posix_spawn\w*)\b"
            r"|\bos\.(system|popen|exec\w*|spawn\w*|fork)\b|(?<!\.)\bsystem\b|\bKernel\.(exec|spawn)"
            r"|\bqx\b|\|\s*&?\s*getline|\|\s*\"|\bopen\s*\(?[^;]*[\"']\s*\||\|\s*[\"']\s*\)",
            "starts other programs",
        ),
    )
)
BACKQUOTES = re.compile(r"`[^`]*`")  # a command, in perl, ruby and php (not in JavaScript)
BACKQUOTE_LANGUAGES = names("perl ruby php")
CODE_UNKNOWN = re.compile(
    r"\b(eval|exec|__import__|b64decode|marshal|pickle|fromCharCode|atob|getattr|vars"
    r"|globals|locals)\b|\bimportlib\.import_module\b|\bnew\s+Function\b"
    r"|(?<!\.)\bcompile\s*\(|\bcodecs\.decode\b|\bbase64\.\w*decode"
)
SQL_CLIENTS = names(
    "psql mysql mariadb sqlite3 sqlite duckdb sqlcmd clickhouse-client clickhouse cqlsh "
    "snowsql bq mongosh mongo cockroach usql"
)


def code_findings(text: str, language: str) -> tuple[list[str], list[str]]:
    """What ``text``, run by ``language``, does that asks: (dangers, unknowns)."""
    dangers = [
        f"its {language} code {reason}" for pattern, reason in CODE_DANGERS if pattern.search(text)
    ]
    if language in BACKQUOTE_LANGUAGES and BACKQUOTES.search(text):
        dangers.append(f"its {language} code starts other programs")
    if destroys_data(text, embedded=True):
        dangers.append(f"its {language} code runs SQL that drops or deletes data")
    unknowns = [f"its {language} code builds code at run time"] if CODE_UNKNOWN.search(text) else []
    return dangers, unknowns


def drops_data(texts: list[str]) -> bool:
    return any(destroys_data(text) for text in texts)
