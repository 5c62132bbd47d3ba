"""The paths safety cares about, in one place: what is protected inside a workspace, which
credential stores are hidden, which folders stay writable for builds, what counts as a shell
start-up file or a system path.

The edit tools (``protected_reason``, ``hard_linked``), the command judgement (the same lists
as patterns over words) and the sandbox (the same lists as real paths) all read them here, so
a path protected in one place is protected in all three.
"""

from __future__ import annotations

import stat
from pathlib import Path

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

# Relative to the home folder.
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
    ".config/fish/config.fish",
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
