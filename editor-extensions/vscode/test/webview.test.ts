import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { runInNewContext } from "node:vm";
import { test } from "node:test";
import { selectionLines, selectionPrompt } from "../src/selection";
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

test("a selection ending at column 0 of a line does not count that line", () => {
  const at = (line: number, character: number) => ({ line, character });
  assert.deepEqual(selectionLines({ start: at(2, 0), end: at(4, 0) }), { startLine: 3, endLine: 4 });
  assert.deepEqual(selectionLines({ start: at(2, 0), end: at(4, 1) }), { startLine: 3, endLine: 5 });
  assert.deepEqual(selectionLines({ start: at(2, 3), end: at(2, 7) }), { startLine: 3, endLine: 3 });
});

/** Runs media/chat.js against a minimal fake DOM: enough for its listeners. `dom` adds elements
 * by id, the focused element, and what `document.querySelector` finds. */
function loadChatScript(dom: { byId?: Record<string, unknown>; activeElement?: unknown; querySelector?: (selector: string) => unknown } = {}): {
  posted: unknown[];
  send: { disabled: boolean };
  prompt: { value: string };
  receive(message: unknown): void;
  submit(): void;
  click(target: unknown): { prevented: boolean };
  /** Fires a listener the script added (`element` an id, or "window"). */
  fire(element: string, type: string, event: object): { prevented: boolean };
  /** The script's own top-level functions. */
  functions: Record<string, (...args: unknown[]) => unknown>;
  /** Elements the script created, in order: `name` is the tag. */
  created: { name: string; value: string; disabled: boolean; focused: boolean }[];
} {
  const listeners = new Map<string, (event: unknown) => void>();
  const element = (name: string) => ({
    name,
    value: "",
    disabled: false,
    textContent: "",
    innerHTML: "",
    attributes: new Map<string, string>(),
    setAttribute(key: string, value: string) {
      this.attributes.set(key, value);
    },
    removeAttribute(key: string) {
      this.attributes.delete(key);
    },
    addEventListener: (type: string, fn: (event: unknown) => void) => listeners.set(`${name}:${type}`, fn),
    appendChild: () => undefined,
    focused: false,
    focus() {
      this.focused = true;
    },
    requestSubmit: () => listeners.get(`${name}:submit`)?.({ preventDefault: () => undefined }),
  });
  /** What the script made with createElement, by tag (its listeners are keyed `<tag>:<type>`). */
  const created: ReturnType<typeof element>[] = [];
  const elements: Record<string, unknown> = {
    ...Object.fromEntries(["transcript", "usage", "composer", "prompt", "stop", "send", "session-select", "pickers"].map((n) => [n, element(n)])),
    ...dom.byId,
  };
  const posted: unknown[] = [];
  const body = { scrollHeight: 0, classList: { toggle: () => undefined } };
  const sandbox = {
    // Copied out of the script's realm, as postMessage would.
    acquireVsCodeApi: () => ({ postMessage: (m: unknown) => posted.push(JSON.parse(JSON.stringify(m))) }),
    document: {
      getElementById: (id: string) => elements[id],
      body,
      activeElement: dom.activeElement ?? body,
      querySelector: dom.querySelector ?? (() => null),
      createElement: (tag: string) => {
        const made = element(tag);
        created.push(made);
        return made;
      },
    },
    window: {
      innerHeight: 0,
      scrollY: 0,
      scrollTo: () => undefined,
      addEventListener: (type: string, fn: (event: unknown) => void) => listeners.set(`window:${type}`, fn),
    },
    CSS: { escape: (s: string) => s },
  };
  runInNewContext(readFileSync("media/chat.js", "utf8"), sandbox);
  const get = (id: string) => elements[id] as ReturnType<typeof element>;
  const fire = (name: string, type: string, event: object) => {
    const fired = { prevented: false, preventDefault: () => (fired.prevented = true), ...event };
    listeners.get(`${name}:${type}`)?.(fired);
    return fired;
  };
  return {
    posted,
    send: get("send"),
    prompt: get("prompt"),
    receive: (data) => listeners.get("window:message")?.({ data }),
    submit: () => listeners.get("composer:submit")?.({ preventDefault: () => undefined }),
    click: (target) => fire("transcript", "click", { target }),
    fire,
    functions: sandbox as unknown as Record<string, (...args: unknown[]) => unknown>,
    created,
  };
}

test("the chat webview disables Send while a turn runs and does not post prompts then", () => {
  const chat = loadChatScript();
  assert.deepEqual(chat.posted, [{ type: "ready" }]);
  chat.receive({ type: "busy", busy: true });
  assert.equal(chat.send.disabled, true);
  chat.prompt.value = "while busy";
  chat.submit();
  assert.deepEqual(chat.posted, [{ type: "ready" }], "nothing sent while busy");
  chat.receive({ type: "busy", busy: false });
  assert.equal(chat.send.disabled, false);
  chat.submit();
  assert.deepEqual(chat.posted.at(-1), { type: "prompt", text: "while busy" });
});

test("a file: link clicked in the chat is sent to the extension to open", () => {
  const chat = loadChatScript();
  const link = (href: string) => ({ closest: (selector: string) => (selector === "a[href]" ? { getAttribute: () => href } : null) });
  assert.equal(chat.click(link("file:///w/a.py#L3")).prevented, true);
  assert.deepEqual(chat.posted.at(-1), { type: "openFile", href: "file:///w/a.py#L3" });
  assert.equal(chat.click(link("https://example.com")).prevented, false);
  assert.equal(chat.posted.length, 2);
});

/** A button as the chat renders it for a subagent's tool calls. */
function toggleButton(id: string, expanded: boolean) {
  const attributes = new Map([
    ["aria-expanded", String(expanded)],
    ["aria-controls", `children-${id}`],
  ]);
  const button = {
    dataset: { tool: id },
    focused: false,
    getAttribute: (name: string) => attributes.get(name) ?? null,
    setAttribute: (name: string, value: string) => attributes.set(name, value),
    closest: (selector: string) => (selector === "button.children-toggle" ? button : null),
    focus: () => {
      button.focused = true;
    },
  };
  return button;
}

test("the subagent toggle shows or hides its list at once and tells the extension", () => {
  const list = { hidden: true };
  const chat = loadChatScript({ byId: { "children-i3": list } });
  const button = toggleButton("i3", false);
  assert.equal(chat.click(button).prevented, false);
  assert.equal(button.getAttribute("aria-expanded"), "true");
  assert.equal(list.hidden, false);
  assert.deepEqual(chat.posted.at(-1), { type: "toggleTool", id: "i3", expanded: true });
  chat.click(button);
  assert.equal(button.getAttribute("aria-expanded"), "false");
  assert.equal(list.hidden, true);
  assert.deepEqual(chat.posted.at(-1), { type: "toggleTool", id: "i3", expanded: false });
});

test("a card drawn again keeps keyboard focus on its subagent toggle", () => {
  const focused = toggleButton("i3", true);
  const redrawn = toggleButton("i3", true);
  const selectors: string[] = [];
  const card = {
    innerHTML: "",
    contains: (node: unknown) => node === focused,
    querySelector: (selector: string) => {
      selectors.push(selector);
      return selector === 'button[data-tool="i3"]' ? redrawn : null;
    },
  };
  const chat = loadChatScript({ activeElement: focused, querySelector: () => card });
  chat.receive({ type: "items", items: [{ id: "i1", html: "<div>again</div>" }], usage: "" });
  assert.equal(card.innerHTML, "<div>again</div>");
  assert.equal(redrawn.focused, true, selectors.join(", "));
});

const noMods = { altKey: false, ctrlKey: false, metaKey: false, shiftKey: false };

test("keys in the conversation: Up/Down move one item, Home/End to the ends, Escape to the prompt", () => {
  const { functions } = loadChatScript();
  const target = (key: string, index: number, count: number, mods: object = {}) =>
    functions.transcriptKeyTarget?.(key, { ...noMods, ...mods }, index, count);
  assert.equal(target("ArrowUp", 3, 5), 2);
  assert.equal(target("ArrowUp", 0, 5), 0);
  assert.equal(target("ArrowDown", 3, 5), 4);
  assert.equal(target("ArrowDown", 4, 5), 4);
  assert.equal(target("ArrowDown", 4, 5, { altKey: true }), 4, "Alt+Up/Down work too");
  assert.equal(target("Home", 3, 5), 0);
  assert.equal(target("End", 1, 5), 4);
  assert.equal(target("Escape", 1, 5), "prompt");
  assert.equal(target("ArrowUp", 3, 5, { shiftKey: true }), null, "Shift+Up selects text, as usual");
  assert.equal(target("ArrowUp", 3, 5, { ctrlKey: true }), null);
  assert.equal(target("Enter", 3, 5), null);
  assert.equal(target("ArrowUp", 0, 0), null);
  assert.equal(functions.promptKeyGoesToTranscript?.("ArrowUp", { ...noMods, altKey: true }), true);
  assert.equal(functions.promptKeyGoesToTranscript("ArrowUp", noMods), false, "Up alone moves the caret in the prompt");
});

/** Items as the chat draws them: focusable, in a transcript that knows its children. */
function transcriptWith(count: number) {
  const children: { tabIndex: number; focused: boolean; focus(): void; closest(selector: string): unknown }[] = [];
  for (let i = 0; i < count; i++) {
    const item = {
      tabIndex: -1,
      focused: false,
      focus() {
        for (const other of children) other.focused = false;
        item.focused = true;
      },
      closest: (selector: string) => (selector === "#transcript > [data-id]" ? item : null),
    };
    children.push(item);
  }
  const listeners = new Map<string, (event: unknown) => void>();
  const transcript = {
    children,
    get lastElementChild() {
      return children.at(-1) ?? null;
    },
    addEventListener: (type: string, fn: (event: unknown) => void) => listeners.set(type, fn),
  };
  /** A key pressed in the transcript, on `target`. */
  const key = (name: string, target: unknown) => {
    const event = { key: name, ...noMods, target, prevented: false, preventDefault: () => (event.prevented = true) };
    listeners.get("keydown")?.(event);
    return event;
  };
  return { transcript, children, key };
}

test("Alt+Up in the prompt goes to the last item; keys there move focus; Escape goes back to the prompt", () => {
  const { transcript, children, key } = transcriptWith(3);
  const chat = loadChatScript({ byId: { transcript } });
  const altUp = chat.fire("prompt", "keydown", { key: "ArrowUp", ...noMods, altKey: true });
  assert.equal(altUp.prevented, true);
  assert.deepEqual(children.map((c) => [c.focused, c.tabIndex]), [[false, -1], [false, -1], [true, 0]]);
  const up = key("ArrowUp", children[2]);
  assert.equal(up.prevented, true);
  assert.deepEqual(children.map((c) => [c.focused, c.tabIndex]), [[false, -1], [true, 0], [false, -1]], "one tab stop: the item focused last");
  key("Home", children[1]);
  assert.equal(children[0]?.focused, true);
  const escape = key("Escape", children[0]);
  assert.equal(escape.prevented, true);
  assert.equal((chat.prompt as unknown as { focused: boolean }).focused, true);
  const typing = key("a", children[0]);
  assert.equal(typing.prevented, false);
});

test("Show all expands a long output in place, without asking the extension; Open terminal asks it", () => {
  const chat = loadChatScript();
  const middle = { hidden: true };
  const gap = { hidden: false };
  const classes = new Set<string>();
  const block = {
    querySelector: (selector: string) => (selector === ".long-middle" ? middle : selector === ".long-gap" ? gap : null),
    classList: { toggle: (name: string, on: boolean) => (on ? classes.add(name) : classes.delete(name)) },
  };
  const attributes = new Map([["aria-expanded", "false"]]);
  const more = {
    parentElement: block,
    dataset: {} as Record<string, string>,
    textContent: "Show all 2,000 lines",
    getAttribute: (name: string) => attributes.get(name) ?? null,
    setAttribute: (name: string, value: string) => attributes.set(name, value),
    closest: (selector: string) => (selector === "button.show-more" ? more : null),
  };
  chat.click(more);
  assert.deepEqual([middle.hidden, gap.hidden, attributes.get("aria-expanded"), more.textContent], [false, true, "true", "Show less"]);
  assert.ok(classes.has("expanded"));
  chat.click(more);
  assert.deepEqual([middle.hidden, gap.hidden, attributes.get("aria-expanded"), more.textContent], [true, false, "false", "Show all 2,000 lines"]);
  assert.deepEqual(chat.posted, [{ type: "ready" }], "nothing sent");

  const open = { dataset: { terminal: "heron-ab-1" }, closest: (selector: string) => (selector === "button.show-terminal" ? open : null) };
  chat.click(open);
  assert.deepEqual(chat.posted.at(-1), { type: "showTerminal", terminalId: "heron-ab-1" });
});

test("a subagent's Stop button asks the extension to stop that child session, once", () => {
  const chat = loadChatScript();
  const stop = {
    dataset: { session: "s1-child" },
    disabled: false,
    closest: (selector: string) => (selector === "button.stop-subagent" ? stop : null),
  };
  chat.click(stop);
  assert.deepEqual(chat.posted.at(-1), { type: "stopSubagent", sessionId: "s1-child" });
  assert.equal(stop.disabled, true, "not sent twice while the agent stops it");
});

/** A user's prompt as the chat draws it with its actions: the item, its actions' box, a button per action. */
function promptWithActions() {
  const item = {
    dataset: { id: "i4" } as Record<string, string>,
    textContent: "x",
    innerHTML: "<div>x</div>",
    focused: false,
    appendChild: () => undefined,
    focus: () => {
      item.focused = true;
    },
  };
  const actions = { dataset: { message: "m2", text: "Fix the tests" } };
  const button = (action: string) => {
    const b = {
      dataset: { action },
      disabled: false,
      closest: (selector: string) =>
        selector === "button.prompt-action" ? b : selector === ".prompt-actions" ? actions : selector === "#transcript > [data-id]" ? item : null,
    };
    return b;
  };
  return { item, rewind: button("rewind"), edit: button("edit") };
}

test("a prompt's Rewind to here asks the extension, never while a turn runs", () => {
  const chat = loadChatScript();
  const { rewind } = promptWithActions();
  chat.receive({ type: "busy", busy: true });
  chat.click(rewind);
  assert.deepEqual(chat.posted, [{ type: "ready" }], "nothing while busy");
  chat.receive({ type: "busy", busy: false });
  chat.click(rewind);
  assert.deepEqual(chat.posted.at(-1), { type: "rewind", messageId: "m2" });
  chat.receive({ type: "fillPrompt", text: "Fix the tests" });
  assert.equal(chat.prompt.value, "Fix the tests");
});

test("Edit and resend turns the prompt into an editor: Escape or Cancel puts it back, Send (or Enter) sends the edited text", () => {
  const chat = loadChatScript();
  const { item, edit } = promptWithActions();
  chat.click(edit);
  assert.equal(item.dataset.editing, "true");
  assert.equal(item.textContent, "", "the bubble's text makes way for the editor");
  const textarea = chat.created.find((e) => e.name === "textarea");
  assert.ok(textarea);
  assert.equal(textarea.value, "Fix the tests");
  assert.equal(textarea.focused, true);
  // Escape: back as it was (drawn again from the HTML last sent for it).
  assert.equal(chat.fire("textarea", "keydown", { key: "Escape" }).prevented, true);
  assert.equal(item.dataset.editing, undefined);
  assert.equal(item.focused, true);

  chat.click(edit);
  const editor = chat.created.filter((e) => e.name === "textarea").at(-1);
  assert.ok(editor);
  editor.value = "  Fix all the tests  ";
  chat.receive({ type: "busy", busy: true });
  chat.fire("form", "submit", {});
  assert.equal(chat.posted.length, 1, "not while a turn runs");
  chat.receive({ type: "busy", busy: false });
  assert.equal(chat.fire("textarea", "keydown", { key: "Enter", shiftKey: false }).prevented, true);
  assert.deepEqual(chat.posted.at(-1), { type: "editPrompt", messageId: "m2", text: "Fix all the tests" });
  assert.equal(chat.fire("textarea", "keydown", { key: "Enter", shiftKey: true }).prevented, false, "Shift+Enter: a new line");
  chat.fire("button", "click", {}); // the last button made: Cancel
  assert.equal(item.dataset.editing, undefined);
});
