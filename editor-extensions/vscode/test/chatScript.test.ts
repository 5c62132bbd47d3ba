// media/chat.js's header, Stop button and usage line, run against a small fake DOM: elements
// with children, attributes, a select's value, and events that bubble.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { runInNewContext } from "node:vm";
import { test } from "node:test";
import type { HeaderView } from "../src/header";

type Listener = (event: { target: FakeElement; key?: string; preventDefault(): void }) => void;

class FakeElement {
  id = "";
  hidden = false;
  disabled = false;
  title = "";
  label = "";
  children: FakeElement[] = [];
  parent: FakeElement | null = null;
  readonly dataset: Record<string, string> = {};
  readonly attributes = new Map<string, string>();
  readonly listeners = new Map<string, Listener>();
  innerHTMLWrites = 0;
  private text = "";
  private plainValue = "";

  constructor(readonly tagName: string) {}

  get value(): string {
    return this.plainValue;
  }
  set value(value: string) {
    this.plainValue = value;
  }
  get textContent(): string {
    return this.children.length > 0 ? this.children.map((c) => c.textContent).join("") : this.text;
  }
  set textContent(text: string) {
    for (const child of this.children) child.parent = null;
    this.children = [];
    this.text = text;
  }
  set innerHTML(_html: string) {
    this.innerHTMLWrites += 1;
  }
  appendChild(child: FakeElement): FakeElement {
    child.remove();
    child.parent = this;
    this.children.push(child);
    return child;
  }
  remove(): void {
    if (this.parent) this.parent.children = this.parent.children.filter((c) => c !== this);
    this.parent = null;
  }
  setAttribute(name: string, value: string): void {
    this.attributes.set(name, value);
  }
  getAttribute(name: string): string | null {
    return this.attributes.get(name) ?? null;
  }
  removeAttribute(name: string): void {
    this.attributes.delete(name);
  }
  addEventListener(type: string, listener: Listener): void {
    this.listeners.set(type, listener);
  }
  /** Runs the listeners of this element and its ancestors, as a bubbling event would. */
  dispatch(type: string, extra: { key?: string } = {}): { prevented: boolean } {
    const result = { prevented: false };
    this.bubble(type, { target: this, ...extra, preventDefault: () => (result.prevented = true) });
    return result;
  }
  private bubble(type: string, event: Parameters<Listener>[0]): void {
    this.listeners.get(type)?.(event);
    this.parent?.bubble(type, event);
  }
  *descendants(): Generator<FakeElement> {
    for (const child of this.children) {
      yield child;
      yield* child.descendants();
    }
  }
}

/** A select: its value is the selected option's, and setting one no option has selects none. */
class FakeSelect extends FakeElement {
  private selected = "";
  override get value(): string {
    return this.selected;
  }
  override set value(value: string) {
    const options = [...this.descendants()].filter((n) => n.tagName === "option");
    this.selected = options.some((o) => o.value === value) ? value : "";
  }
  /** What the user sees in the list: labels, groups as "[group]". */
  shown(): string[] {
    return this.children.map((c) => (c.tagName === "optgroup" ? `[${c.label}] ${c.children.map((o) => o.textContent).join(", ")}` : c.textContent));
  }
}

function element<T extends FakeElement>(node: T, id: string, parent: FakeElement): T {
  node.id = id;
  parent.appendChild(node);
  return node;
}

/** The page as webviewHtml.ts writes it, and chat.js running on it. */
function loadChat() {
  const body = new FakeElement("body");
  const header = element(new FakeElement("header"), "header", body);
  const sessionSelect = element(new FakeSelect("select"), "session-select", header);
  const pickers = element(new FakeElement("div"), "pickers", header);
  element(new FakeSelect("select"), "mode-select", pickers).setAttribute("aria-label", "Approval mode");
  element(new FakeSelect("select"), "model-select", pickers).setAttribute("aria-label", "Model");
  element(new FakeElement("div"), "transcript", body);
  const footer = element(new FakeElement("div"), "footer", body);
  const usage = element(new FakeElement("div"), "usage", footer);
  const form = element(new FakeElement("form"), "composer", footer);
  const prompt = element(new FakeElement("textarea"), "prompt", form);
  const send = element(new FakeElement("button"), "send", form);
  const stop = element(new FakeElement("button"), "stop", form);
  stop.hidden = true;
  stop.disabled = true;
  const windowListeners = new Map<string, (event: { data: unknown }) => void>();
  const posted: unknown[] = [];
  const scrolls: number[] = [];
  const byId = (id: string): FakeElement | null => [...body.descendants()].find((n) => n.id === id) ?? null;
  runInNewContext(readFileSync("media/chat.js", "utf8"), {
    acquireVsCodeApi: () => ({ postMessage: (m: unknown) => posted.push(JSON.parse(JSON.stringify(m))) }),
    document: {
      getElementById: byId,
      createElement: (tag: string) => (tag === "select" ? new FakeSelect(tag) : new FakeElement(tag)),
      body: Object.assign(body, { scrollHeight: 480, classList: { toggle: () => undefined } }),
      activeElement: body,
      querySelector: () => null,
    },
    window: {
      innerHeight: 0,
      scrollY: 0,
      scrollTo: (_x: number, y: number) => scrolls.push(y),
      addEventListener: (type: string, fn: (event: { data: unknown }) => void) => windowListeners.set(type, fn),
    },
    CSS: { escape: (s: string) => s },
  });
  return {
    posted,
    scrolls,
    form,
    sessionSelect,
    pickers,
    usage,
    prompt,
    send,
    stop,
    select: (id: string) => byId(id) as FakeSelect | null,
    receive: (data: unknown) => windowListeners.get("message")?.({ data }),
  };
}

const HEADER: HeaderView = {
  sessionId: "s1",
  sessions: [
    { value: "", label: "New session", description: "Start a new session" },
    { value: "s1", label: "Fix <b>this</b>", description: "s1" },
    { value: "s2", label: "s2", description: "s2" },
  ],
  pickers: [
    {
      id: "model-select",
      configId: "model",
      label: "Model",
      description: "The model that answers",
      value: "openai:gpt-5",
      choices: [
        { group: "Anthropic", choices: [{ value: "anthropic:claude", label: "claude", description: "" }] },
        { group: "OpenAI", choices: [{ value: "openai:gpt-5", label: "gpt-5", description: "In use" }] },
      ],
    },
    { id: "mode-select", configId: "mode", label: "Approval mode", description: "", value: "plan", choices: [{ value: "ask", label: "Ask", description: "" }, { value: "plan", label: "Plan", description: "" }] },
    { id: "option-thought_level", configId: "thought_level", label: "Thinking", description: "", value: "high", choices: [{ value: "high", label: "High", description: "" }] },
  ],
  enabled: true,
};

test("the header draws the session picker and a picker per option, in the agent's order, as text", () => {
  const chat = loadChat();
  chat.receive({ type: "header", ...HEADER });
  assert.deepEqual(chat.sessionSelect.shown(), ["New session", "Fix <b>this</b>", "s2"]);
  assert.equal(chat.sessionSelect.value, "s1");
  assert.deepEqual(chat.pickers.children.map((c) => c.id), ["model-select", "mode-select", "option-thought_level"]);
  const model = chat.select("model-select");
  assert.ok(model);
  assert.deepEqual(model.shown(), ["[Anthropic] claude", "[OpenAI] gpt-5"]);
  assert.equal(model.value, "openai:gpt-5");
  assert.equal(model.disabled, false);
  assert.equal(model.title, "Model: The model that answers");
  assert.equal(chat.select("mode-select")?.value, "plan");
  const thinking = chat.select("option-thought_level");
  assert.ok(thinking);
  assert.equal(thinking.getAttribute("aria-label"), "Thinking");
  assert.equal(thinking.tagName, "select");
  const html = [chat.sessionSelect, chat.pickers, ...chat.pickers.descendants()].reduce((n, e) => n + e.innerHTMLWrites, 0);
  assert.equal(html, 0, "no HTML from the agent's strings");
});

test("options the session no longer has go; with no session the pickers are disabled, without an option hidden", () => {
  const chat = loadChat();
  chat.receive({ type: "header", ...HEADER });
  chat.receive({ type: "header", ...HEADER, pickers: HEADER.pickers.slice(1, 2), enabled: false });
  assert.equal(chat.select("option-thought_level"), null);
  assert.deepEqual(chat.pickers.children.map((c) => [c.id, c.disabled, c.hidden]), [
    ["model-select", true, false],
    ["mode-select", true, false],
  ]);
  assert.deepEqual(chat.select("model-select")?.shown(), ["Model"], "named, while it waits for a session");
  chat.receive({ type: "header", ...HEADER, pickers: HEADER.pickers.slice(1, 2) });
  assert.deepEqual(chat.pickers.children.map((c) => [c.id, c.disabled, c.hidden]), [
    ["model-select", true, true],
    ["mode-select", false, false],
  ]);
});

test("choosing in a picker or the session picker tells the extension", () => {
  const chat = loadChat();
  chat.receive({ type: "header", ...HEADER });
  const model = chat.select("model-select");
  assert.ok(model);
  model.value = "anthropic:claude";
  model.dispatch("change");
  chat.sessionSelect.value = "";
  chat.sessionSelect.dispatch("change");
  chat.receive({ type: "header", ...HEADER, pickers: [] });
  chat.select("mode-select")?.dispatch("change"); // no option behind it: nothing to send
  assert.deepEqual(chat.posted.slice(1), [
    { type: "setOption", configId: "model", value: "anthropic:claude" },
    { type: "selectSession", sessionId: "" },
  ]);
});

test("Stop shows only while a turn runs; it and Escape in the prompt box stop the turn", () => {
  const chat = loadChat();
  assert.equal(chat.prompt.dispatch("keydown", { key: "Escape" }).prevented, false);
  chat.receive({ type: "busy", busy: true });
  assert.deepEqual([chat.stop.hidden, chat.stop.disabled, chat.send.disabled], [false, false, true]);
  chat.stop.dispatch("click");
  assert.equal(chat.prompt.dispatch("keydown", { key: "Escape" }).prevented, true);
  assert.deepEqual(chat.posted.slice(1), [{ type: "stop" }, { type: "stop" }]);
  chat.receive({ type: "busy", busy: false });
  assert.deepEqual([chat.stop.hidden, chat.stop.disabled, chat.send.disabled], [true, true, false]);
  chat.prompt.dispatch("keydown", { key: "Escape" });
  assert.equal(chat.posted.length, 3, "no turn, nothing to stop");
});

test("the usage line is text with a label for screen readers, cleared with the chat", () => {
  const chat = loadChat();
  const usage = { text: "12,345 / 200,000 tokens (6%) · $0.0123", label: "Context: 12,345 of 200,000 tokens used (6%). Cost: $0.0123" };
  chat.receive({ type: "items", items: [], usage });
  assert.equal(chat.usage.textContent, usage.text);
  assert.equal(chat.usage.getAttribute("aria-label"), usage.label);
  assert.equal(chat.usage.innerHTMLWrites, 0);
  chat.receive({ type: "reset" });
  assert.equal(chat.usage.textContent, "");
  assert.equal(chat.usage.getAttribute("aria-label"), null);
});

test("sending a prompt follows the new turn from the bottom, wherever the reader had scrolled", () => {
  const chat = loadChat();
  chat.prompt.value = "Run the tests";
  chat.form.dispatch("submit");
  assert.deepEqual(chat.posted.slice(1), [{ type: "prompt", text: "Run the tests" }]);
  assert.deepEqual(chat.scrolls, [480]);
});
