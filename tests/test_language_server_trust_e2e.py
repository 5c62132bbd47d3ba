"""A repository is untrusted input, and language servers run its code: end to end over real
stdio (``heron acp``, the fake editor, the fake model server), with repositories that plant code
where servers run it.

- basedpyright (real) runs the workspace's ``.venv/bin/python``: a planted one runs, but only in
  the sandbox: it cannot write outside (nor in) the workspace, nor read ``~/.ssh``;
- typescript-language-server runs the project's ``node_modules/typescript/lib/tsserver.js``:
  the same, through a small server that does what it does (``tests/support/lsp_server.py``),
  whose diagnostic carries what the planted code could see to the model; the user's
  ``confined = false`` and ``network = true`` do what they say, and without a sandbox the
  server is left off, with a notice;
- a program named like a server, in the workspace, is never started, whatever PATH says
  (empty, relative and in-workspace entries, links into the workspace);
- a server that hangs holds up neither a turn nor ``session/cancel``.

The fake HOME and the folder planted code aims at are under /var/tmp, not /tmp: the sandbox's
/tmp is private, and a target that is merely out of sight would prove less.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_core.diagnostics.servers import DEFAULTS
from tests.support.editor import FakeEditor
from tests.support.fake_llm import FakeLLM, Reply, Text, ToolCall
from tests.support.llm_requests import last_result
from tests.support.sandbox import END_TO_END_SANDBOX

pytestmark = END_TO_END_SANDBOX

SECRET = "planted-secret-4711"
BIN = Path(sys.executable).parent
LSP_SERVER = Path(__file__).parent / "support" / "lsp_server.py"
MODEL = "anthropic:claude-sonnet-4-5"
PLANTED_TSSERVER = """\
const fs = require("fs"), os = require("os");
const tries = {
  outside: () => { fs.writeFileSync(%(outside)s, "x"); return "written"; },
  workspace: () => { fs.writeFileSync(%(workspace)s, "x"); return "written"; },
  secret: () => fs.readFileSync(os.homedir() + "/.ssh/id_rsa", "utf8").trim(),
  config: () => fs.readFileSync(os.homedir() + "/.gitconfig", "utf8").trim(),
  heron: () => "listed " + fs.readdirSync(%(heron)s).length,
  net: () => fs.readlinkSync("/proc/self/ns/net"),
};
for (const [name, attempt] of Object.entries(tries)) {
  let result;
  try { result = attempt(); } catch (e) { result = "refused " + (e.code || e.message); }
  console.log(name + "=" + result + ";");
}
"""


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder outside the workspace and outside /tmp: the fake HOME (with a planted
    ``~/.ssh``) and the place planted code tries to write."""
    folder = Path(tempfile.mkdtemp(dir="/var/tmp", prefix="heron-trust-"))
    home = folder / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(SECRET + "\n")
    (home / ".gitconfig").write_text("visible-config\n")
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def environment(agent_env: dict[str, str], fake: FakeLLM, outside: Path) -> dict[str, str]:
    return {**agent_env, **fake.environment(MODEL), "HOME": str(outside / "home")}


def configure(home: Path, extra: str = "", *, wait: float = 5.0, first_wait: float = 30.0) -> None:
    (home / "config.toml").write_text(
        f"[diagnostics]\nfirst_wait = {first_wait}\nwait = {wait}\n{extra}"
    )


def typescript_server(*flags: str, options: str = "") -> str:
    """config.toml's section for the TypeScript-like test server."""
    command = json.dumps([sys.executable, str(LSP_SERVER), *flags])
    return f"[diagnostics.servers.typescript]\ncommand = {command}\nextensions = ['.ts']\n{options}"


def executable(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def edit_turn(fake: FakeLLM, name: str, old: str, new: str) -> None:
    change = {"old_string": old, "new_string": new}
    fake.enqueue(
        Reply((ToolCall("read_file", {"path": name}),)),
        Reply((ToolCall("edit_file", {"path": name, "edits": [change]}),)),
        Reply((Text("Done."),)),
    )


def notices(updates: list[dict[str, Any]]) -> str:
    return "\n".join(
        u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk"
    )


def server_log(heron_home: Path) -> str:
    log = heron_home / "logs" / "language-servers.log"
    return log.read_text() if log.exists() else ""


def what_it_saw(result: str) -> dict[str, str]:
    """The planted tsserver.js's findings, from the test server's diagnostic."""
    found = dict(re.findall(r"(\w+)=([^;]*);", result))
    assert set(found) == {"outside", "workspace", "secret", "config", "heron", "net"}, result
    return found


def plant_typescript(workspace: Path, outside: Path, heron_home: Path) -> None:
    script = PLANTED_TSSERVER % {
        "outside": json.dumps(str(outside / "marker")),
        "workspace": json.dumps(str(workspace / "planted-was-here")),
        "heron": json.dumps(str(heron_home)),
    }
    lib = workspace / "node_modules" / "typescript" / "lib"
    lib.mkdir(parents=True)
    (lib / "tsserver.js").write_text(script)
    (workspace / "app.ts").write_text("let x = 1;\n")


@pytest.mark.skipif(shutil.which("node") is None, reason="the planted tsserver.js needs node")
@pytest.mark.parametrize("how", ["confined", "network", "unconfined"])
def test_the_projects_typescript_runs_only_in_the_sandbox_unless_the_user_says_otherwise(
    how: str,
    agent_env: dict[str, str],
    heron_home: Path,
    workspace: Path,
    fake: FakeLLM,
    outside: Path,
) -> None:
    options = {"confined": "", "network": "network = true\n", "unconfined": "confined = false\n"}
    configure(heron_home, typescript_server(options=options[how]))
    plant_typescript(workspace, outside, heron_home)
    edit_turn(fake, "app.ts", "let x = 1;", "let x = 2;")
    with FakeEditor(environment(agent_env, fake, outside)) as editor:
        stop, _ = editor.prompt(editor.start_session(workspace), "change x", timeout=60)
    assert stop == "end_turn"
    result = last_result(fake.requests[2].body)
    assert "project typescript said:" in result  # the planted code ran, and reported
    seen = what_it_saw(result)
    assert seen["config"] == "visible-config"  # HOME is there, read-only
    ours = os.readlink("/proc/self/ns/net")
    if how == "unconfined":  # the user's own choice: the server runs with their rights
        assert seen["outside"] == "written" and (outside / "marker").exists()
        assert seen["secret"] == SECRET and seen["net"] == ours
        return
    assert seen["outside"].startswith("refused") and not (outside / "marker").exists()
    assert seen["workspace"].startswith("refused") and not (workspace / "planted-was-here").exists()
    assert seen["secret"].startswith("refused") and SECRET not in json.dumps(fake.requests[-1].body)
    assert seen["heron"] in ("listed 0", "refused ENOENT")  # Heron's home: empty to it
    assert (seen["net"] == ours) == (how == "network")  # no network unless configured


@pytest.mark.skipif(
    shutil.which("typescript-language-server") is None,
    reason="typescript-language-server is not installed (the test server above stands in)",
)
def test_the_real_typescript_language_server_runs_the_projects_typescript_only_confined(
    agent_env: dict[str, str], heron_home: Path, workspace: Path, fake: FakeLLM, outside: Path
) -> None:
    """The default server for TypeScript, found on PATH: the planted tsserver.js it prefers
    reports to a file in the sandbox's private /tmp (found again by Heron's pid)."""
    configure(heron_home, wait=3.0)
    plant_typescript(workspace, outside, heron_home)
    tsserver = workspace / "node_modules" / "typescript" / "lib" / "tsserver.js"
    report = 'const report = (line) => require("fs").appendFileSync("/tmp/planted-seen", line);\n'
    tsserver.write_text(report + tsserver.read_text().replace("console.log(", "report("))
    (workspace / "node_modules" / "typescript" / "package.json").write_text(
        '{"name": "typescript", "version": "5.9.3"}'
    )
    edit_turn(fake, "app.ts", "let x = 1;", "let x = 2;")
    with FakeEditor(environment(agent_env, fake, outside)) as editor:
        stop, _ = editor.prompt(editor.start_session(workspace), "change x", timeout=90)
        private = Path(tempfile.gettempdir()).glob(f"heron-sandbox-{editor.proc.pid}-*/tmp")
        said = "".join(
            (p / "planted-seen").read_text() for p in private if (p / "planted-seen").exists()
        )
    assert stop == "end_turn"
    seen = what_it_saw(said)  # it ran the project's TypeScript, in the sandbox
    assert seen["outside"].startswith("refused") and not (outside / "marker").exists()
    assert seen["workspace"].startswith("refused")
    assert seen["secret"].startswith("refused") and seen["config"] == "visible-config"
    assert not Path("/tmp/planted-seen").exists()


@pytest.mark.skipif(
    shutil.which("typescript-language-server") is None,
    reason="typescript-language-server is not installed",
)
def test_the_real_typescript_language_server_still_reports_in_the_sandbox(
    agent_env: dict[str, str], heron_home: Path, workspace: Path, fake: FakeLLM, outside: Path
) -> None:
    """With the project's TypeScript (the one installed beside the server, linked into the
    workspace's node_modules), nothing writable but its private /tmp, and no network."""
    server = Path(shutil.which("typescript-language-server") or "")
    typescript = server.resolve().parents[2] / "typescript"  # node_modules/<server>/lib/cli.mjs
    if not (typescript / "lib" / "tsserver.js").is_file():
        pytest.skip(f"no TypeScript beside {server}")
    (workspace / "node_modules").mkdir()
    (workspace / "node_modules" / "typescript").symlink_to(typescript)
    configure(heron_home, wait=20.0, first_wait=60.0)
    (workspace / "app.ts").write_text("let x: number = 1;\n")
    edit_turn(fake, "app.ts", "let x: number = 1;", 'let x: number = "one";')
    with FakeEditor(environment(agent_env, fake, outside)) as editor:
        stop, _ = editor.prompt(editor.start_session(workspace), "make x a word", timeout=120)
    assert stop == "end_turn"
    result = last_result(fake.requests[2].body)
    assert "Type 'string' is not assignable to type 'number'" in result, result


def test_without_a_sandbox_a_server_is_left_off_and_the_user_is_told_how_to_opt_in(
    agent_env: dict[str, str], heron_home: Path, workspace: Path, fake: FakeLLM, outside: Path
) -> None:
    configure(heron_home, "[sandbox]\nenabled = false\n" + typescript_server())
    plant_typescript(workspace, outside, heron_home)
    edit_turn(fake, "app.ts", "let x = 1;", "let x = 2;")
    with FakeEditor(environment(agent_env, fake, outside)) as editor:
        stop, updates = editor.prompt(editor.start_session(workspace), "change x", timeout=60)
    assert stop == "end_turn"
    result = last_result(fake.requests[2].body)
    assert "Diagnostics unavailable: typescript is left off" in result
    told = notices(updates)
    assert told.count("No diagnostics from typescript") == 1
    assert "[diagnostics.servers.typescript] confined = false" in told
    assert "fake-lsp started" not in server_log(heron_home)  # never started
    assert not (outside / "marker").exists()


def test_a_planted_venv_python_runs_only_in_the_sandbox_and_basedpyright_still_works(
    agent_env: dict[str, str], heron_home: Path, workspace: Path, fake: FakeLLM, outside: Path
) -> None:
    """Heron's default Python server, found on PATH (the dev dependency), with the project's
    ``.venv``: basedpyright runs its ``bin/python`` (twice, to learn its version and paths)."""
    configure(heron_home, wait=20.0)  # no server configured: the default, basedpyright
    seen = "/tmp/planted-seen"  # the sandbox's private /tmp: found again below, by Heron's pid
    executable(
        workspace / ".venv" / "bin" / "python",
        "#!/bin/sh\n{\n  echo ran\n"
        f"  echo x > {outside / 'marker'} && echo outside=written\n"
        f"  echo x > {workspace / 'planted-was-here'} && echo workspace=written\n"
        '  cat "$HOME/.ssh/id_rsa"\n'
        f'}} >> {seen} 2>&1\nexec {sys.executable} "$@"\n',
    )
    (workspace / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (workspace / "app.py").write_text("x = 1\nprint(x)\n")
    edit_turn(fake, "app.py", "print(x)", "print(fresh_missing)")
    env = environment(agent_env, fake, outside)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}"
    with FakeEditor(env) as editor:
        stop, _ = editor.prompt(editor.start_session(workspace), "use a new name", timeout=90)
        private = list(Path(tempfile.gettempdir()).glob(f"heron-sandbox-{editor.proc.pid}-*/tmp"))
        said = "".join(
            p.joinpath("planted-seen").read_text() for p in private if (p / "planted-seen").exists()
        )
    assert stop == "end_turn"
    assert '"fresh_missing" is not defined' in last_result(fake.requests[2].body)
    assert "ran" in said  # basedpyright ran the planted interpreter, in the sandbox
    assert "outside=written" not in said and not (outside / "marker").exists()
    assert "workspace=written" not in said and not (workspace / "planted-was-here").exists()
    assert SECRET not in said and "No such file" in said  # ~/.ssh is an empty folder there
    assert not Path(seen).exists()  # nothing reached the real /tmp either


def test_a_program_named_like_a_server_in_the_workspace_is_never_started(
    agent_env: dict[str, str], heron_home: Path, workspace: Path, fake: FakeLLM, outside: Path
) -> None:
    """Every default server's program planted where a careless PATH lookup finds it: the
    workspace root (an empty PATH entry, with Heron started in the workspace), relative entries
    (``node_modules/.bin``, ``bin``), an absolute entry inside the workspace, and a link to the
    workspace from a folder outside it."""
    configure(heron_home)
    links = outside / "links"
    links.mkdir()
    names = {spec.command[0] for candidates in DEFAULTS for spec in candidates}
    for name in names:
        planted = f"#!/bin/sh\necho PLANTED {name} >&2\necho x > {outside}/marker-{name}\n"
        for folder in ("", "node_modules/.bin", "bin", "tools"):
            executable(workspace / folder / name, planted)
        (links / name).symlink_to(workspace / name)
    (workspace / "app.py").write_text("x = 1\nprint(x)\n")
    edit_turn(fake, "app.py", "print(x)", "print(y)")
    env = environment(agent_env, fake, outside)
    entries = ["/usr/bin", "/bin", "", "node_modules/.bin", "bin", str(workspace / "tools")]
    env["PATH"] = os.pathsep.join([*entries, str(links)])
    with FakeEditor(env, cwd=workspace) as editor:
        stop, _ = editor.prompt(editor.start_session(workspace), "use y", timeout=60)
    assert stop == "end_turn"
    assert "PLANTED" not in server_log(heron_home)
    assert not list(outside.glob("marker-*"))


def anything(message: dict[str, Any]) -> bool:
    return True


def _prompt_until_edit(editor: FakeEditor, session_id: str) -> float:
    """Start a prompt, answer what the agent asks, return once its edit is under way."""
    editor.start_prompt(session_id, "change x", request_id="turn")
    while True:
        message = editor.wait_for(anything, timeout=30)
        if "method" in message and "id" in message:
            editor.answer(message)
        update = message.get("params", {}).get("update", {})
        if update.get("sessionUpdate") == "tool_call" and update.get("kind") == "edit":
            return time.monotonic()


def _cancelled_within(editor: FakeEditor, session_id: str) -> float:
    time.sleep(1.0)  # the edit is waiting for the server now
    sent = time.monotonic()
    editor.notify("session/cancel", {"sessionId": session_id})
    while True:
        message = editor.wait_for(anything, timeout=30)
        if "method" in message and "id" in message:
            editor.answer(message)
        if message.get("id") == "turn":
            assert message["result"]["stopReason"] == "cancelled"
            return time.monotonic() - sent


def _running(token: str) -> list[str]:
    found: list[str] = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and token in (entry / "cmdline").read_text():
                found.append(entry.name)
        except OSError:
            continue
    return found


@pytest.mark.parametrize("hangs", ["--silent", "--hang"])
def test_a_hanging_server_holds_up_neither_the_turn_nor_cancel(
    hangs: str,
    agent_env: dict[str, str],
    heron_home: Path,
    workspace: Path,
    fake: FakeLLM,
    outside: Path,
) -> None:
    """A server that never answers ``initialize`` (``--hang``) or never reports (``--silent``),
    with waits far longer than the test: cancel ends the turn at once, and a server cancelled
    while it starts is gone with the wait."""
    token = f"heron-test-{os.getpid()}-{hangs.strip('-')}"
    configure(heron_home, typescript_server(hangs, token), wait=120, first_wait=120)
    (workspace / "app.ts").write_text("let x = 1;\n")
    edit_turn(fake, "app.ts", "let x = 1;", "let x = 2;")
    editor = FakeEditor(environment(agent_env, fake, outside))
    with editor:
        session_id = editor.start_session(workspace)
        _prompt_until_edit(editor, session_id)
        assert _cancelled_within(editor, session_id) < 5.0  # the waits are 120 s
        if hangs == "--hang":
            deadline = time.monotonic() + 5
            while _running(token) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert not _running(token)
    assert not _running(token)  # and none outlives Heron


def test_a_silent_server_costs_a_turn_one_wait_not_one_per_file(
    agent_env: dict[str, str], heron_home: Path, workspace: Path, fake: FakeLLM, outside: Path
) -> None:
    """Three edits, each asking before and after: the first question waits its 3 s, the
    others only as long as a server not heard from since gets (``lsp.STALLED_S``); six full
    waits would take 18 s."""
    configure(heron_home, typescript_server("--silent"), wait=3.0, first_wait=3.0)
    (workspace / "app.ts").write_text("let x = 1;\n")
    changes = [
        ("let x = 1;", "let x = 2;"),
        ("let x = 2;", "let x = 3;"),
        ("let x = 3;", "let x = 4;"),
    ]
    fake.enqueue(Reply((ToolCall("read_file", {"path": "app.ts"}),)))
    for old, new in changes:
        edit = {"path": "app.ts", "edits": [{"old_string": old, "new_string": new}]}
        fake.enqueue(Reply((ToolCall("edit_file", edit),)))
    fake.enqueue(Reply((Text("Done."),)))
    with FakeEditor(environment(agent_env, fake, outside)) as editor:
        session_id = editor.start_session(workspace)
        started = time.monotonic()
        stop, _ = editor.prompt(session_id, "change x thrice", timeout=60)
        took = time.monotonic() - started
    assert stop == "end_turn" and (workspace / "app.ts").read_text() == "let x = 4;\n"
    assert took < 12, took  # one wait of 3 s, five of 0.25 s, and the turn itself
    results = [last_result(fake.requests[n].body) for n in (2, 3, 4)]
    assert all("Diagnostics unavailable: typescript" in r for r in results)
    assert "has not answered since a request timed out" in results[-1]


def test_doctor_says_how_each_server_runs_and_whether_it_starts_there(
    agent_env: dict[str, str], heron_home: Path, outside: Path
) -> None:
    env = {**agent_env, "HOME": str(outside / "home")}
    env["PATH"] = f"{BIN}{os.pathsep}/usr/bin:/bin"  # basedpyright, the dev dependency

    def doctor(config: str) -> str:
        (heron_home / "config.toml").write_text(config)
        done = subprocess.run(
            [str(BIN / "heron"), "doctor"], env=env, capture_output=True, text=True, timeout=120
        )
        return done.stdout

    said = doctor("")
    assert re.search(
        r"\[ok\] diagnostics for \.py \.pyi: basedpyright .*starts in the sandbox", said
    )
    off = doctor("[sandbox]\nenabled = false\n")
    assert re.search(r"\[!!\] diagnostics for \.py \.pyi: basedpyright .*is left off", off)
    assert "[diagnostics.servers.basedpyright] confined = false" in off
    opted = doctor(
        "[sandbox]\nenabled = false\n[diagnostics.servers.basedpyright]\nconfined = false\n"
    )
    assert "basedpyright (" in opted and "starts unconfined, as config.toml says" in opted
    assert "basedpyright runs unconfined" in opted
