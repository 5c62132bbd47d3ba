"""Commands that ask for approval in every mode, ``full-access`` included.

One table of (pattern, reason); a pattern is a regular expression searched in the whole command
line, case-insensitively. The table is deliberately broad: a false alarm costs one click, a miss
can cost a disk.
"""

from __future__ import annotations

import re
from functools import cache

DANGEROUS: tuple[tuple[str, str], ...] = (
    (r"\brm\s+(-[a-z]*r[a-z]*f|-[a-z]*f[a-z]*r|-r\s+-f|-f\s+-r|--recursive)", "recursive delete"),
    (r"\brm\s+-[a-z]*r[a-z]*\s+(/|~|\$HOME|\*)(\s|$)", "recursive delete of a root or home"),
    (r"\brm\s+.*--no-preserve-root", "delete without root protection"),
    (r"\bfind\b.*\s-delete\b", "find -delete"),
    (r"\bfind\b.*-exec\s+rm\b", "find -exec rm"),
    (r"\bshred\b", "shred"),
    (r"\bmkfs(\.\w+)?\b", "disk formatting"),
    (r"\bmke2fs\b|\bmkswap\b", "disk formatting"),
    (r"\bwipefs\b", "wiping a file system signature"),
    (r"\bfdisk\b|\bsfdisk\b|\bparted\b|\bgdisk\b", "disk partitioning"),
    (r"\bdd\b.*\bof=/dev/", "raw write to a device"),
    (r">\s*/dev/(sd|nvme|hd|vd|xvd|mmcblk)", "redirect onto a disk device"),
    (
        r"(curl|wget|fetch)\b[^|;&]*\|\s*(sudo\s+)?(ba|z|k|da|fi)?sh\b",
        "piping a download into a shell",
    ),
    (
        r"(curl|wget)\b[^|;&]*\|\s*(sudo\s+)?(python|perl|ruby|node)\d*\b",
        "piping a download into an interpreter",
    ),
    (r"\b(ba|z)?sh\s+-c\s+[\"']?\$\((curl|wget)", "running a downloaded script"),
    (r"\bsource\s+<\(\s*(curl|wget)", "sourcing a download"),
    (r"\bgit\s+push\b.*(\s--force\b|\s-f\b|\s--force-with-lease\b|\s\+\S)", "force push"),
    (r"\bgit\s+reset\s+--hard\b", "discarding work with reset --hard"),
    (r"\bgit\s+clean\s+-[a-z]*f", "deleting untracked files"),
    (r"\bgit\s+checkout\s+(--\s+)?\.(\s|$)", "discarding all local changes"),
    (r"\bgit\s+(branch|tag)\s+-D\b", "force-deleting a branch or tag"),
    (r"\bgit\s+filter-(branch|repo)\b", "rewriting history"),
    (r"\bdrop\s+(table|database|schema)\b", "dropping database objects"),
    (r"\btruncate\s+table\b", "truncating a table"),
    (r"\bdelete\s+from\s+\w+\s*(;|$)", "deleting every row"),
    (r":\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:", "fork bomb"),
    (r"\bchmod\s+(-R\s+)?0?777\s+/", "world-writable system paths"),
    (r"\bchmod\s+-R\b.*\s/(\s|$)", "recursive permission change on /"),
    (r"\bchown\s+-R\b.*\s/(\s|$)", "recursive ownership change on /"),
    (r"(>|\btee\b)\s*/(etc|boot|bin|sbin|usr|lib|lib64|sys|proc)/", "writing to system paths"),
    (r"\b(mv|cp)\b.*\s/(etc|boot|bin|sbin|usr|lib|lib64)/", "changing system paths"),
    (r"\bsudo\b", "running as root"),
    (r"\bsu\s+(-|root)\b", "switching to root"),
    (r"\b(shutdown|reboot|halt|poweroff)\b", "stopping the machine"),
    (r"\binit\s+[06]\b", "stopping the machine"),
    (r"\bsystemctl\s+(stop|disable|mask)\b", "stopping system services"),
    (r"\bkill\s+-9\s+-1\b|\bkillall\b|\bpkill\s+-9\b", "killing processes broadly"),
    (r"\bcrontab\s+-r\b", "deleting the crontab"),
    (r"\biptables\s+-F\b|\bufw\s+disable\b", "dropping the firewall"),
    (
        r"\bnpm\s+publish\b|\btwine\s+upload\b|\bcargo\s+publish\b|\bgem\s+push\b",
        "publishing a package",
    ),
    (r"\bdocker\s+(system\s+prune|rm\s+-f|volume\s+rm)\b", "deleting containers or volumes"),
    (r"\bkubectl\s+delete\b", "deleting cluster resources"),
    (r"\bterraform\s+(destroy|apply\s+.*-auto-approve)\b", "destroying infrastructure"),
    (r"\baws\s+s3\s+rm\b.*--recursive", "deleting a bucket's objects"),
    (r"\bhistory\s+-c\b", "erasing shell history"),
    (r">\s*~?/?\.(bashrc|zshrc|profile|bash_profile)\b", "overwriting shell start-up files"),
    (r"\beval\s+\"?\$\((curl|wget)", "evaluating a download"),
)


@cache
def _compiled() -> tuple[tuple[re.Pattern[str], str], ...]:
    """Compiled on first use: compiling them all costs start-up time no session needs yet."""
    return tuple((re.compile(pattern, re.IGNORECASE), reason) for pattern, reason in DANGEROUS)


def why_dangerous(command: str) -> str | None:
    """The reason ``command`` needs a human's eyes in every mode, or None."""
    for pattern, reason in _compiled():
        if pattern.search(command):
            return reason
    return None
