"""A small language server over stdio for tests, that does what typescript-language-server
does with a project: it runs the project's own ``node_modules/typescript/lib/tsserver.js`` (with
``node`` from its ``PATH``) when it initializes, and reports what that said as each open file's
one diagnostic, so whatever the project's code could see reaches the model.

``python lsp_server.py [--silent | --hang] [token]``: ``--silent`` never publishes diagnostics,
``--hang`` never answers ``initialize``; the token only marks the process for a test to find.
It says ``fake-lsp started`` on stderr (which Heron appends to its language-server log).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

PROJECT_TYPESCRIPT = ("node_modules", "typescript", "lib", "tsserver.js")


def read_message() -> dict[str, Any] | None:
    length = 0
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    message: dict[str, Any] = json.loads(sys.stdin.buffer.read(length))
    return message


def send(message: dict[str, Any]) -> None:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


def project_typescript(root_uri: str | None) -> str:
    """Run the project's tsserver.js, as typescript-language-server prefers it; what it said."""
    if not root_uri:
        return "no root"
    script = Path(unquote(urlparse(root_uri).path), *PROJECT_TYPESCRIPT)
    node = shutil.which("node")
    if not script.is_file() or node is None:
        return f"no project typescript (node: {node})"
    done = subprocess.run(
        [node, str(script)], capture_output=True, text=True, timeout=20, check=False
    )
    return (done.stdout + done.stderr).strip().replace("\n", " | ")


def main(argv: list[str]) -> int:
    silent, hang = "--silent" in argv, "--hang" in argv
    sys.stderr.write("fake-lsp started\n")
    sys.stderr.flush()
    said = ""
    while (message := read_message()) is not None:
        method = message.get("method")
        params: dict[str, Any] = message.get("params") or {}
        if method == "initialize":
            if hang:
                time.sleep(3600)
            said = project_typescript(params.get("rootUri"))
            send({"id": message["id"], "result": {"capabilities": {"textDocumentSync": 1}}})
        elif method == "shutdown":
            send({"id": message["id"], "result": None})
        elif method == "exit":
            return 0
        elif method in ("textDocument/didOpen", "textDocument/didChange") and not silent:
            document: dict[str, Any] = params["textDocument"]
            found = {
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
                "severity": 1,
                "message": f"project typescript said: {said} (version {document['version']})",
                "source": "fake-lsp",
            }
            publish: dict[str, Any] = {"uri": document["uri"], "version": document["version"]}
            send(
                {
                    "method": "textDocument/publishDiagnostics",
                    "params": {**publish, "diagnostics": [found]},
                }
            )
        elif "id" in message and method is not None:
            send({"id": message["id"], "result": None})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
