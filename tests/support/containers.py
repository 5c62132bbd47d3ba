"""Container tests' set-up: Podman (skipped, with the reason, when it is not installed), a tiny
image imported from a local root file system (no registry), the workspace's container spec."""

from __future__ import annotations

import io
import os
import secrets
import shutil
import subprocess
import tarfile
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

import pytest

from agent_core.execution.container import ContainerSpec
from agent_core.execution.engine import Engine

# The image has no /usr of its own: the host's is mounted read-only (sh, setsid, tail, ...).
RUN_OPTIONS = ("-v", "/usr:/usr:ro")
LINKS = {"bin": "usr/bin", "lib": "usr/lib", "lib64": "usr/lib64", "sbin": "usr/sbin"}


def require_podman() -> str:
    path = shutil.which("podman")
    if path is None:
        pytest.skip(
            "podman is not installed (make sandbox installs it: apt-get install podman runc)"
        )
    return path


def engine(heron_home: Path) -> Engine:
    return Engine.find("podman", state=heron_home / "containers", environment=dict(os.environ))


def import_image(os_id: str, programs: Mapping[str, str] = MappingProxyType({})) -> str:
    """A local image whose /etc/os-release says ``ID=<os_id>``: a skeleton root, imported;
    ``programs``: more files, executable (path inside -> text)."""
    name = f"localhost/{os_id}:latest"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for folder in ("usr", "etc", "tmp", "run", "run/heron", "proc", "dev", "sys"):
            info = tarfile.TarInfo(folder)
            info.type, info.mode = tarfile.DIRTYPE, 0o1777 if folder == "tmp" else 0o755
            tar.addfile(info)
        for link, target in LINKS.items():
            info = tarfile.TarInfo(link)
            info.type, info.linkname = tarfile.SYMTYPE, target
            tar.addfile(info)
        release = f"ID={os_id}\nNAME=heron test image\n".encode()
        info = tarfile.TarInfo("etc/os-release")
        info.size = len(release)
        tar.addfile(info, io.BytesIO(release))
        for path, text in programs.items():
            parts = path.strip("/").split("/")
            for depth in range(1, len(parts)):  # its folders, in order
                info = tarfile.TarInfo("/".join(parts[:depth]))
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            content = text.encode()
            info = tarfile.TarInfo("/".join(parts))
            info.size, info.mode = len(content), 0o755
            tar.addfile(info, io.BytesIO(content))
    subprocess.run(
        ["podman", "import", "-q", "-", name],
        input=buffer.getvalue(),
        check=True,
        capture_output=True,
    )
    return name


def remove_image(name: str) -> None:
    subprocess.run(["podman", "rmi", "-f", name], check=False, capture_output=True)


def remove_container(name: str) -> None:
    subprocess.run(["podman", "rm", "-f", "-t", "0", name], check=False, capture_output=True)


def unique_id() -> str:
    return f"heron-test-{secrets.token_hex(4)}"


def spec(
    roots: tuple[Path, ...],
    home: Path,
    heron_home: Path,
    image: str | None = None,
    dockerfile: Path | None = None,
) -> ContainerSpec:
    return ContainerSpec(
        roots=roots,
        home=home,
        heron_home=heron_home,
        image=image,
        dockerfile=dockerfile,
        run_options=RUN_OPTIONS,
    )
