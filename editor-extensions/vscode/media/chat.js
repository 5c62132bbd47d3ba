// Chat webview script. The HTML it inserts is rendered (escaped, then formatted) by the
// extension host; this script only places it, shows or hides subagents' tool calls, and sends
// prompts back.
(function () {
  const vscode = acquireVsCodeApi();
  const transcript = document.getElementById("transcript");
  const usage = document.getElementById("usage");
  const form = document.getElementById("composer");
  const prompt = document.getElementById("prompt");
  const cancel = document.getElementById("cancel");
  const send = document.getElementById("send");
  let busy = false;

  function nearBottom() {
    return window.innerHeight + window.scrollY >= document.body.scrollHeight - 40;
  }

  function upsert(id, html) {
    let node = document.querySelector('[data-id="' + CSS.escape(id) + '"]');
    if (!node) {
      node = document.createElement("div");
      node.dataset.id = id;
      transcript.appendChild(node);
    }
    // Keep an expanded <details> (thoughts) open while it streams, and keyboard focus on the
    // subagent toggle it was on: a running card is drawn again with every change.
    const open = node.querySelector("details[open]") !== null;
    const active = document.activeElement;
    const focused = active && node.contains(active) && active.dataset ? active.dataset.tool : undefined;
    node.innerHTML = html;
    if (open) node.querySelector("details")?.setAttribute("open", "");
    if (focused) node.querySelector('button[data-tool="' + CSS.escape(focused) + '"]')?.focus();
  }

  /** Shows or hides a subagent's tool calls at once; the extension keeps the choice. */
  function toggleChildren(button) {
    const expanded = button.getAttribute("aria-expanded") !== "true";
    button.setAttribute("aria-expanded", String(expanded));
    const list = document.getElementById(button.getAttribute("aria-controls") || "");
    if (list) list.hidden = !expanded;
    vscode.postMessage({ type: "toggleTool", id: button.dataset.tool, expanded });
  }

  window.addEventListener("message", (event) => {
    const message = event.data;
    const stick = nearBottom();
    if (message.type === "reset") {
      transcript.textContent = "";
      usage.textContent = "";
    } else if (message.type === "items") {
      for (const item of message.items) upsert(item.id, item.html);
      usage.innerHTML = message.usage;
    } else if (message.type === "busy") {
      busy = message.busy === true;
      document.body.classList.toggle("busy", busy);
      send.disabled = busy; // one turn at a time
    }
    if (stick) window.scrollTo(0, document.body.scrollHeight);
  });

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = prompt.value.trim();
    if (!text || busy) return;
    vscode.postMessage({ type: "prompt", text });
    prompt.value = "";
  });
  prompt.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  cancel.addEventListener("click", () => vscode.postMessage({ type: "cancel" }));
  // file: links open in an editor (the webview itself cannot open them).
  transcript.addEventListener("click", (event) => {
    const closest = (selector) => (event.target && event.target.closest ? event.target.closest(selector) : null);
    const toggle = closest("button.children-toggle");
    if (toggle) {
      toggleChildren(toggle);
      return;
    }
    const link = closest("a[href]");
    if (!link) return;
    const href = link.getAttribute("href") || "";
    if (/^file:/i.test(href)) {
      event.preventDefault();
      vscode.postMessage({ type: "openFile", href });
    }
  });
  vscode.postMessage({ type: "ready" });
})();
