// Chat webview script. The HTML it inserts is rendered (escaped, then formatted) by the
// extension host; this script only places it, shows or hides subagents' tool calls, draws the
// header's pickers (with DOM APIs, from plain data) and sends prompts and choices back.
(function () {
  const vscode = acquireVsCodeApi();
  const transcript = document.getElementById("transcript");
  const usage = document.getElementById("usage");
  const form = document.getElementById("composer");
  const prompt = document.getElementById("prompt");
  const stop = document.getElementById("stop");
  const send = document.getElementById("send");
  const sessionSelect = document.getElementById("session-select");
  const pickers = document.getElementById("pickers");
  /** Pickers the HTML has from the start: kept, empty, when the session has no such option. */
  const FIXED_PICKERS = ["mode-select", "model-select"];
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

  function optionNode(choice) {
    const option = document.createElement("option");
    option.value = choice.value;
    option.textContent = choice.label;
    if (choice.description) option.title = choice.description;
    return option;
  }

  /** Fills a select with choices (a choice with `choices` is an optgroup), then selects `value`. */
  function fillSelect(select, choices, value) {
    select.textContent = "";
    for (const choice of choices) {
      if (!Array.isArray(choice.choices)) {
        select.appendChild(optionNode(choice));
        continue;
      }
      const group = document.createElement("optgroup");
      group.label = choice.group;
      for (const inner of choice.choices) group.appendChild(optionNode(inner));
      select.appendChild(group);
    }
    select.value = value;
  }

  /** The session picker, then a picker per config option in the agent's order. */
  function showHeader(header) {
    fillSelect(sessionSelect, header.sessions, header.sessionId);
    const shown = new Set();
    for (const picker of header.pickers) {
      let select = document.getElementById(picker.id);
      if (!select) {
        select = document.createElement("select");
        select.id = picker.id;
      }
      select.dataset.config = picker.configId;
      select.setAttribute("aria-label", picker.label);
      select.title = picker.description ? picker.label + ": " + picker.description : picker.label;
      fillSelect(select, picker.choices, picker.value);
      select.disabled = !header.enabled;
      select.hidden = false;
      pickers.appendChild(select); // moved into the agent's order
      shown.add(picker.id);
    }
    for (const select of Array.from(pickers.children)) {
      if (shown.has(select.id)) continue;
      if (!FIXED_PICKERS.includes(select.id)) {
        select.remove();
        continue;
      }
      delete select.dataset.config;
      fillSelect(select, [{ value: "", label: select.getAttribute("aria-label") }], "");
      select.disabled = true;
      select.hidden = header.enabled; // a session without this option: out of the way
    }
  }

  /** The usage line: plain text, and a sentence for screen readers. */
  function showUsage(view) {
    usage.textContent = view && view.text ? view.text : "";
    if (view && view.label) usage.setAttribute("aria-label", view.label);
    else usage.removeAttribute("aria-label");
  }

  function stopTurn() {
    if (busy) vscode.postMessage({ type: "stop" });
  }

  window.addEventListener("message", (event) => {
    const message = event.data;
    const stick = nearBottom();
    if (message.type === "reset") {
      transcript.textContent = "";
      showUsage(null);
    } else if (message.type === "items") {
      for (const item of message.items) upsert(item.id, item.html);
      showUsage(message.usage);
    } else if (message.type === "busy") {
      busy = message.busy === true;
      document.body.classList.toggle("busy", busy);
      send.disabled = busy; // one turn at a time
      stop.hidden = !busy;
      stop.disabled = !busy;
    } else if (message.type === "header") {
      showHeader(message);
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
    } else if (event.key === "Escape" && busy) {
      event.preventDefault();
      stopTurn();
    }
  });
  stop.addEventListener("click", stopTurn);
  sessionSelect.addEventListener("change", () => vscode.postMessage({ type: "selectSession", sessionId: sessionSelect.value }));
  pickers.addEventListener("change", (event) => {
    const select = event.target;
    if (select && select.dataset && select.dataset.config !== undefined) {
      vscode.postMessage({ type: "setOption", configId: select.dataset.config, value: select.value });
    }
  });
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
