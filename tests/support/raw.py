"""A raw client: ``heron acp`` as a subprocess, driven line by line with exact bytes.

For malformed-input tests and lifecycle checks the official SDKs cannot express. Every line
the agent writes must be one JSON-RPC message; every message both ways is schema-checked.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from queue import Empty, Queue
from typing import Any

from tests.support.schema import WireChecker

HERON = [sys.executable, "-m", "acp_server"]


class RawAgent:
    def __init__(
        self,
        env: Mapping[str, str],
        cwd: Path | None = None,
        args: tuple[str, ...] = (),
        *,
        check_schema: bool = True,  # benchmarks turn it off: it costs CPU the timings would see
        preexec: Callable[[], None] | None = None,  # run in the child before heron (limits)
        command: Sequence[str] = HERON,  # another ACP agent, for side-by-side benchmarks
    ) -> None:
        self.check_schema = check_schema
        self.proc = subprocess.Popen(
            [*command, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(env),
            cwd=cwd,
            preexec_fn=preexec,
        )
        self.checker = WireChecker()
        self.messages: Queue[dict[str, Any]] = Queue()
        self.arrivals: list[tuple[float, dict[str, Any]]] = []  # (time.monotonic(), message)
        self.stderr = b""
        self._next_id = 0
        self._readers = [
            threading.Thread(target=self._read_stdout, daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    # -- sending --------------------------------------------------------------------

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        if message.get("jsonrpc") == "2.0" and self.check_schema:
            self.checker.check("to_agent", message)
        self.send_raw(json.dumps(message).encode() + b"\n")

    def request(
        self, method: str, params: Any = None, *, check: bool = True, timeout: float = 10.0
    ) -> Any:
        """Send a request and return the whole response (other messages stay queued)."""
        self._next_id += 1
        request_id = self._next_id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        if check:
            self.send(message)
        else:
            self.send_raw(json.dumps(message).encode() + b"\n")
        return self.wait_for(lambda m: m.get("id") == request_id and "method" not in m, timeout)

    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def start_prompt(self, session_id: str, text: str, *, request_id: int | str) -> None:
        """Send a prompt without waiting for its answer (to cancel it, close the agent, ...)."""
        params = {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}
        self.send(
            {"jsonrpc": "2.0", "id": request_id, "method": "session/prompt", "params": params}
        )

    def prompt(
        self, session_id: str, text: str, timeout: float = 30.0
    ) -> tuple[str, list[dict[str, Any]]]:
        """Run a prompt; its stop reason and the session updates that arrived before the answer."""
        params = {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}
        response, updates = self.exchange("session/prompt", params, timeout)
        if "error" in response:
            raise AssertionError(f"prompt failed: {response['error']}")
        return response["result"]["stopReason"], updates

    def exchange(
        self, method: str, params: dict[str, Any], timeout: float = 30.0
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """Send a request and answer the agent's requests until its response comes: the whole
        response, and the session updates that arrived before it."""
        self._next_id += 1
        request_id = self._next_id
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        updates: list[dict[str, Any]] = []
        while True:
            message = self.wait_for(lambda m: True, timeout=timeout)
            if message.get("id") == request_id and "method" not in message:
                return message, updates
            if message.get("method") == "session/update":
                updates.append(message["params"]["update"])
            elif "method" in message and "id" in message:
                self.answer(message)

    def answer(self, message: dict[str, Any]) -> None:
        """A request from the agent during a prompt; this client offers nothing, so it errs."""
        self.send(
            {
                "jsonrpc": "2.0",
                "id": message["id"],
                "error": {"code": -32601, "message": f"Method not found: {message['method']}"},
            }
        )

    def initialize(self, capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
        response = self.request(
            "initialize",
            {
                "protocolVersion": 1,
                "clientCapabilities": capabilities or {},
                "clientInfo": {"name": "raw-test-client", "version": "0"},
            },
        )
        return response["result"]

    def new_session(self, cwd: Path) -> str:
        response = self.request("session/new", {"cwd": str(cwd), "mcpServers": []})
        return response["result"]["sessionId"]

    def start_session(self, cwd: Path, capabilities: dict[str, Any] | None = None) -> str:
        """The common set-up: ``initialize`` (with ``capabilities``), then a session in ``cwd``."""
        self.initialize(capabilities)
        return self.new_session(cwd)

    def turn_under_way(
        self,
        cwd: Path,
        text: str,
        *,
        request_id: int | str,
        started: Callable[[dict[str, Any]], bool] | None = None,
    ) -> str:
        """``start_session`` in ``cwd``, then ``text`` sent as a prompt (``request_id``) until its
        first update arrives (or the first message ``started`` accepts): the session's id."""
        session_id = self.start_session(cwd)
        self.start_prompt(session_id, text, request_id=request_id)
        self.wait_for(started or (lambda m: m.get("method") == "session/update"))
        return session_id

    # -- receiving ------------------------------------------------------------------

    def wait_for(self, predicate: Any, timeout: float = 10.0) -> dict[str, Any]:
        """The first queued message matching ``predicate``; the others are kept in order."""
        deadline = time.monotonic() + timeout
        skipped: list[dict[str, Any]] = []
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(
                        f"no matching message in {timeout} s; stderr: {self.stderr[-2000:]!r}"
                    )
                try:
                    message = self.messages.get(timeout=remaining)
                except Empty:
                    continue
                if predicate(message):
                    return message
                skipped.append(message)
        finally:
            for message in skipped:
                self.messages.put(message)

    def drain(self, quiet: float = 0.3) -> list[dict[str, Any]]:
        """Everything that arrives until the agent has been quiet for ``quiet`` seconds."""
        out: list[dict[str, Any]] = []
        while True:
            try:
                out.append(self.messages.get(timeout=quiet))
            except Empty:
                return out

    def close(self, timeout: float = 5.0) -> int:
        """Close stdin and wait for the agent to exit; returns its exit code."""
        assert self.proc.stdin is not None
        if not self.proc.stdin.closed:
            self.proc.stdin.close()
        return self.proc.wait(timeout=timeout)

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            message = json.loads(line)  # anything but JSON on stdout fails here, loudly
            assert isinstance(message, dict), line
            self.arrivals.append((time.monotonic(), message))
            if self.check_schema:
                self.checker.check("from_agent", message)
            self.messages.put(message)

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr += line

    def __enter__(self) -> RawAgent:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for reader in self._readers:
            reader.join(timeout=5)
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if pipe is not None and not pipe.closed:
                with contextlib.suppress(BrokenPipeError):
                    pipe.close()
