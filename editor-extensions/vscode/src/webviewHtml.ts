// The chat webview's HTML shell: a strict Content-Security-Policy, scripts only with a nonce. Pure.
import { randomBytes } from "node:crypto";

export function makeNonce(): string {
  return randomBytes(18).toString("base64").replace(/[^A-Za-z0-9]/g, "");
}

export interface WebviewAssets {
  cspSource: string;
  scriptUri: string;
  styleUri: string;
  nonce: string;
}

export function chatHtml(assets: WebviewAssets): string {
  const csp = [
    "default-src 'none'",
    `style-src ${assets.cspSource}`,
    `script-src 'nonce-${assets.nonce}'`,
    `img-src ${assets.cspSource} data:`,
    `font-src ${assets.cspSource}`,
  ].join("; ");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${assets.styleUri}">
<title>Heron</title>
</head>
<body>
<header id="header">
  <select id="session-select" aria-label="Session"><option value="">New session</option></select>
  <div id="pickers">
    <select id="mode-select" aria-label="Approval mode" disabled></select>
    <select id="model-select" aria-label="Model" disabled></select>
  </div>
</header>
<div id="transcript" role="log" aria-label="Conversation with Heron" aria-live="off"></div>
<div id="announcer" class="sr-only" role="status" aria-live="polite"></div>
<div id="footer">
  <div id="usage" role="status"></div>
  <form id="composer">
    <textarea id="prompt" rows="3" aria-label="Prompt for Heron" aria-describedby="prompt-keys" placeholder="Ask Heron… (Enter to send, Shift+Enter for a new line, Escape to stop)"></textarea>
    <span id="prompt-keys" class="sr-only">Enter sends, Shift+Enter starts a new line, Alt+Up goes to the conversation, Escape stops a running turn.</span>
    <div class="buttons">
      <button type="submit" id="send">Send</button>
      <button type="button" id="stop" aria-label="Stop the turn" hidden disabled>Stop</button>
    </div>
  </form>
</div>
<script nonce="${assets.nonce}" src="${assets.scriptUri}"></script>
</body>
</html>`;
}
