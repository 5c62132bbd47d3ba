import assert from "node:assert/strict";
import { test } from "node:test";
import { selectionPrompt } from "../src/selection";
import { chatHtml, makeNonce } from "../src/webviewHtml";

test("the chat HTML has a strict CSP and runs only the nonce'd script", () => {
  const nonce = makeNonce();
  assert.match(nonce, /^[A-Za-z0-9]{16,}$/);
  const html = chatHtml({ cspSource: "vscode-resource:", scriptUri: "vscode-resource:/chat.js", styleUri: "vscode-resource:/chat.css", nonce });
  const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? "";
  assert.ok(csp.includes("default-src 'none'"), csp);
  assert.ok(csp.includes(`script-src 'nonce-${nonce}'`), csp);
  assert.ok(!csp.includes("unsafe-inline") && !csp.includes("unsafe-eval"), csp);
  const scripts = html.match(/<script[^>]*>/g) ?? [];
  assert.deepEqual(scripts, [`<script nonce="${nonce}" src="vscode-resource:/chat.js">`]);
});

test("a selection becomes the question plus an embedded resource with the line range", () => {
  const { blocks, display } = selectionPrompt({
    uri: "file:///w/src/app.py",
    path: "src/app.py",
    languageId: "python",
    text: "def f():\n    pass\n",
    startLine: 10,
    endLine: 20,
    question: "What does f do?",
  });
  assert.deepEqual(blocks, [
    { type: "text", text: "What does f do?" },
    { type: "resource", resource: { uri: "file:///w/src/app.py#L10-20", mimeType: "text/x-python", text: "def f():\n    pass\n" } },
  ]);
  assert.equal(display, "What does f do?\n\n(selection: src/app.py#L10-20)");
});
