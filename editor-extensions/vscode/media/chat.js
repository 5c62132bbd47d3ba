// Chat webview script. The HTML it inserts is rendered (escaped, then formatted) by the
// extension host; this script only places it, shows or hides subagents' tool calls and long
// outputs, moves keyboard focus through the conversation, draws the header's pickers (with DOM
// APIs, from plain data), turns a prompt into an editor for "Edit and resend", and sends prompts
// and choices back.

/**
 * Where a key pressed in the conversation sends focus: an item's index, "prompt", or null (not
 * ours). `index`: the item focus is in; `count`: how many items there are. Up/Down move one item,
 * Home/End to the first/last, Escape back to the prompt; with Ctrl, Meta or Shift, nothing.
 */
function transcriptKeyTarget(key, mods, index, count) {
  if (mods.ctrlKey || mods.metaKey || mods.shiftKey || count === 0) return null;
  const last = count - 1;
  switch (key) {
    case "ArrowUp":
      return Math.max(0, Math.min(index - 1, last));
    case "ArrowDown":
      return Math.max(0, Math.min(index + 1, last));
    case "Home":
      return mods.altKey ? null : 0;
    case "End":
      return mods.altKey ? null : last;
    case "Escape":
      return mods.altKey ? null : "prompt";
    default:
      return null;
  }
}

/** Alt+Up in the prompt goes to the conversation's last item. */
function promptKeyGoesToTranscript(key, mods) {
  return key === "ArrowUp" && mods.altKey && !mods.ctrlKey && !mods.metaKey && !mods.shiftKey;
}

(function () {
  const vscode = acquireVsCodeApi();
  const transcript = document.getElementById("transcript");
  const announcer = document.getElementById("announcer");
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
  /** The item Tab enters the conversation on (roving tabindex); null: the newest. */
  let current = null;
  /** The agent message being streamed, announced once it is finished. */
  let streaming = null;
  /** Each item's last HTML: a prompt being edited is drawn from it again when the edit is cancelled. */
  const drawn = new Map();

  function nearBottom() {
    return window.innerHeight + window.scrollY >= document.body.scrollHeight - 40;
  }

  /** Read out once by screen readers (the conversation itself is not live: it would be read per chunk). */
  function announce(text) {
    if (announcer && text) announcer.textContent = text;
  }

  function announceFinished() {
    if (!streaming) return;
    const text = (streaming.textContent || "").replace(/\s+/g, " ").trim();
    streaming = null;
    if (text) announce("Heron: " + (text.length > 1000 ? text.slice(0, 999) + "…" : text));
  }

  function items() {
    return Array.from(transcript.children);
  }

  function itemOf(element) {
    return element && element.closest ? element.closest("#transcript > [data-id]") : null;
  }

  /** Makes `node` the item Tab enters the conversation on. */
  function setCurrent(node) {
    if (current === node) return;
    if (current) current.tabIndex = -1;
    current = node;
    if (node) node.tabIndex = 0;
  }

  /** How to find the focused control again once its item is drawn again; "": the item itself;
   * null: focus is not in this item's content. */
  function focusSelector(node, active) {
    if (!active || active === node || !node.contains(active)) return null;
    if (active.dataset && active.dataset.tool) return 'button[data-tool="' + CSS.escape(active.dataset.tool) + '"]';
    if (active.dataset && active.dataset.terminal) return 'button.show-terminal[data-terminal="' + CSS.escape(active.dataset.terminal) + '"]';
    if (active.dataset && active.dataset.session) return 'button.stop-subagent[data-session="' + CSS.escape(active.dataset.session) + '"]';
    if (active.dataset && active.dataset.action) return 'button.prompt-action[data-action="' + CSS.escape(active.dataset.action) + '"]';
    const long = active.closest ? active.closest("[data-long]") : null;
    if (long) return '[data-long="' + CSS.escape(long.dataset.long) + '"] > button.show-more';
    if (active.tagName === "SUMMARY") return "details > summary";
    return "";
  }

  /** Tab enters the conversation on the item last focused there, else on the newest. */
  function newItem(node) {
    const previous = node.previousElementSibling;
    if (previous && previous !== current) previous.tabIndex = -1;
    node.tabIndex = current ? -1 : 0;
  }

  function upsert(id, html, label) {
    let node = document.querySelector('[data-id="' + CSS.escape(id) + '"]');
    const created = !node;
    if (!node) {
      node = document.createElement("div");
      node.dataset.id = id;
      node.setAttribute("role", "article");
      transcript.appendChild(node);
      newItem(node);
    }
    if (label) node.setAttribute("aria-label", label);
    drawn.set(id, html);
    if (node.dataset && node.dataset.editing === "true") return { node, created }; // drawn again once the edit ends
    // A running card is drawn again with every change: keep what the user opened (a thought, a
    // long output) and where keyboard focus was.
    const open = node.querySelector("details[open]") !== null;
    const expanded = Array.from(node.querySelectorAll ? node.querySelectorAll('[data-long] > button[aria-expanded="true"]') : []).map(
      (button) => button.parentElement.dataset.long,
    );
    const selector = focusSelector(node, document.activeElement);
    node.innerHTML = html;
    if (open) node.querySelector("details")?.setAttribute("open", "");
    for (const key of expanded) {
      const button = node.querySelector('[data-long="' + CSS.escape(key) + '"] > button.show-more');
      if (button) setExpanded(button, true);
    }
    if (selector !== null) ((selector && node.querySelector(selector)) || node).focus();
    // A command's output shows its latest lines.
    for (const pre of node.querySelectorAll ? node.querySelectorAll("pre.terminal-output") : []) {
      if (!pre.closest(".long.expanded")) pre.scrollTop = pre.scrollHeight;
    }
    return { node, created };
  }

  /** Items that left the conversation (a rewind); Tab then enters it on the newest item. */
  function removeItems(ids) {
    for (const id of ids) {
      drawn.delete(id);
      const node = document.querySelector('[data-id="' + CSS.escape(id) + '"]');
      if (!node) continue;
      if (node === current) current = null;
      if (node === streaming) streaming = null;
      node.remove();
    }
    const last = transcript.lastElementChild;
    if (!current && last) last.tabIndex = 0;
  }

  /** A prompt's actions, and an open editor's Send, wait while a turn runs. */
  function syncPromptActions() {
    if (!transcript.querySelectorAll) return;
    for (const button of transcript.querySelectorAll("button.prompt-action, button.edit-send")) button.disabled = busy;
  }

  function button(className, text, type) {
    const node = document.createElement("button");
    node.type = type;
    node.className = className;
    node.textContent = text;
    return node;
  }

  /** The prompt's bubble as it was (Cancel, Escape); focus goes back to its Edit button. */
  function closeEditor(node) {
    delete node.dataset.editing;
    node.innerHTML = drawn.get(node.dataset.id) || "";
    syncPromptActions();
    const edit = node.querySelector ? node.querySelector('button.prompt-action[data-action="edit"]') : null;
    (edit || node).focus();
  }

  /** "Edit and resend": the prompt's bubble becomes a text area with Send and Cancel (built from text, never HTML). */
  function openEditor(node, actions) {
    const messageId = actions.dataset.message;
    const form = document.createElement("form");
    form.className = "prompt-editor";
    const text = document.createElement("textarea");
    text.className = "edit-text";
    text.rows = 3;
    text.value = actions.dataset.text || "";
    text.setAttribute("aria-label", "Edit the prompt: Enter sends it again, Shift+Enter starts a new line, Escape cancels");
    const row = document.createElement("div");
    row.className = "buttons";
    const send = button("edit-send", "Send", "submit");
    send.disabled = busy;
    const cancel = button("edit-cancel", "Cancel", "button");
    row.appendChild(send);
    row.appendChild(cancel);
    form.appendChild(text);
    form.appendChild(row);
    node.dataset.editing = "true";
    node.textContent = "";
    node.appendChild(form);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const value = text.value.trim();
      if (!value || busy) return;
      vscode.postMessage({ type: "editPrompt", messageId, text: value });
      prompt.focus(); // the bubble is replaced by the new prompt, whose turn is followed from the bottom
      window.scrollTo(0, document.body.scrollHeight);
    });
    cancel.addEventListener("click", () => closeEditor(node));
    text.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey) {
        event.preventDefault();
        form.requestSubmit();
      } else if (event.key === "Escape") {
        event.preventDefault();
        closeEditor(node);
      }
    });
    text.focus();
  }

  /** Shows or hides a subagent's tool calls at once; the extension keeps the choice. */
  function toggleChildren(button) {
    const expanded = button.getAttribute("aria-expanded") !== "true";
    button.setAttribute("aria-expanded", String(expanded));
    const list = document.getElementById(button.getAttribute("aria-controls") || "");
    if (list) list.hidden = !expanded;
    vscode.postMessage({ type: "toggleTool", id: button.dataset.tool, expanded });
  }

  /** A long output's hidden middle, shown or hidden: it is already in the page. */
  function setExpanded(button, expanded) {
    const block = button.parentElement;
    if (!button.dataset.label) button.dataset.label = button.textContent;
    button.setAttribute("aria-expanded", String(expanded));
    button.textContent = expanded ? "Show less" : button.dataset.label;
    const middle = block.querySelector(".long-middle");
    const gap = block.querySelector(".long-gap");
    block.classList.toggle("expanded", expanded);
    if (middle) middle.hidden = !expanded;
    if (gap) gap.hidden = expanded;
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
      current = null;
      streaming = null;
      drawn.clear();
    } else if (message.type === "items") {
      for (const item of message.items) {
        const { node, created } = upsert(item.id, item.html, item.label);
        // A reply is said once it is finished: when something follows it, or the turn ends.
        if (created && node !== streaming) announceFinished();
        if (item.kind === "agent") streaming = node;
        // A tool call that has just finished is said once.
        const finished = item.status === "completed" || item.status === "failed";
        if (item.kind === "tool" && !created && finished && node.dataset.said !== item.status) {
          node.dataset.said = item.status;
          announce(item.label);
        }
      }
      showUsage(message.usage);
      syncPromptActions();
    } else if (message.type === "remove" && Array.isArray(message.ids)) {
      removeItems(message.ids);
    } else if (message.type === "fillPrompt" && typeof message.text === "string") {
      prompt.value = message.text;
      prompt.focus();
    } else if (message.type === "busy") {
      busy = message.busy === true;
      document.body.classList.toggle("busy", busy);
      send.disabled = busy; // one turn at a time
      stop.hidden = !busy;
      stop.disabled = !busy;
      syncPromptActions();
      if (!busy) announceFinished();
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
    window.scrollTo(0, document.body.scrollHeight); // a new turn is followed from the bottom
  });
  prompt.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      form.requestSubmit();
    } else if (event.key === "Escape" && busy) {
      event.preventDefault();
      stopTurn();
    } else if (promptKeyGoesToTranscript(event.key, event)) {
      const last = transcript.lastElementChild;
      if (!last) return;
      event.preventDefault();
      setCurrent(last);
      last.focus();
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
  transcript.addEventListener("focusin", (event) => setCurrent(itemOf(event.target)));
  transcript.addEventListener("keydown", (event) => {
    if (event.target && event.target.tagName === "TEXTAREA") return; // a prompt being edited keeps its keys
    const item = itemOf(event.target);
    if (!item) return;
    const all = items();
    const target = transcriptKeyTarget(event.key, event, all.indexOf(item), all.length);
    if (target === null) return;
    event.preventDefault();
    if (target === "prompt") {
      prompt.focus();
      return;
    }
    const next = all[target];
    setCurrent(next);
    next.focus();
    if (next.scrollIntoView) next.scrollIntoView({ block: "nearest" });
  });
  transcript.addEventListener("click", (event) => {
    const closest = (selector) => (event.target && event.target.closest ? event.target.closest(selector) : null);
    const toggle = closest("button.children-toggle");
    if (toggle) {
      toggleChildren(toggle);
      return;
    }
    // "Rewind to here" asks the extension; "Edit and resend" opens the editor here first.
    const action = closest("button.prompt-action");
    if (action) {
      const actions = action.closest(".prompt-actions");
      const node = itemOf(action);
      if (!actions || !node || busy || action.disabled) return;
      if (action.dataset.action === "rewind") vscode.postMessage({ type: "rewind", messageId: actions.dataset.message });
      else if (action.dataset.action === "edit") openEditor(node, actions);
      return;
    }
    const more = closest("button.show-more");
    if (more) {
      setExpanded(more, more.getAttribute("aria-expanded") !== "true");
      return;
    }
    // Stops that subagent alone; the card says "stopped" once the agent reports it.
    const stopChild = closest("button.stop-subagent");
    if (stopChild) {
      stopChild.disabled = true;
      vscode.postMessage({ type: "stopSubagent", sessionId: stopChild.dataset.session });
      return;
    }
    const terminal = closest("button.show-terminal");
    if (terminal) {
      vscode.postMessage({ type: "showTerminal", terminalId: terminal.dataset.terminal });
      return;
    }
    // file: links open in an editor (the webview itself cannot open them).
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
