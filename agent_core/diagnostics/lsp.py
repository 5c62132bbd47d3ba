"""One language server Heron runs, as an LSP client built on pygls: started for a workspace
root, told each changed file's text, asked for that file's diagnostics.

A server that offers pull diagnostics (``textDocument/diagnostic``, LSP 3.17) is asked; one that
only publishes them is waited for: the first ``publishDiagnostics`` for the file's new version,
then a short quiet time for a second one. Every wait has a limit and yields to cancellation; a
pulled request given up on is cancelled at the server (``$/cancelRequest``), and a server that
let a request time out is waited for at most ``STALLED_S`` until it is heard from again, so a
hung server costs a turn one full wait, not one per file. Everything here is imported on the
first edit of a file a configured server covers, never on the start-up path (pygls and
lsprotocol take ~0.3 s).
"""

from __future__ import annotations

import itertools
import logging
import os
import signal
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, cast

import anyio
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.client import LanguageClient
from pygls.protocol import LanguageServerProtocol

from agent_core.diagnostics.model import Diagnostic, Severity

log = logging.getLogger(__name__)

SEVERITIES: dict[int, Severity] = {1: "error", 2: "warning", 3: "information", 4: "hint"}
QUIET_S = 0.05  # after a published set, how long a second one (a slower check) may take
SHUTDOWN_S = 1.0  # a stopping server's time to shut down cleanly; then it is killed
STALLED_S = 0.25  # the wait for a server not heard from since a request of it timed out
LANGUAGE_IDS = {
    ".py": "python",
    ".pyi": "python",
    ".ts": "typescript",
    ".tsx": "typescriptreact",
    ".js": "javascript",
    ".jsx": "javascriptreact",
    ".go": "go",
    ".rs": "rust",
}


class ServerFailed(Exception):
    """The server could not be started, or stopped answering."""


class _Protocol(LanguageServerProtocol):
    """pygls's protocol, noting when the server last said anything."""

    heard = 0.0  # time.monotonic()

    def handle_message(self, message: Any) -> None:
        self.heard = time.monotonic()
        super().handle_message(message)


class _Client(LanguageClient):
    """pygls's client, answering what servers ask of their client with empty settings."""

    def __init__(self) -> None:
        super().__init__("heron", "1", protocol_cls=_Protocol)
        self.published: dict[str, tuple[int | None, tuple[Diagnostic, ...]]] = {}
        self.changed = anyio.Event()
        handlers: dict[str, Callable[[Any], Any]] = {
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: lambda p: self._published(
                p
            ),  # a function: pygls marks it
            types.WORKSPACE_CONFIGURATION: lambda p: [None for _ in p.items],
            types.CLIENT_REGISTER_CAPABILITY: lambda _: None,
            types.WINDOW_WORK_DONE_PROGRESS_CREATE: lambda _: None,
            types.PROGRESS: lambda _: None,
            types.WINDOW_LOG_MESSAGE: lambda p: log.debug("%s", p.message),
            types.WINDOW_SHOW_MESSAGE: lambda p: log.info("%s", p.message),
        }
        for method, handler in handlers.items():
            register = cast(Callable[[Callable[[Any], Any]], Any], self.feature(method))
            register(handler)

    def _published(self, params: types.PublishDiagnosticsParams) -> None:
        self.published[params.uri] = (params.version, to_diagnostics(params.diagnostics))
        self.changed.set()

    def report_server_error(self, error: Exception, source: Any) -> None:
        log.warning("language server error: %s", error)

    async def spawn(self, argv: Sequence[str], cwd: Path) -> None:
        start = cast(Callable[..., Awaitable[None]], self.start_io)  # pyright: ignore[reportUnknownMemberType]
        await start(argv[0], *argv[1:], cwd=str(cwd), start_new_session=True)

    def kill(self) -> None:
        """SIGKILL to the server's process group (it leads one: ``start_new_session``), so
        that what it started goes too; a sandbox's whole PID namespace ends with it."""
        server = self._server
        if server is None or server.returncode is not None:
            return
        try:
            os.killpg(server.pid, signal.SIGKILL)
        except OSError:  # not a group leader after all, or gone meanwhile
            server.kill()


class LanguageServer:
    """One server process for one workspace root."""

    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        root: Path,
        on_stop: Callable[[], None] | None = None,
    ) -> None:
        """``on_stop``: called once the process is gone (its sandbox tidied up)."""
        self.name, self._argv, self._root = name, list(argv), root
        self._on_stop = on_stop
        self._client = _Client()
        self._versions: dict[str, tuple[int, str]] = {}  # uri -> (version, text) sent
        self._pull = False
        self._timed_out: float | None = None  # when a request last did, unheard from since
        self._ids = itertools.count(1)

    @property
    def running(self) -> bool:
        return not self._client.stopped

    async def start(self, limit: float) -> None:
        """Start the process and initialize it, within ``limit`` seconds. A server that does
        not get there, or whose wait is cancelled, is killed at once: it never had a session
        to shut down cleanly."""
        try:
            with anyio.fail_after(limit):
                await self._client.spawn(self._argv, self._root)
                result = await self._client.initialize_async(self._initialize_params())
        except (OSError, TimeoutError, RuntimeError, JsonRpcException) as exc:
            await self._abandon()
            why = str(exc) or type(exc).__name__
            raise ServerFailed(f"{self.name} did not start: {why}") from exc
        except BaseException:  # cancelled: the process must not outlive the wait
            await self._abandon()
            raise
        self._pull = result.capabilities.diagnostic_provider is not None
        self._client.initialized(types.InitializedParams())

    async def diagnostics(self, path: Path, text: str, limit: float) -> tuple[Diagnostic, ...]:
        """``path``'s diagnostics once the server has ``text`` for it."""
        if not self.running:
            raise ServerFailed(f"{self.name} has stopped")
        uri = path.as_uri()
        sent, known = self._versions.get(uri), self._client.published.get(uri)
        unchanged = sent is not None and sent[1] == text and _current(known, sent[0])
        if not self._pull and unchanged and known is not None:  # nothing new to wait for
            return known[1]
        version = self._send(uri, path, text)
        stalled = self._stalled()
        try:
            with anyio.fail_after(STALLED_S if stalled else limit):
                if self._pull:
                    return await self._pulled(uri)
                return await self._pushed(uri, version)
        except TimeoutError as exc:
            if stalled is not None:
                since = time.monotonic() - stalled
                why = f"{self.name} has not answered since a request timed out {since:.0f} s ago"
                raise ServerFailed(why) from exc
            self._timed_out = time.monotonic()
            raise ServerFailed(f"{self.name} gave no diagnostics within {limit:g} s") from exc
        except RuntimeError as exc:  # the process ended with the request open
            raise ServerFailed(f"{self.name} stopped: {exc}") from exc
        except JsonRpcException as exc:  # an error for an answer
            raise ServerFailed(f"{self.name} answered with an error: {exc}") from exc

    async def stop(self) -> None:
        """Ask the server to shut down, for at most ``SHUTDOWN_S``, then kill what is left."""
        client = self._client
        if client.stopped:
            self._stopped()
            return
        with anyio.move_on_after(SHUTDOWN_S, shield=True):
            try:
                await client.shutdown_async(None)
                client.exit(None)
            except Exception as exc:  # noqa: BLE001 - a server that is going away anyway
                log.debug("%s did not shut down cleanly: %s", self.name, exc)
        await self._abandon()

    async def _abandon(self) -> None:
        """Kill the process and what it started, and wait (briefly, shielded) for the end."""
        self._client.kill()
        with anyio.move_on_after(SHUTDOWN_S, shield=True):
            await self._client.stop()
        self._stopped()

    def _stopped(self) -> None:
        if self._on_stop is not None:
            done, self._on_stop = self._on_stop, None
            done()

    def _send(self, uri: str, path: Path, text: str) -> int:
        sent = self._versions.get(uri)
        if sent is not None and sent[1] == text:
            return sent[0]
        version = sent[0] + 1 if sent else 1
        self._versions[uri] = (version, text)
        self._client.changed = anyio.Event()
        self._client.published.pop(uri, None)
        if sent is None:
            language = LANGUAGE_IDS.get(path.suffix, "plaintext")
            item = types.TextDocumentItem(uri, language, version, text)
            self._client.text_document_did_open(types.DidOpenTextDocumentParams(item))
        else:
            change = types.TextDocumentContentChangeWholeDocument(text)
            document = types.VersionedTextDocumentIdentifier(version, uri)
            self._client.text_document_did_change(
                types.DidChangeTextDocumentParams(document, [change])
            )
        return version

    def _stalled(self) -> float | None:
        """When a request timed out, if the server has said nothing since."""
        heard = cast(_Protocol, self._client.protocol).heard
        if self._timed_out is not None and heard > self._timed_out:
            self._timed_out = None
        return self._timed_out

    async def _pulled(self, uri: str) -> tuple[Diagnostic, ...]:
        params = types.DocumentDiagnosticParams(types.TextDocumentIdentifier(uri))
        protocol = self._client.protocol
        request = f"heron-{next(self._ids)}"
        method = types.TEXT_DOCUMENT_DIAGNOSTIC
        try:
            report: Any = await protocol.send_request_async(method, params, msg_id=request)
        except anyio.get_cancelled_exc_class():  # timed out or cancelled: the server may stop
            self._cancel(request)
            raise
        if isinstance(report, types.RelatedFullDocumentDiagnosticReport):
            return to_diagnostics(report.items)
        return self._client.published.get(uri, (None, ()))[1]  # unchanged: what it said before

    def _cancel(self, request: str) -> None:
        protocol = self._client.protocol
        futures = protocol._request_futures  # pyright: ignore[reportPrivateUsage]
        futures.pop(request, None)  # nobody waits for its answer now
        if not self._client.stopped:
            try:
                protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=request))
            except Exception as exc:  # noqa: BLE001 - a server going away: nothing to cancel
                log.debug("%s: cancelling %s failed: %s", self.name, request, exc)

    async def _pushed(self, uri: str, version: int) -> tuple[Diagnostic, ...]:
        client = self._client
        while not _current(client.published.get(uri), version):
            await client.changed.wait()
            client.changed = anyio.Event()
        with anyio.move_on_after(QUIET_S):  # a second, slower check may follow
            await client.changed.wait()
        return client.published[uri][1]

    def _initialize_params(self) -> types.InitializeParams:
        capabilities = types.ClientCapabilities(
            text_document=types.TextDocumentClientCapabilities(
                synchronization=types.TextDocumentSyncClientCapabilities(),
                publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                    version_support=True
                ),
                diagnostic=types.DiagnosticClientCapabilities(),
            ),
            workspace=types.WorkspaceClientCapabilities(configuration=True),
        )
        folder = types.WorkspaceFolder(self._root.as_uri(), self._root.name)
        return types.InitializeParams(
            capabilities=capabilities,
            process_id=None,
            root_uri=self._root.as_uri(),
            workspace_folders=[folder],
            client_info=types.ClientInfo("heron"),
        )


def _current(published: tuple[int | None, tuple[Diagnostic, ...]] | None, version: int) -> bool:
    """A published set for ``version`` (or one without a version: sent after the change)."""
    return published is not None and (published[0] is None or published[0] >= version)


def to_diagnostics(items: Sequence[types.Diagnostic]) -> tuple[Diagnostic, ...]:
    return tuple(
        Diagnostic(
            item.range.start.line + 1,
            item.range.start.character + 1,
            SEVERITIES.get(int(item.severity or 1), "error"),
            item.message,
            item.source or "",
            "" if item.code is None else str(item.code),
        )
        for item in items
    )


ServerLauncher = Callable[[list[str]], list[str]]  # a server's argv -> as it is run
