"""The paths safety cares about, in one place: what is protected inside a workspace, which
credential stores are hidden, which folders stay writable for builds, what counts as a shell
start-up file or a system path.

The edit tools (``protected_reason``, ``hard_linked``), the command judgement (the same lists
as patterns over words) and the sandbox (the same lists as real paths) all read them here, so
a path protected in one place is protected in all three.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from pathlib import Path

from agent_core.safety.safe_open import UnsafeFile, read_inside

# A path component inside a workspace root that makes the path protected: it asks in every
# mode, "always allow" included, and is read-only inside the sandbox.
PROTECTED_NAMES: dict[str, str] = {
    ".git": "git's configuration and hooks run programs",
    ".gitmodules": "submodule definitions decide what git fetches",
    ".heron": "Heron's own project settings and commands",
    ".vscode": "VS Code tasks and settings can run programs",
    ".idea": "JetBrains run configurations can run programs",
    ".zed": "Zed tasks and settings can run programs",
    ".envrc": "direnv runs it when you enter the folder",
}
# Files whose name starts with this are protected too: .env, .env.local, .env.production…
PROTECTED_PREFIX = ".env"
PROTECTED_PREFIX_REASON = "environment files hold secrets and settings"

# Relative to the home folder: files whose contents programs run at start-up.
SHELL_STARTUP_FILES = (
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".zlogin",
    ".zlogout",
    ".cshrc",
    ".tcshrc",
    ".kshrc",
    ".bash_aliases",
    ".config/fish/config.fish",
    ".gitconfig",  # git's own configuration runs programs too (core.pager, aliases…)
    ".config/git/config",
)
# Relative to the home folder: hidden from sandboxed commands ($HERON_HOME is added).
CREDENTIAL_STORES = (
    ".ssh",
    ".aws",
    ".azure",
    ".gnupg",
    ".netrc",
    ".git-credentials",
    ".docker/config.json",
    ".kube",
    ".config/gcloud",
    ".config/gh",
    ".config/hub",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".terraform.d/credentials.tfrc.json",
    ".vault-token",
    ".password-store",
    ".local/share/keyrings",
    "Library/Keychains",
    ".config/git/credentials",
    ".cache/git/credential",  # git credential-cache's socket: it answers with passwords
    ".git-credential-cache",
    ".pgpass",
    ".my.cnf",
    ".1password",
    ".config/op",
    ".claude/.credentials.json",
)
# Relative to the home folder: per-user caches that stay writable in the sandbox, so package
# managers and builds work.
WRITABLE_CACHES = (
    ".cache",
    ".npm",
    ".yarn",
    ".pnpm-store",
    ".local/share/pnpm",
    ".bun/install/cache",
    ".deno",
    ".cargo/registry",
    ".cargo/git",
    "go/pkg/mod",
    ".m2/repository",
    ".gradle/caches",
    ".gradle/wrapper",
    ".nuget/packages",
    "Library/Caches",
)
# Writes under these ask: the operating system's own files. (Not /var, /opt or /root: projects
# live there too.)
SYSTEM_DIRS = (
    "/etc",
    "/boot",
    "/bin",
    "/sbin",
    "/usr",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/sys",
    "/proc",
    "/System",
    "/Library",
    "/private/etc",
)


def protected_reason(path: Path, roots: tuple[Path, ...], home: Path) -> str | None:
    """Why ``path`` (absolute, resolved) is protected, or None."""
    for root in roots:
        if path.is_relative_to(root):
            parts = [part.lower() for part in path.relative_to(root).parts]
            for part in parts:
                if part in PROTECTED_NAMES:
                    return f"{part} is protected: {PROTECTED_NAMES[part]}"
            if parts and parts[-1].startswith(PROTECTED_PREFIX):
                return f"{parts[-1]} is protected: {PROTECTED_PREFIX_REASON}"
    for name in SHELL_STARTUP_FILES:
        if path == home / name:
            return f"{name} is protected: your shell runs it at start-up"
    return None


SCAN_DEPTH = 3  # nested repositories and .env files are looked for this deep
SCAN_LIMIT = 5000  # entries looked at, at most, per workspace root
SCAN_SKIPS = frozenset(
    {
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        "target",
        "dist",
        "build",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".next",
        ".gradle",
        ".terraform",
    }
)
GIT_CONFIG_BYTES = 256 * 1024  # of a workspace's .git/config, read for core.hooksPath
_HOOKS_PATH = re.compile(r'^\s*hookspath\s*=\s*"?([^"\n]+?)"?\s*$', re.IGNORECASE | re.MULTILINE)


def protected_in(root: Path, home: Path) -> list[Path]:
    """The protected paths that exist in a workspace root: its own, the nested ones (a
    submodule's ``.git``, ``app/.env``) to a depth of ``SCAN_DEPTH``, the folder git's
    ``core.hooksPath`` names, and your shell's start-up files when your home is the root."""
    found: list[Path] = []
    seen = 0
    level = [root]
    for _ in range(SCAN_DEPTH):
        below: list[Path] = []
        for folder in level:
            with contextlib.suppress(OSError), os.scandir(folder) as entries:
                for entry in entries:
                    seen += 1
                    name = entry.name.lower()
                    if name in PROTECTED_NAMES or name.startswith(PROTECTED_PREFIX):
                        found.append(Path(entry.path))
                    elif entry.is_dir(follow_symlinks=False) and name not in SCAN_SKIPS:
                        below.append(Path(entry.path))
                    if seen >= SCAN_LIMIT:
                        return found + _hooks(root) + _startup(root, home)
        level = below
    return found + _hooks(root) + _startup(root, home)


def _hooks(root: Path) -> list[Path]:
    """The folder of ``core.hooksPath`` (``.husky``…), when the repository names one in it."""
    try:  # the repository's own file: a FIFO or a link out of it is not read (safe_open)
        config = read_inside(root / ".git" / "config", [root], GIT_CONFIG_BYTES).text()
    except (OSError, UnsafeFile):
        return []
    hooks = [(root / match.group(1).strip()).resolve() for match in _HOOKS_PATH.finditer(config)]
    return [path for path in hooks if path.is_relative_to(root) and path.exists()]


def _startup(root: Path, home: Path) -> list[Path]:
    if not home.is_relative_to(root):
        return []
    return [home / name for name in SHELL_STARTUP_FILES if (home / name).exists()]


def hard_linked(path: Path) -> bool:
    """A regular file with more than one name: editing it here changes it wherever else it is
    linked, possibly outside the workspace."""
    try:
        info = path.stat()
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_nlink > 1


def is_system_path(value: str) -> bool:
    """An absolute path under the operating system's own folders."""
    if not value.startswith("/"):
        return False
    normal = "/" + "/".join(p for p in value.split("/") if p and p != ".")
    return any(normal == d or normal.startswith(d + "/") for d in SYSTEM_DIRS)


def installed(program: str) -> str | None:
    """``program``'s full path, found only in the absolute folders of this process's ``PATH``:
    an empty or relative entry (``PATH=...:``, ``node_modules/.bin``) would find it in the
    current folder, which may be a repository that planted one (Heron's git, bubblewrap)."""
    import shutil

    folders = [folder for folder in os.get_exec_path() if Path(folder).is_absolute()]
    return shutil.which(program, path=os.pathsep.join(folders))
