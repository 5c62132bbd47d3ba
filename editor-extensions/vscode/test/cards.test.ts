// The chat's cards: a command's output and status, long outputs and diffs collapsed, the names
// screen readers read, and what the extension sends again when a command prints.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { Batcher } from "../src/batcher";
import { renderDiffBlock } from "../src/diff";
import { CARD_HTML_BUDGET, HtmlBudget, OUTPUT_LIMITS, renderLongLines, textLines } from "../src/longText";
import { itemLabel, renderItem } from "../src/render";
import { TerminalCards } from "../src/terminalCards";
import type { CommandView } from "../src/terminals";
import { Transcript, type Item, type ToolItem } from "../src/transcript";
import { chatHtml } from "../src/webviewHtml";

const numbered = (n: number, width = 0): string => Array.from({ length: n }, (_, i) => `line ${i + 1}${"x".repeat(width)}`).join("\n") + "\n";

/** A terminal tool call as Heron sends it: the title, then the terminal, then the status with its report. */
function commandCall(t: Transcript, status?: "completed" | "failed"): ToolItem {
  t.apply({ sessionUpdate: "tool_call", toolCallId: "c1", title: "Run a command", kind: "execute", status: "pending" });
  t.apply({ sessionUpdate: "tool_call_update", toolCallId: "c1", title: "Run `pytest -q`", status: "in_progress" });
  t.apply({ sessionUpdate: "tool_call_update", toolCallId: "c1", content: [{ type: "terminal", terminalId: "heron-ab-1" }] });
  if (status) t.apply({ sessionUpdate: "tool_call_update", toolCallId: "c1", status, rawOutput: { output: "exit code 1\n2 failed" } });
  const item = t.items.find((i) => i.kind === "tool");
  assert.ok(item?.kind === "tool");
  return item;
}

const view = (over: Partial<CommandView>): CommandView => ({ output: "", truncated: false, exitStatus: null, terminalOpen: true, ...over });

test("a command's card shows its output live, with the Open terminal button while its terminal exists", () => {
  const t = new Transcript();
  const item = commandCall(t);
  const html = renderItem(item, { command: (id) => (id === "heron-ab-1" ? view({ output: "collecting <tests>\r\n" }) : undefined) });
  assert.ok(html.startsWith('<div class="tool status-in_progress" data-tool-call-id="c1" data-status="in_progress">'), html);
  assert.ok(html.includes('<pre class="terminal-output">collecting &lt;tests&gt;</pre>'), html);
  assert.ok(html.includes('<div class="command-status">Running…'), html);
  assert.ok(html.includes('<button type="button" class="show-terminal" data-terminal="heron-ab-1" aria-label="Open the terminal of Run `pytest -q`">Open terminal</button>'), html);
});

test("a finished command's card shows its final output and exit status once, not the agent's report too", () => {
  const t = new Transcript();
  const item = commandCall(t, "failed");
  assert.equal(item.output, "exit code 1\n2 failed");
  const html = renderItem(item, {
    command: () => view({ output: "..F\n2 failed\n", exitStatus: { exitCode: 1, signal: null }, truncated: true, terminalOpen: false }),
  });
  assert.ok(html.includes('data-status="failed"'), html);
  assert.ok(html.includes('<pre class="terminal-output">..F\n2 failed</pre>'), html);
  assert.ok(html.includes("Exit code 1 · the start of the output was not kept</div>"), html);
  assert.ok(!html.includes("exit code 1\n2 failed") && !html.includes("show-terminal"), html);
  const killed = renderItem(item, { command: () => view({ exitStatus: { exitCode: null, signal: "SIGKILL" } }) });
  assert.ok(killed.includes("Killed by SIGKILL · no output") && !killed.includes("<pre"), killed);
});

test("a command this window does not know (a loaded session) shows the agent's report instead", () => {
  const t = new Transcript();
  const html = renderItem(commandCall(t, "failed"));
  assert.ok(html.includes('<pre class="tool-output">exit code 1\n2 failed</pre>'), html);
  const unknown = renderItem(commandCall(new Transcript()));
  assert.ok(unknown.includes("not available in this window"), unknown);
});

test("short outputs are shown whole; long ones show head and tail and a Show all button with the rest hidden", () => {
  assert.equal(renderLongLines(textLines("a\nb\n"), "tool-output", "k", OUTPUT_LIMITS, new HtmlBudget()), '<pre class="tool-output">a\nb</pre>');
  const html = renderLongLines(textLines(numbered(2000)), "tool-output", "i1-0", OUTPUT_LIMITS, new HtmlBudget());
  assert.ok(html.startsWith('<div class="long" data-long="i1-0"><pre class="tool-output">line 1\n'), html.slice(0, 200));
  assert.ok(html.includes(`line ${OUTPUT_LIMITS.head}\n<span class="long-gap">… 1,980 more lines …\n</span><span class="long-middle" hidden>line 16\n`));
  assert.ok(html.endsWith('line 2000</pre><button type="button" class="show-more" aria-expanded="false">Show all 2,000 lines</button></div>'), html.slice(-200));
  assert.equal((html.match(/line \d+/g) ?? []).length, 2000, "every line is in the page");
  // Long lines count too: 10 lines of 2 KB are more than 8 KB.
  const wide = renderLongLines(textLines(numbered(10, 2000)), "tool-output", "k", OUTPUT_LIMITS, new HtmlBudget());
  assert.ok(wide.includes("show-more") && wide.includes("Show all 10 lines"), wide.slice(-300));
});

test("no card carries more than its HTML budget: the middle is left out, and the card says how much", () => {
  const huge = numbered(100_000, 20); // ~3 MB
  const budget = new HtmlBudget();
  const html = renderLongLines(textLines(huge), "terminal-output", "k", OUTPUT_LIMITS, budget);
  assert.ok(html.length < CARD_HTML_BUDGET + 2_000, String(html.length));
  assert.ok(html.includes("line 1x") && html.includes("line 100000x"), "the head and the tail");
  const leftOut = /\[… ([\d,]+) lines left out: too long for the chat\]/.exec(html);
  assert.ok(leftOut, html.slice(0, 300));
  const button = /class="show-more" aria-expanded="false">Show ([\d,]+) of 100,000 lines</.exec(html);
  assert.ok(button, html.slice(-300));
  assert.equal(Number(leftOut[1]?.replace(/,/g, "")) + Number(button[1]?.replace(/,/g, "")), 100_000);
  // The budget is spent: a second block in the same card shows its head and tail, and says the rest was left out.
  const second = renderLongLines(textLines(numbered(1000)), "tool-output", "k2", OUTPUT_LIMITS, budget);
  assert.ok(second.includes("980 lines left out") && !second.includes("show-more"), second.slice(0, 400));
});

test("a big diff is collapsed, a small one is not", () => {
  const before = numbered(1000);
  const after = before.replace(/line (\d+)\n/g, (_m, n: string) => `row ${n}\n`);
  const big = renderDiffBlock(before, after, "i1-0", new HtmlBudget());
  assert.ok(big.includes('<pre class="diff-lines"><span class="del">-line 1</span>') && big.includes("Show all 2,000 lines"), big.slice(0, 300));
  const small = renderDiffBlock("a\n", "b\n", "i1-0", new HtmlBudget());
  assert.equal(small, '<pre class="diff-lines"><span class="del">-a</span>\n<span class="add">+b</span></pre>');
});

test("each item has a name screen readers read: who speaks, or what a card is and how it stands", () => {
  const t = new Transcript();
  t.addUserPrompt("Fix   the\ntests please");
  t.apply({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: `Done. ${"word ".repeat(50)}` } });
  t.apply({ sessionUpdate: "tool_call", toolCallId: "r", title: "Read src/a.py", status: "completed" });
  t.apply({ sessionUpdate: "plan", entries: [{ content: "one", priority: "high", status: "completed" }, { content: "two", priority: "high", status: "pending" }] });
  const labels = t.items.map(itemLabel);
  assert.equal(labels[0], "You: Fix the tests please");
  assert.ok(labels[1]?.startsWith("Heron: Done. word") && labels[1].endsWith("…") && labels[1].length === 127, labels[1]);
  assert.equal(labels[2], "Tool call Read src/a.py, done");
  assert.equal(labels[3], "Plan, 1 of 2 done");
  const plan = renderItem(t.items[3] as Item);
  assert.ok(plan.includes('<li class="plan-completed"><span class="sr-only">done: </span>one</li>'), plan);
});

test("the chat page: a labelled log, a polite announcer, a labelled prompt", () => {
  const html = chatHtml({ cspSource: "c", scriptUri: "s", styleUri: "t", nonce: "n" });
  assert.ok(html.includes('<div id="transcript" role="log" aria-label="Conversation with Heron" aria-live="off"></div>'), html);
  assert.ok(html.includes('<div id="announcer" class="sr-only" role="status" aria-live="polite"></div>'), html);
  assert.match(html, /<textarea id="prompt"[^>]* aria-label="Prompt for Heron" aria-describedby="prompt-keys"/);
  assert.match(html, /<span id="prompt-keys" class="sr-only">[^<]*Alt\+Up goes to the conversation/);
});

test("the stylesheet lets code scroll sideways inside cards and messages, and shows keyboard focus", () => {
  const css = readFileSync("media/chat.css", "utf8").replace(/\/\*[\s\S]*?\*\//g, "");
  const rule = (selector: string): string => {
    const found = [...css.matchAll(/([^{}]+)\{([^}]*)\}/g)].filter(([, sel]) => (sel ?? "").split(",").map((s) => s.trim()).includes(selector));
    return found.map(([, , body]) => body).join(";");
  };
  assert.match(rule("pre"), /overflow-x: auto/);
  assert.match(rule("pre"), /max-width: 100%/);
  for (const selector of [".tool", ".msg", "#transcript > [data-id]", ".tool-children li"]) assert.match(rule(selector), /min-width: 0/, selector);
  assert.match(rule(".msg"), /overflow-wrap: anywhere/);
  assert.match(rule("#transcript > [data-id]:focus-visible"), /var\(--vscode-focusBorder\)/);
  assert.match(rule("button:focus-visible"), /var\(--vscode-focusBorder\)/);
});

test("a command's card is drawn again as it prints, at most once per interval, and its terminal takes the call's title", async () => {
  const t = new Transcript();
  const renamed: [string, string][] = [];
  let fire: (id: string) => void = () => undefined;
  const drawn: string[][] = [];
  const cards = new TerminalCards(
    {
      name: (id, name) => renamed.push([id, name]),
      onDidChange: (listener) => {
        fire = listener;
        return { dispose: () => undefined };
      },
    },
    (ids) => t.itemsShowingTerminals(ids),
    (items) => drawn.push(items.map((i) => i.id)),
    20,
  );
  t.addUserPrompt("run it");
  const item = commandCall(t);
  cards.itemsChanged([item]);
  assert.deepEqual(renamed, [["heron-ab-1", "Heron: Run `pytest -q`"]]);
  for (let i = 0; i < 50; i++) fire("heron-ab-1");
  fire("heron-other");
  await new Promise((r) => setTimeout(r, 60));
  assert.deepEqual(drawn, [[item.id]], "fifty outputs, one redraw, only of the card that shows the terminal");
  cards.dispose();
});

test("the batcher hands on each changed value once per interval, the latest for its key", async () => {
  const delivered: string[][] = [];
  const batcher = new Batcher<{ id: string; v: number }>((x) => x.id, (xs) => delivered.push(xs.map((x) => `${x.id}${x.v}`)), 10);
  batcher.add([{ id: "a", v: 1 }, { id: "b", v: 1 }]);
  batcher.add([{ id: "a", v: 2 }]);
  assert.deepEqual(delivered, []);
  await new Promise((r) => setTimeout(r, 30));
  assert.deepEqual(delivered, [["a2", "b1"]]);
  batcher.add([{ id: "c", v: 1 }]);
  batcher.flush();
  batcher.add([{ id: "d", v: 1 }]);
  batcher.clear();
  await new Promise((r) => setTimeout(r, 30));
  assert.deepEqual(delivered, [["a2", "b1"], ["c1"]]);
  // Nothing added is still a change (the usage line): handed on empty, once.
  batcher.add([]);
  batcher.flush();
  batcher.flush();
  assert.deepEqual(delivered, [["a2", "b1"], ["c1"], []]);
});
