"""``heron setup container [WORKSPACE]`` and ``heron setup local [WORKSPACE]``: a workspace's
commands in a container, or back on this machine, written as its
``[execution.workspaces."<path>"]`` table in the user's ``config.toml`` (never in a file of the
repository: a repository is untrusted input). Comments and the rest of the file stay as they
were; the file is backed up first and replaced atomically.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TextIO, cast

from acp_server.install import workspace_config
from acp_server.install.backends import install_hint
from acp_server.install.setup import back_up
from agent_core.config import heron_home
from agent_core.errors import ConfigError
from agent_core.execution.container import ContainerSpec, find_devcontainer
from agent_core.execution.engine import EngineError, find_engine
from agent_core.execution.settings import ExecutionSettings, read_execution


def run_setup_container(
    out: TextIO,
    workspace: str | None,
    *,
    image: str | None = None,
    dockerfile: str | None = None,
    engine: str | None = None,
    dry_run: bool = False,
) -> int:
    folder = _workspace(out, workspace)
    if folder is None:
        return 1
    if image is not None and (not image.strip() or any(c.isspace() for c in image)):
        out.write(f"--image {image!r} is not an image name (e.g. localhost/my-toolchain).\n")
        return 1
    values: dict[str, str | None] = {"backend": "container"}
    if engine is not None:
        values["engine"] = engine
    if dockerfile is not None:
        file = Path(dockerfile).expanduser().resolve()
        if not file.is_file():
            out.write(f"--dockerfile {dockerfile}: no such file ({file}).\n")
            return 1
        values.update(image=None, dockerfile=str(file))
    elif image is not None:
        values.update(image=image, dockerfile=None)
    config = heron_home() / "config.toml"
    text = _read(out, config)
    if text is None:
        return 1
    updated = _updated(out, config, text, folder, values)
    if updated is None:
        return 1
    try:
        effective = _effective(updated, folder)
    except ConfigError as exc:
        out.write(f"Not changing {config}: with this table it would say: {exc}\n")
        return 1
    source = _source(folder, effective)
    if source is None:
        out.write(
            f"No image for {folder}'s container: pass --image NAME or --dockerfile PATH, or add "
            f".devcontainer/devcontainer.json to {folder}. Nothing written.\n"
        )
        return 1
    done = _write(out, config, text, updated, folder, dry_run=dry_run)
    if done != 0 or dry_run:
        return done
    name = ContainerSpec((folder,), Path.home(), heron_home()).name
    out.write(f"Commands Heron runs in {folder} (and below it) now run in a container, {source}.\n")
    out.write(
        f"Next: the first command of a session there starts the container ({name}; building the "
        "image first can take minutes, shown as a notice); later commands and sessions reuse it, "
        "and it stops when Heron ends. A running `heron acp` applies it to its next session. "
        f"`heron doctor` in {folder} shows its state; `heron setup local {folder}` turns it off.\n"
    )
    try:
        find_engine(effective.engine)
    except EngineError:
        out.write(
            f"No container engine is installed yet: {install_hint(engine)}. "
            "Until then those commands fail with this fix.\n"
        )
    return 0


def run_setup_local(out: TextIO, workspace: str | None, *, dry_run: bool = False) -> int:
    folder = _workspace(out, workspace)
    if folder is None:
        return 1
    config = heron_home() / "config.toml"
    text = _read(out, config)
    if text is None:
        return 1
    if not _current(text, folder):
        out.write(
            f"{folder} has no [execution.workspaces] table in {config}: its commands run as "
            "[execution] says (on this machine unless you set backend there). Nothing written.\n"
        )
        return 0
    updated = _updated(out, config, text, folder, {"backend": "local"})
    if updated is None:
        return 1
    done = _write(out, config, text, updated, folder, dry_run=dry_run)
    if done == 0 and not dry_run:
        out.write(
            f"Commands Heron runs in {folder} now run on this machine, in the OS sandbox, from a "
            "session started after this. Its image settings are kept for `heron setup "
            "container`; a container Heron left running stops when Heron ends.\n"
        )
    return done


def _workspace(out: TextIO, given: str | None) -> Path | None:
    folder = Path(given or Path.cwd()).expanduser().resolve()
    if not folder.is_dir():
        out.write(f"{given}: not a folder ({folder}). Nothing written.\n")
        return None
    if ":" in str(folder) or "," in str(folder):
        out.write(f"{folder}: a path with ':' or ',' cannot be mounted in a container.\n")
        return None
    return folder


def _read(out: TextIO, config: Path) -> str | None:
    try:
        return config.read_text(encoding="utf-8") if config.exists() else ""
    except OSError as exc:
        out.write(f"Cannot read {config}: {exc.strerror or exc}. Nothing written.\n")
        return None


def _current(text: str, folder: Path) -> dict[str, str]:
    """The workspace's table as the file has it now (empty when unreadable or absent)."""
    import tomllib

    try:
        table = workspace_config.table_of(tomllib.loads(text), folder) or {}
    except tomllib.TOMLDecodeError:
        return {}
    return {key: value for key, value in table.items() if isinstance(value, str)}


def _effective(text: str, folder: Path) -> ExecutionSettings:
    """The folder's execution settings as Heron would read them from ``text``."""
    import tomllib

    section: Any = tomllib.loads(text).get("execution", {})
    return read_execution(
        cast(dict[str, Any], section) if isinstance(section, dict) else {}
    ).for_workspace(folder)


def _source(folder: Path, effective: ExecutionSettings) -> str | None:
    """Where the container's image comes from, in words, or None when nothing says."""
    if effective.dockerfile is not None:
        return f"built from {effective.dockerfile}"
    if effective.image:
        return f"from the image {effective.image}"
    found = find_devcontainer(folder)
    return f"made from {found} (through the dev container CLI where installed)" if found else None


def _updated(
    out: TextIO, config: Path, text: str, folder: Path, values: dict[str, str | None]
) -> str | None:
    try:
        return workspace_config.updated_text(text, folder, values)
    except ConfigError as exc:
        shown = workspace_config.snippet(folder, values)
        out.write(f"Not changing {config}: {exc}. Fix the file, or add this by hand:\n{shown}\n")
        return None


def _write(
    out: TextIO, config: Path, text: str, updated: str, folder: Path, *, dry_run: bool
) -> int:
    table = workspace_config.snippet(folder, _current(updated, folder))
    if updated == text:
        out.write(f"{config} already has:\n{table}\nNothing to change.\n")
        return 0
    if dry_run:
        action = "update" if text else "create"
        out.write(f"Would {action} {config} with:\n{table}\n(nothing written: --dry-run)\n")
        return 0
    backup = back_up(config) if text else None
    try:
        workspace_config.replace(config, updated)
    except ConfigError as exc:
        out.write(f"{exc}\n")
        return 1
    out.write(f"Wrote to {config}:\n{table}\n")
    if backup is not None:
        out.write(f"The previous file is kept as {backup}.\n")
    return 0
