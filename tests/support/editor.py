"""A fake editor on real stdio: advertises fs and terminals (or not), keeps unsaved buffers,
answers permission requests and form elicitations as a test tells it, and runs terminal
commands for real."""

from __future__ import annotations

import os
import subprocess
import threading
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from tests.support.raw import RawAgent


class FakeEditor(RawAgent):
    def __init__(
        self,
        env: Mapping[str, str],
        *,
        fs: bool = True,
        terminal: bool = True,
        check_schema: bool = True,
        elicitation: bool = False,
        cwd: Path | None = None,  # the agent's own working directory
    ) -> None:
        super().__init__(env, cwd, check_schema=check_schema)
        self.fs, self.terminal, self.elicitation = fs, terminal, elicitation
        self.buffers: dict[str, str] = {}  # unsaved editor buffers, by absolute path
        self.writes: list[tuple[str, str]] = []  # fs/write_text_file calls, in order
        self.requests: list[dict[str, Any]] = []  # every request the agent sent us
        self.answers: deque[str] = deque()  # optionIds to choose, or "cancel"; default: first allow
        # elicitation/create results to send, or None to leave one unanswered; default: decline
        self.elicitations: deque[dict[str, Any] | None] = deque()
        self.terminals: dict[str, subprocess.Popen[bytes]] = {}
        # `_heron/diagnostics`: a file's diagnostics as the editor's language services see it
        self.diagnose: Callable[[Path], list[dict[str, Any]]] | None = None
        self.diagnosed: set[str] = set()
        self._outputs: dict[str, bytearray] = {}
        self._pumps: dict[str, threading.Thread] = {}  # each terminal's output reader
        self._lock = threading.Lock()

    def initialize(self, capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
        advertised = {
            "fs": {"readTextFile": self.fs, "writeTextFile": self.fs},
            "terminal": self.terminal,
        }
        if self.elicitation:
            advertised["elicitation"] = {"form": {}}
        return super().initialize({**advertised, **(capabilities or {})})

    def send_raw(self, data: bytes) -> None:
        with self._lock:
            super().send_raw(data)

    def answer(self, message: dict[str, Any]) -> None:
        self.requests.append(message)
        method, params = message["method"], message["params"]
        if method == "session/request_permission":
            self._reply(message, {"outcome": self._choose(params["options"])})
        elif method == "elicitation/create" and self.elicitation:
            result = self.elicitations.popleft() if self.elicitations else {"action": "decline"}
            if result is not None:
                self._reply(message, result)
        elif method == "fs/read_text_file":
            path = params["path"]
            if path in self.buffers:
                self._reply(message, {"content": self.buffers[path]})
            elif Path(path).is_file():
                self._reply(message, {"content": Path(path).read_text()})
            else:
                self._error(message, -32002, f"no such file {path}")
        elif method == "fs/write_text_file":
            self.writes.append((params["path"], params["content"]))
            Path(params["path"]).parent.mkdir(parents=True, exist_ok=True)
            Path(params["path"]).write_text(params["content"])
            self.buffers.pop(params["path"], None)
            self._reply(message, {})
        elif method == "_heron/diagnostics" and self.diagnose is not None:
            paths = params.get("paths") or sorted(self.diagnosed)
            self.diagnosed.update(paths)
            files = [{"path": p, "diagnostics": self.diagnose(Path(p))} for p in paths]
            self._reply(message, {"files": files})
        elif method.startswith("terminal/"):
            self._terminal(message, method.removeprefix("terminal/"), params)
        else:
            self._error(message, -32601, f"Method not found: {method}")

    def _choose(self, options: list[dict[str, Any]]) -> dict[str, Any]:
        choice = self.answers.popleft() if self.answers else None
        if choice == "cancel":
            return {"outcome": "cancelled"}
        if choice is None:
            choice = next(o["optionId"] for o in options if o["kind"].startswith("allow"))
        return {"outcome": "selected", "optionId": choice}

    def _terminal(self, message: dict[str, Any], action: str, params: dict[str, Any]) -> None:
        if action == "create":
            terminal_id = f"term-{len(self.terminals) + 1}"
            extra = {v["name"]: v["value"] for v in params.get("env", [])}  # over the editor's
            process = subprocess.Popen(
                [params["command"], *params.get("args", [])],
                cwd=params.get("cwd"),
                env={**os.environ, **extra},
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            self.terminals[terminal_id] = process
            self._outputs[terminal_id] = bytearray()
            pump = threading.Thread(target=self._pump, args=(terminal_id, process), daemon=True)
            self._pumps[terminal_id] = pump
            pump.start()
            self._reply(message, {"terminalId": terminal_id})
            return
        terminal_id = params["terminalId"]
        process = self.terminals[terminal_id]
        if action == "wait_for_exit":  # answered when it exits, while other requests go on

            def exited() -> None:
                status = self._exit(process, wait=True)
                self._pumps[terminal_id].join(5)  # all it printed is output, as in an editor
                self._reply(message, status)

            threading.Thread(target=exited, daemon=True).start()
        elif action == "kill":
            process.kill()
            self._reply(message, {})
        elif action == "output":
            output = {
                "output": self._outputs[terminal_id].decode(errors="replace"),
                "truncated": False,
            }
            if process.poll() is not None:
                self._pumps[terminal_id].join(5)
                output["output"] = self._outputs[terminal_id].decode(errors="replace")
                output["exitStatus"] = self._exit(process, wait=False)
            self._reply(message, output)
        elif action == "release":
            if process.poll() is None:
                process.kill()
            process.wait()
            self._reply(message, {})

    def _pump(self, terminal_id: str, process: subprocess.Popen[bytes]) -> None:
        assert process.stdout is not None
        with process.stdout as stdout:
            for chunk in iter(lambda: stdout.read1(4096), b""):
                self._outputs[terminal_id] += chunk

    @staticmethod
    def _exit(process: subprocess.Popen[bytes], *, wait: bool) -> dict[str, Any]:
        code = process.wait() if wait else process.returncode
        return (
            {"exitCode": code, "signal": None}
            if code is not None and code >= 0
            else {"exitCode": None, "signal": "SIGKILL"}
        )

    def _reply(self, message: dict[str, Any], result: Any) -> None:
        self.send({"jsonrpc": "2.0", "id": message["id"], "result": result})

    def _error(self, message: dict[str, Any], code: int, text: str) -> None:
        self.send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": code, "message": text}})
