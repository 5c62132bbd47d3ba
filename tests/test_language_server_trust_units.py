"""Where language servers' programs come from, and how they are launched: the PATH lookup that
never takes a workspace's file, config.toml's ``confined`` and ``network``, and the command line
a server runs with (in the sandbox, refused, or the user's opt-out)."""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from agent_core.config import load_settings
from agent_core.diagnostics.launching import Refused, ServerLauncher
from agent_core.diagnostics.servers import LanguageServerSpec, finder, safe_search_path
from agent_core.diagnostics.settings import DiagnosticsSettings
from agent_core.errors import ConfigError
from agent_core.safety.sandbox.settings import SandboxSettings

SPEC = LanguageServerSpec("lsp", ("/usr/bin/true", "--stdio"), frozenset({".x"}))


def program(path: Path, *, runnable: bool = True) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755 if runnable else 0o644)
    return path


def test_programs_come_only_from_absolute_path_entries_outside_the_workspace(
    tmp_path: Path,
) -> None:
    root, elsewhere = tmp_path / "workspace", tmp_path / "elsewhere"
    for folder in ("", "bin", "node_modules/.bin", "tools"):
        program(root / folder / "server")
    program(elsewhere / "links" / "other")
    (elsewhere / "links" / "server").symlink_to(root / "server")  # a link into the workspace
    program(elsewhere / "plain" / "text-file", runnable=False)
    real = program(elsewhere / "real" / "server")
    entries = ["", ".", "bin", "node_modules/.bin", str(root / "tools"), str(root)]
    entries += [str(elsewhere / "links"), str(elsewhere / "plain"), str(elsewhere / "real")]
    search = os.pathsep.join(entries)
    cwd = Path.cwd()
    os.chdir(root)  # where a relative entry would find the planted programs
    try:
        which = finder(search, (root,))
        assert which("server") == str(real)  # every planted one passed over
        assert which("text-file") is None and which("missing") is None
        assert which("other") == str(elsewhere / "links" / "other")
        assert which("/opt/configured/server") == "/opt/configured/server"  # the user's own
        assert which("./server") is None and which("bin/server") is None
        kept = [str(elsewhere / n) for n in ("links", "plain", "real")]
        assert safe_search_path(search, (root,)) == os.pathsep.join(kept)
        link = tmp_path / "to-workspace"
        link.symlink_to(root)  # an entry that is the workspace through a link
        assert safe_search_path(f"{link / 'tools'}:/usr/bin", (root,)) == "/usr/bin"
    finally:
        os.chdir(cwd)


def diagnostics_of(home: Path, text: str) -> DiagnosticsSettings:
    (home / "config.toml").write_text(text)
    return load_settings({"HERON_HOME": str(home)}).diagnostics


def test_config_says_which_servers_run_unconfined_or_with_a_network(tmp_path: Path) -> None:
    found = diagnostics_of(
        tmp_path,
        "[diagnostics.servers.basedpyright]\nconfined = false\n"
        "[diagnostics.servers.mine]\ncommand = ['/opt/mine']\nextensions = ['.m']\n"
        "network = true\n",
    )
    assert found.unconfined == {"basedpyright"} and found.networked == {"mine"}
    assert [s.name for s in found.servers] == ["mine"]  # basedpyright's section: options only
    assert diagnostics_of(tmp_path, "").unconfined == frozenset()  # confined by default
    for bad in ("confined = 'no'", "network = 1", "command = ['/x']"):
        with pytest.raises(ConfigError):
            diagnostics_of(tmp_path, f"[diagnostics.servers.s]\n{bad}\n")


def launcher(
    tmp_path: Path, sandbox: SandboxSettings | None = None, **names: str
) -> ServerLauncher:
    return ServerLauncher(
        (tmp_path,),
        sandbox=sandbox or SandboxSettings(),
        unconfined=frozenset(names.get("unconfined", "").split()),
        networked=frozenset(names.get("networked", "").split()),
        search_path="/usr/bin:/bin",
        home=tmp_path / "home",
        heron_home=tmp_path / "heron",
        scrubbed=("SECRET_TOKEN",),
        log_file=tmp_path / "heron" / "logs" / "language-servers.log",
    )


def test_a_program_not_found_or_without_a_sandbox_is_refused_with_the_way_out(
    tmp_path: Path,
) -> None:
    with pytest.raises(Refused, match="only PATH's absolute folders"):
        launcher(tmp_path)(SPEC._replace(command=("my-lsp",)))
    off = SandboxSettings(enabled=False)
    with pytest.raises(Refused, match=r"\[diagnostics.servers.lsp\] confined = false in "):
        launcher(tmp_path, off)(SPEC)
    opted_out = launcher(tmp_path, off, unconfined="lsp")(SPEC)
    assert "bwrap" not in " ".join(opted_out.argv)
    assert opted_out.argv[-4:] == ["/usr/bin/env", "PATH=/usr/bin:/bin", *SPEC.command]
    assert opted_out.argv[:3] == ["/bin/sh", "-c", 'exec "$@" 2>>"$0"']  # stderr to the log
    assert "SECRET_TOKEN" in opted_out.argv  # unset: -u SECRET_TOKEN
    opted_out.done()


@pytest.mark.skipif(os.uname().sysname != "Linux", reason="bubblewrap is Linux's")
@pytest.mark.usefixtures("bubblewrap")
@pytest.mark.parametrize("networked", ["", "lsp"])
def test_a_server_runs_in_a_sandbox_of_its_own_with_the_workspace_read_only(
    networked: str, tmp_path: Path
) -> None:
    launch = launcher(tmp_path, networked=networked)(SPEC)
    argv = launch.argv
    bwrap = argv.index("--") if "--" in argv else -1
    assert "bwrap" in argv[4] and bwrap > 0
    options = argv[4:bwrap]
    pairs = list(itertools.pairwise(options))
    assert ("--ro-bind", str(tmp_path)) in pairs and ("--bind", str(tmp_path)) not in pairs
    assert ("--unsetenv", "SECRET_TOKEN") in pairs
    assert ("--unshare-net" in options) == (not networked)
    private = next(Path(p) for flag, p in pairs if flag == "--bind" and p.endswith("/tmp"))
    assert [p for flag, p in pairs if flag == "--bind"] == [str(private)]  # writes: its /tmp only
    assert private.is_dir()
    launch.done()
    assert not private.exists()  # its folder goes when it stops


@pytest.mark.skipif(os.uname().sysname != "Linux", reason="bubblewrap is Linux's")
@pytest.mark.usefixtures("bubblewrap")
def test_a_confined_server_writes_its_caches_in_its_own_folder_and_nowhere_else(
    tmp_path: Path,
) -> None:
    """The fake HOME under /var/tmp: under /tmp, the sandbox's private /tmp would hide it."""
    home = Path(tempfile.mkdtemp(dir="/var/tmp", prefix="heron-units-")) / "home"
    try:
        (home / ".cache").mkdir(parents=True)
        script = (
            'mkdir -p "$XDG_CACHE_HOME/gopls" && echo x > "$XDG_CACHE_HOME/gopls/x" && echo ok; '
            f"echo x > {home}/.cache/poisoned || echo refused; "
            f"echo x > {tmp_path}/w || echo refused"
        )
        spec = SPEC._replace(command=("/bin/sh", "-c", script))
        launch = launcher(tmp_path)(spec)
        argv = launch.argv[4:]  # without the log's redirection: stderr stays with the test
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
        launch.done()
        assert done.stdout.split() == ["ok", "refused", "refused"], done
        assert "Read-only file system" in done.stderr
        assert not (home / ".cache" / "poisoned").exists() and not (tmp_path / "w").exists()
    finally:
        shutil.rmtree(home.parent, ignore_errors=True)
