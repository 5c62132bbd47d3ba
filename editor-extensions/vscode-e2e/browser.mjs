// The whole daily workflow in a real VS Code (code-server) in headless Chromium, against Heron's
// scripted model (scenario.mjs): a new session; a prompt that reads a file; an edit reviewed in the
// diff editor and applied; a command whose output shows in a VS Code terminal and in its card; a
// task delegated to a subagent, drawn from its child session inside the delegate card; a mode switch
// from the chat's picker; a streaming reply stopped half-way; then the window reloads and the
// session comes back from the session picker with its history; the agent is killed and comes
// back; last, a prompt whose turn edited a file is edited and sent again ("Edit and resend"): the
// file is restored (previewed and asked first) and the new prompt's answer replaces the old one;
// then "Rewind to here" takes that prompt out again and puts its text back in the prompt box.
// Each step asserts on the DOM and leaves a screenshot in the artifacts folder. Started by run.sh.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import {
  COMMAND,
  EDIT,
  HELLO_AFTER,
  HELLO_BEFORE,
  HELLO_DOCSTRING,
  HELLO_FAREWELL,
  MCP,
  READ,
  REWIND,
  SESSION_TITLE,
  STREAM,
  SUBAGENT,
} from "./scenario.mjs";
import { Failure, Workbench, fail, flat, log, recordBrowserPid, step, until } from "./workbench.mjs";

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (run.sh sets it)`);
  return value;
};
const URL = env("E2E_URL");
const ARTIFACTS = env("E2E_ARTIFACTS");
const CHROMIUM = env("E2E_CHROMIUM");
const HELLO_PATH = join(env("E2E_WORKSPACE"), "src", "hello.py");
const HERON_HOME = env("E2E_HERON_HOME");
const DIFF_TITLE = "hello.py: Heron's proposed edit"; // the extension's vscode.diff title

/** What each step saw, written to result.json. */
const seen = {};

/** Sends a prompt from the chat's box and waits until it shows in the transcript. */
async function send(chat, text) {
  const prompt = chat.locator("textarea#prompt");
  await prompt.click();
  await prompt.fill(text);
  await prompt.press("Enter");
  await until(`"${text}" in the transcript`, () => chat.locator(".msg.user", { hasText: text }).count(), 15_000);
  log(`sent "${text}"`);
}

/** The end of a turn: the chat is no longer busy and the status bar says ready. */
async function turnEnded(wb, chat, mode) {
  const pattern = new RegExp(`ready \\(${mode}\\)`, "i");
  await until(
    `the end of the turn (status bar "ready (${mode})")`,
    async () => !(await chat.locator("body.busy").count()) && pattern.test(await wb.statusBar()),
    60_000,
  );
}

/** A tool call's card by (part of) its title, with its status. */
async function toolCard(chat, title, status = "completed") {
  const card = chat.locator(`.tool[data-status="${status}"]`, { hasText: title }).last();
  await until(`a ${status} "${title}" card`, () => card.count(), 60_000);
  return card;
}

async function newSession(wb) {
  seen.initialStatus = await wb.ready();
  await until("the sample workspace in the explorer", () =>
    wb.page.locator(".explorer-folders-view .monaco-list-row", { hasText: "README.md" }).count(),
  );
  await wb.page.waitForTimeout(1000); // let notifications and layout settle before the picture
  await wb.shot("01-workbench.png");

  await wb.runCommand("Heron: New Session");
  seen.readyStatus = await wb.statusBarUntil(/ready \(ask\)/i, '"Heron: ready (ask)" after New Session', 60_000);
  // New Session opens the chat view, even when it has never been shown.
  const chat = await until("Heron's chat webview, opened by New Session", () => wb.chatFrame(), 30_000);
  await chat.locator("textarea#prompt").waitFor({ state: "visible", timeout: 10_000 });
  // The header's pickers come from the session's config options.
  const mode = chat.locator("#mode-select");
  await until("the mode picker set to ask", async () => (await mode.inputValue()) === "ask", 15_000);
  const models = await chat.locator("#model-select option").allInnerTexts();
  if (!models.some((m) => m.includes("scripted:"))) fail(`the model picker does not offer the scripted model: ${JSON.stringify(models)}`);
  await wb.shot("02-chat-open.png");
  return chat;
}

async function readAFile(wb, chat) {
  await send(chat, READ.prompt);
  await until(`the answer "${READ.answer}"`, () => chat.locator(".msg.agent", { hasText: READ.answer }).count(), 90_000);
  await turnEnded(wb, chat, "ask");
  const card = await toolCard(chat, "Read src/hello.py");
  // What the tool read is shown as it is in the file: preformatted, not rendered as markdown.
  const output = card.locator("pre").first();
  if (!(await output.innerText()).includes('if __name__ == "__main__":')) fail("the file's text is not shown verbatim");
  // A line wider than the sidebar scrolls sideways instead of being cut off.
  const scroll = await output.evaluate((pre) => {
    const wide = pre.scrollWidth > pre.clientWidth;
    pre.scrollLeft = 40;
    return { wide, overflowX: getComputedStyle(pre).overflowX, scrolled: pre.scrollLeft };
  });
  if (scroll.wide && !(scroll.scrolled > 0 && /auto|scroll/.test(scroll.overflowX))) {
    fail(`a wide code block is clipped: ${JSON.stringify(scroll)}`);
  }
  await output.evaluate((pre) => (pre.scrollLeft = 0));
  // Keyboard: Alt+Up from the prompt goes to the last item, Up to the one before, Escape back.
  const focused = () =>
    chat.evaluate(() => {
      const el = document.activeElement;
      return { id: el?.id ?? "", item: el?.closest("[data-id]")?.getAttribute("aria-label") ?? "", role: el?.getAttribute("role") ?? "" };
    });
  await chat.locator("textarea#prompt").focus();
  await chat.locator("textarea#prompt").press("Alt+ArrowUp");
  const last = await focused();
  if (last.role !== "article" || !last.item.startsWith("Heron:")) fail(`Alt+Up did not reach the last reply: ${JSON.stringify(last)}`);
  await chat.page().keyboard.press("ArrowUp");
  const before = await focused();
  if (!/^Tool call Read src\/hello\.py/.test(before.item)) fail(`Up did not reach the read card: ${JSON.stringify(before)}`);
  await chat.page().keyboard.press("Escape");
  if ((await focused()).id !== "prompt") fail("Escape did not go back to the prompt box");
  const usage = flat(await chat.locator("#usage").innerText());
  if (!/tokens/.test(usage)) fail(`no usage line under the chat: "${usage}"`);
  seen.read = { scroll, usage, keyboard: [last.item, before.item], status: await wb.statusBar() };
  await wb.shot("03-answer.png");
}

async function editApproved(wb, chat) {
  if (readFileSync(HELLO_PATH, "utf8") !== HELLO_BEFORE) fail(`${HELLO_PATH} changed before the edit prompt`);
  await send(chat, EDIT.prompt);
  await until(
    `the diff editor "${DIFF_TITLE}"`,
    async () => (await wb.editorTabs(DIFF_TITLE).count()) > 0 && (await wb.page.locator(".monaco-diff-editor").first().isVisible()),
    60_000,
  );
  const dialog = wb.dialog();
  await until("the modal review dialog", () => dialog.isVisible(), 30_000);
  const text = flat(await dialog.innerText());
  const buttons = (await dialog.locator(".dialog-buttons .monaco-button").allInnerTexts()).map((b) => b.trim());
  log(`dialog buttons: ${JSON.stringify(buttons)}`);
  // Each button says what it does: Heron's options' own names, no bare "Always" or "Never".
  for (const wanted of ["Apply", "Reject", "Allow all edits this session", "Reject all edits this session"]) {
    if (!buttons.includes(wanted)) fail(`the review dialog has no "${wanted}" button: ${JSON.stringify(buttons)}`);
  }
  for (const vague of ["Always", "Never"]) if (buttons.includes(vague)) fail(`the review dialog still offers a bare "${vague}"`);
  if (!text.includes("src/hello.py")) fail(`the review dialog does not name src/hello.py: "${text}"`);
  await wb.statusBarUntil(/approval needed/i, '"approval needed" during the review', 10_000);
  if (readFileSync(HELLO_PATH, "utf8") !== HELLO_BEFORE) fail(`${HELLO_PATH} changed before "Apply" was clicked`);
  await wb.page.waitForTimeout(500); // let the diff editor render before the picture
  await wb.shot("04-review.png");

  await dialog.getByRole("button", { name: "Apply", exact: true }).click({ timeout: 10_000 });
  log('clicked "Apply"');
  await until(`the answer "${EDIT.answer}"`, () => chat.locator(".msg.agent", { hasText: EDIT.answer }).count(), 60_000);
  await turnEnded(wb, chat, "ask");
  const card = await toolCard(chat, "Edit src/hello.py");
  const diff = await card.locator(".diff").innerText();
  for (const line of ["-def greet(name: str) -> str:", "+def welcome(name: str) -> str:", '+    print(welcome("world"))']) {
    if (!diff.includes(line)) fail(`the edit's diff in the chat lacks ${JSON.stringify(line)}`);
  }
  await until(`the edited text in ${HELLO_PATH}`, () => readFileSync(HELLO_PATH, "utf8") === HELLO_AFTER, 10_000);
  await until("the diff editor to close", async () => (await wb.editorTabs(DIFF_TITLE).count()) === 0, 10_000);
  // The edited file is shown, at the change (line 1), instead of an empty editor area.
  const active = wb.page.locator("#workbench\\.parts\\.editor .tab.active");
  let tabs = [];
  await until(
    'the edited file "hello.py" in the active editor',
    async () => (tabs = (await active.allInnerTexts()).map((t) => t.replace(/\s+/g, ""))).some((t) => t.startsWith("hello.py")),
    10_000,
  ).catch((err) => fail(`${err.message}; active tabs: ${JSON.stringify(tabs)}`));
  const shown = flat(await wb.page.locator("#workbench\\.parts\\.editor .monaco-editor .view-lines").first().innerText());
  if (!shown.includes("def welcome(name: str)")) fail(`the editor does not show the edited text: "${shown.slice(0, 120)}"`);
  const cursor = await wb.page.locator("#workbench\\.parts\\.statusbar", { hasText: "Ln " }).innerText();
  if (!/Ln 1, Col \d+/.test(cursor)) fail(`the cursor is not at the change (line 1): "${flat(cursor)}"`);
  seen.edit = { buttons, dialog: text, file: "hello.py shown at line 1" };
  await wb.page.waitForTimeout(500);
  await wb.shot("05-applied.png");
}

/** Answers a question of Heron's (a quick pick) with "Allow" (once), with the keyboard alone. */
async function approveOnce(wb, what, shot) {
  const { widget, rows } = wb.quickPick();
  await until(what, () => widget.isVisible(), 30_000);
  const labels = (await rows.allInnerTexts()).map(flat);
  log(`${what}: ${JSON.stringify(labels)}`);
  const once = labels.findIndex((label) => label.startsWith("Allow") && !label.includes("Always"));
  if (once < 0) fail(`no "Allow" choice: ${JSON.stringify(labels)}`);
  await wb.shot(shot);
  for (let i = 0; i < once; i++) await wb.page.keyboard.press("ArrowDown");
  await wb.page.keyboard.press("Enter");
  await until(`${what} to close`, async () => !(await widget.isVisible()), 10_000);
  return labels;
}

async function commandInTerminal(wb, chat) {
  await send(chat, COMMAND.prompt);
  // Commands need approval in "ask": a quick pick of Heron's options.
  const labels = await approveOnce(wb, "the command's approval question", "06-command-approval.png");
  await until(`the answer "${COMMAND.answer}"`, () => chat.locator(".msg.agent", { hasText: COMMAND.answer }).count(), 60_000);
  await turnEnded(wb, chat, "ask");
  // Its card: done, its output there (collapsed: 300 lines), all of it on request.
  const card = await toolCard(chat, "Run `seq");
  const output = card.locator("pre.terminal-output");
  await until("the command's output in its card", async () => (await output.innerText()).includes("line 1 of 300"), 10_000);
  const more = card.locator("button.show-more");
  if ((await more.count()) === 0) fail("a 300-line output is not collapsed (no Show all button)");
  const moreText = flat(await more.first().innerText());
  await more.first().click();
  await until("the whole output after Show all", async () => (await output.innerText()).includes("line 150 of 300"), 5_000);
  // The live output in a VS Code terminal named after the tool call.
  const panel = wb.page.locator("#workbench\\.parts\\.panel");
  await until("a terminal named after the tool call", async () => (await panel.innerText()).includes("Run `seq"), 10_000);
  await until(
    "the command's output in the VS Code terminal",
    async () => (await panel.locator(".xterm-rows").innerText()).includes("line 300 of 300"),
    10_000,
  );
  seen.command = { approval: labels, more: moreText, terminal: "named after the tool call, output shown" };
  await wb.shot("07-command.png");
}

async function mcpTool(wb, chat) {
  await send(chat, MCP.prompt);
  const approval = await approveOnce(wb, "the MCP tool's approval question", "08-mcp-approval.png");
  if (!approval.some((label) => label.includes("calc: add"))) fail(`the question does not name the tool: ${JSON.stringify(approval)}`);
  await until(`the answer "${MCP.answer}"`, () => chat.locator(".msg.agent", { hasText: MCP.answer }).count(), 60_000);
  await turnEnded(wb, chat, "ask");
  const card = chat.locator('.tool[data-status="completed"]', { hasText: MCP.result }).last();
  if ((await card.count()) === 0) fail(`no finished card with the MCP tool's result "${MCP.result}"`);
  seen.mcp = flat(await card.innerText());
  await wb.shot("09-mcp.png");
}

/**
 * The delegate call's card as a child session draws it: its state in a word (a part only a
 * child session has: Heron's older shape has no state), the subagent's read nested in its list.
 * `status`: the card's, or null for any.
 */
async function subagentCard(chat, state, status) {
  const filter = status ? `[data-status="${status}"]` : "";
  const card = chat.locator(`#transcript > [data-id] > .tool${filter}`, { hasText: SUBAGENT.task }).last();
  await until(`the delegate card "${SUBAGENT.task}"${status ? ` (${status})` : ""}`, () => card.count(), 60_000);
  const subagent = card.locator(":scope > .subagent");
  const stateWord = subagent.locator(":scope > .subagent-state");
  await until(`the subagent's state "${state}"`, async () => (await stateWord.count()) > 0 && (await stateWord.innerText()) === state, 30_000);
  const nested = subagent.locator(`ul.tool-children > li > .tool[data-status="completed"]`, { hasText: SUBAGENT.read });
  await until(`the subagent's "${SUBAGENT.read}" nested in the delegate card`, async () => (await nested.count()) === 1, 15_000);
  const toggle = flat(await subagent.locator(":scope > button.children-toggle").innerText());
  if (!toggle.startsWith("Subagent · 1 tool call")) fail(`the subagent's toggle says "${toggle}"`);
  return { card, subagent, nested, toggle };
}

async function subagentChildSession(wb, chat) {
  await send(chat, SUBAGENT.prompt);
  // While it pauses after its read: running, stoppable, its call already in its card.
  const running = await subagentCard(chat, "running", null);
  const stop = running.subagent.locator(":scope > button.stop-subagent");
  if (!(await stop.isVisible())) fail("no Stop button on the running subagent's card");
  const stopLabel = await stop.getAttribute("aria-label");
  if (stopLabel !== `Stop the subagent: ${SUBAGENT.task}`) fail(`the Stop button is labelled "${stopLabel}"`);
  if (!(await running.nested.isVisible())) fail("the running subagent's calls are hidden");
  const said = running.subagent.locator(":scope > .subagent-summary");
  await until(`the subagent's message "${SUBAGENT.said}" as the card's summary`, async () => (await said.count()) > 0 && flat(await said.innerText()) === SUBAGENT.said, 10_000);
  await wb.shot("09a-subagent-running.png");

  await until(`the answer "${SUBAGENT.answer}"`, () => chat.locator(".msg.agent", { hasText: SUBAGENT.answer }).count(), 60_000);
  await turnEnded(wb, chat, "ask");
  const done = await subagentCard(chat, "done", "completed");
  if ((await done.subagent.locator("button.stop-subagent").count()) > 0) fail("a finished subagent still has a Stop button");
  if (await done.nested.isVisible()) fail("a finished subagent's calls are not folded away");
  // Its report, once: in the call's own text (Heron's account), not again as the summary.
  const summary = flat(await done.card.innerText());
  if (summary.split(SUBAGENT.report).length !== 2) fail(`the subagent's report is not in its card exactly once: "${summary}"`);
  await done.subagent.locator(":scope > button.children-toggle").click();
  await until("the subagent's calls shown again", () => done.nested.isVisible(), 5_000);
  // The subagent's own words (its task, its message) are not the parent's chat.
  if ((await chat.locator(".msg", { hasText: SUBAGENT.said }).count()) > 0) fail("the subagent's message shows as the parent's");
  seen.subagent = {
    running: { stop: stopLabel, summary: SUBAGENT.said },
    done: { toggle: done.toggle, label: await done.card.evaluate((el) => el.closest("[data-id]")?.getAttribute("aria-label")) },
  };
  await wb.shot("09b-subagent.png");
}

async function switchMode(wb, chat) {
  await chat.locator("#mode-select").selectOption("accept-edits");
  seen.mode = await wb.statusBarUntil(/ready \(accept-edits\)/i, '"ready (accept-edits)" after the picker', 15_000);
  await wb.shot("10-mode.png");
}

async function stopMidStream(wb, chat) {
  await send(chat, STREAM.prompt);
  const reply = chat.locator(".msg.agent", { hasText: STREAM.start.split(" ").slice(0, 4).join(" ") });
  await until("the story to start streaming", () => reply.count(), 30_000);
  const stop = chat.locator("#stop");
  if (!(await stop.isVisible())) fail("no Stop button while the reply streams");
  await stop.click();
  log("clicked Stop");
  await until('the "Stopped" notice', () => chat.locator(".notice", { hasText: "Stopped" }).count(), 15_000);
  await turnEnded(wb, chat, "accept-edits");
  if ((await chat.locator(".msg.agent", { hasText: STREAM.end }).count()) > 0) fail("the story went on after Stop");
  if (await stop.isVisible()) fail("the Stop button is still shown after the turn ended");
  seen.stopped = flat(await reply.last().innerText());
  await wb.shot("11-stopped.png");
}

async function reloadAndLoad(wb) {
  await wb.page.reload({ waitUntil: "domcontentloaded", timeout: 60_000 });
  await wb.ready();
  let chat = await until("the chat view after the reload", () => wb.chatFrame(), 20_000).catch(() => null);
  if (!chat) {
    await wb.runCommand("Heron: Focus on Chat View");
    chat = await until("the chat view", () => wb.chatFrame(), 30_000);
  }
  await wb.shot("12-reloaded.png");
  const picker = chat.locator("#session-select");
  const option = picker.locator("option", { hasText: SESSION_TITLE });
  await until(`"${SESSION_TITLE}" in the session picker`, () => option.count(), 30_000);
  await picker.selectOption({ label: flat(await option.first().innerText()) });
  log(`picked the session "${SESSION_TITLE}"`);
  // The history comes back: prompts, answers, the edit's diff and the command's card.
  for (const text of [READ.prompt, EDIT.prompt, COMMAND.prompt, MCP.prompt, SUBAGENT.prompt, STREAM.prompt]) {
    await until(`"${text}" replayed`, () => chat.locator(".msg.user", { hasText: text }).count(), 30_000);
  }
  for (const text of [READ.answer, EDIT.answer, COMMAND.answer, MCP.answer, SUBAGENT.answer]) {
    await until(`"${text}" replayed`, () => chat.locator(".msg.agent", { hasText: text }).count(), 30_000);
  }
  const diff = await (await toolCard(chat, "Edit src/hello.py")).locator(".diff").innerText();
  if (!diff.includes("+def welcome(name: str) -> str:")) fail("the replayed edit has lost its diff");
  await toolCard(chat, "Run `seq");
  // The subagent comes back as a child session too: its read nested in the delegate card, done.
  const replayed = await subagentCard(chat, "done", "completed");
  // Its usage line comes back with it (Heron sends the last one after the replay).
  const usage = chat.locator("#usage");
  await until("the session's usage line after loading", async () => /tokens/.test(await usage.innerText()), 10_000);
  await wb.statusBarUntil(/ready/i, '"ready" after loading', 30_000);
  seen.loaded = {
    title: SESSION_TITLE,
    picker: await picker.locator("option").allInnerTexts(),
    usage: flat(await usage.innerText()),
    subagent: replayed.toggle,
  };
  await wb.shot("13-loaded.png");
  return chat;
}

/** The `heron acp` this test's code-server started: its HERON_HOME is the test's own. */
function heronPids() {
  const pids = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      const environ = readFileSync(`/proc/${entry}/environ`, "utf8").split("\0");
      if (argv.includes("acp") && argv.some((a) => a.endsWith("heron")) && environ.includes(`HERON_HOME=${HERON_HOME}`)) pids.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return pids;
}

async function agentCrashes(wb, chat) {
  const pids = heronPids();
  if (pids.length !== 1) fail(`expected one heron acp of this test, found ${JSON.stringify(pids)}`);
  process.kill(pids[0], "SIGKILL");
  log(`killed heron acp (pid ${pids[0]})`);
  await wb.statusBarUntil(/Heron: error/, '"Heron: error" once the agent has gone', 15_000);
  const notice = chat.locator(".notice", { hasText: "Heron stopped." });
  await until('the "Heron stopped." notice', () => notice.count(), 10_000);
  const said = flat(await notice.last().innerText());
  if (!/SIGKILL/.test(said) || !/next prompt starts it again/.test(said)) fail(`the notice does not say what happened and what to do: "${said}"`);
  await wb.shot("14-crashed.png");
  // The next prompt starts Heron again, in a new session.
  await send(chat, READ.prompt);
  await until(`the answer "${READ.answer}" from the new agent`, () => chat.locator(".msg.agent", { hasText: READ.answer }).count(), 60_000);
  await turnEnded(wb, chat, "ask");
  seen.crash = { notice: said, recovered: heronPids().length === 1 };
  await wb.shot("15-recovered.png");
}

/** A user's prompt in the chat: its item (the bubble and its actions), by its text. */
function promptItem(chat, text) {
  return chat.locator("#transcript > [data-id]", { has: chat.locator(".msg.user", { hasText: text }) });
}

async function editAndResend(wb, chat) {
  // In accept-edits the turns' edits apply without a review; a restore is asked about in any mode.
  await chat.locator("#mode-select").selectOption("accept-edits");
  await wb.statusBarUntil(/ready \(accept-edits\)/i, '"ready (accept-edits)" after the picker', 15_000);
  if (readFileSync(HELLO_PATH, "utf8") !== HELLO_AFTER) fail(`${HELLO_PATH} is not as the edit step left it`);
  await send(chat, REWIND.prompt);
  await until(`the answer "${REWIND.answer}"`, () => chat.locator(".msg.agent", { hasText: REWIND.answer }).count(), 60_000);
  await turnEnded(wb, chat, "accept-edits");
  await until(`farewell() added to ${HELLO_PATH}`, () => readFileSync(HELLO_PATH, "utf8") === HELLO_FAREWELL, 10_000);

  // The prompt's actions: faded until the pointer or keyboard focus is on the prompt. (The item is
  // held by its id: while it is edited it has no bubble to be found by.)
  const itemId = await promptItem(chat, REWIND.prompt).getAttribute("data-id");
  const item = chat.locator(`#transcript > [data-id="${itemId}"]`);
  const actions = item.locator(".prompt-actions");
  await until("the prompt's actions", () => actions.count(), 10_000);
  const labels = (await actions.locator("button.prompt-action").allInnerTexts()).map(flat);
  if (JSON.stringify(labels) !== JSON.stringify(["Rewind to here", "Edit and resend"])) fail(`the prompt's actions are ${JSON.stringify(labels)}`);
  const opacity = () => actions.evaluate((el) => getComputedStyle(el).opacity);
  await chat.locator("textarea#prompt").hover();
  const away = await opacity();
  if (away !== "0") fail(`the prompt's actions are shown with the pointer and focus elsewhere (opacity ${away})`);
  await item.locator(".msg.user").hover();
  await until("the actions shown on hover", async () => (await opacity()) === "1", 5_000);
  // Reached and used with the keyboard: focus on "Edit and resend", Enter.
  const edit = actions.locator('button.prompt-action[data-action="edit"]');
  await edit.focus();
  await chat.page().keyboard.press("Enter");
  const editor = item.locator("textarea.edit-text");
  await until("the prompt's editor", () => editor.isVisible(), 5_000);
  const before = await editor.inputValue();
  if (before !== REWIND.prompt) fail(`the editor holds "${before}", not the prompt`);
  await editor.fill(REWIND.edited);
  await wb.shot("16-edit-prompt.png");
  await item.locator("button.edit-send").click();
  log(`sent the edited prompt "${REWIND.edited}"`);

  // Heron shows what the restore does, in the chat (the card with the diff) and in its question.
  const restoreCard = chat.locator(".tool", { hasText: REWIND.restoreTitle }).last();
  await until("the restore preview's card in the chat", () => restoreCard.count(), 30_000);
  const dialog = wb.dialog();
  await until("the restore question", () => dialog.isVisible(), 30_000);
  const buttons = (await dialog.locator(".dialog-buttons .monaco-button").allInnerTexts()).map((b) => b.trim());
  if (!buttons.includes(REWIND.restoreButton)) fail(`the restore question has no "${REWIND.restoreButton}": ${JSON.stringify(buttons)}`);
  const question = flat(await dialog.innerText());
  if (!question.includes(REWIND.restoreTitle)) fail(`the question does not say what it restores: "${question}"`);
  const preview = await restoreCard.locator(".diff").innerText();
  if (!preview.includes("-def farewell(name: str) -> str:")) fail(`the restore preview's diff does not take farewell() away: "${flat(preview)}"`);
  await wb.statusBarUntil(/approval needed/i, '"approval needed" during the restore question', 10_000);
  if (readFileSync(HELLO_PATH, "utf8") !== HELLO_FAREWELL) fail(`${HELLO_PATH} changed before "${REWIND.restoreButton}"`);
  if ((await chat.locator(".msg.user", { hasText: REWIND.edited }).count()) === 0) fail("the edited prompt is not in the chat");
  await wb.page.waitForTimeout(300);
  await wb.shot("17-restore-preview.png");
  await dialog.getByRole("button", { name: REWIND.restoreButton, exact: true }).click({ timeout: 10_000 });
  log(`clicked "${REWIND.restoreButton}"`);

  // The new prompt and its answer, instead of the old ones; the file as the restore and the new turn left it.
  await until(`the answer "${REWIND.editedAnswer}"`, () => chat.locator(".msg.agent", { hasText: REWIND.editedAnswer }).count(), 60_000);
  await turnEnded(wb, chat, "accept-edits");
  if ((await chat.locator(".msg.user", { hasText: REWIND.prompt }).count()) > 0) fail("the old prompt is still in the chat");
  if ((await chat.locator(".msg.agent", { hasText: REWIND.answer }).count()) > 0) fail("the old prompt's answer is still in the chat");
  const users = (await chat.locator(".msg.user").allInnerTexts()).map(flat);
  if (users.at(-1) !== REWIND.edited) fail(`the last prompt in the chat is "${users.at(-1)}"`);
  await until(`${HELLO_PATH} restored, then given its docstring`, () => readFileSync(HELLO_PATH, "utf8") === HELLO_DOCSTRING, 10_000).catch(() =>
    fail(`${HELLO_PATH} is not as the restore and the new turn left it:\n${readFileSync(HELLO_PATH, "utf8")}`),
  );
  await toolCard(chat, REWIND.restoreTitle);
  // The new prompt has its own id now: its actions are there again.
  await until("the new prompt's actions", () => promptItem(chat, REWIND.edited).locator("button.prompt-action").count(), 10_000);
  seen.rewind = { actions: labels, hiddenAway: away, dialog: buttons, prompts: users };
  await wb.shot("18-edited.png");
}

async function rewindToHere(wb, chat) {
  const item = promptItem(chat, REWIND.edited);
  await item.locator(".msg.user").hover();
  await item.locator('button.prompt-action[data-action="rewind"]').click();
  log('clicked "Rewind to here"');
  const dialog = wb.dialog();
  await until("the restore question", () => dialog.isVisible(), 30_000);
  if (readFileSync(HELLO_PATH, "utf8") !== HELLO_DOCSTRING) fail(`${HELLO_PATH} changed before "${REWIND.restoreButton}"`);
  await dialog.getByRole("button", { name: REWIND.restoreButton, exact: true }).click({ timeout: 10_000 });
  // The prompt and its answer leave the chat; its text is back in the prompt box; the file as before it.
  const notice = chat.locator(".notice", { hasText: "Rewound." });
  await until('the "Rewound." notice', () => notice.count(), 30_000);
  await turnEnded(wb, chat, "accept-edits");
  if ((await chat.locator(".msg.user", { hasText: REWIND.edited }).count()) > 0) fail("the rewound prompt is still in the chat");
  if ((await chat.locator(".msg.agent", { hasText: REWIND.editedAnswer }).count()) > 0) fail("the rewound prompt's answer is still in the chat");
  const box = await chat.locator("textarea#prompt").inputValue();
  if (box !== REWIND.edited) fail(`the prompt box holds "${box}", not the rewound prompt`);
  await until(`${HELLO_PATH} as it was before the prompt`, () => readFileSync(HELLO_PATH, "utf8") === HELLO_AFTER, 10_000);
  seen.rewoundToHere = { notice: flat(await notice.last().innerText()), promptBox: box };
  await wb.shot("19-rewound.png");
}

async function main(wb) {
  log(`open ${URL}`);
  await wb.page.goto(URL, { waitUntil: "domcontentloaded", timeout: 60_000 });
  const chat = await step("new session", () => newSession(wb));
  await step("read a file", () => readAFile(wb, chat));
  await step("edit approved in the diff editor", () => editApproved(wb, chat));
  await step("command in a VS Code terminal", () => commandInTerminal(wb, chat));
  await step("a tool of an MCP server", () => mcpTool(wb, chat));
  await step("a subagent as a child session, nested in the delegate card", () => subagentChildSession(wb, chat));
  await step("switch mode from the picker", () => switchMode(wb, chat));
  await step("stop a streaming reply", () => stopMidStream(wb, chat));
  const reloaded = await step("reload, then load the session from the picker", () => reloadAndLoad(wb));
  await step("the agent crashes, the next prompt starts it again", () => agentCrashes(wb, reloaded));
  await step("edit and resend a prompt whose turn edited a file", () => editAndResend(wb, reloaded));
  await step("rewind to here", () => rewindToHere(wb, reloaded));
  writeFileSync(join(ARTIFACTS, "result.json"), `${JSON.stringify({ passed: true, ...seen }, null, 2)}\n`);
}

const profile = mkdtempSync(join(tmpdir(), "heron-e2e-chromium-"));
let context;
let wb;
const consoleLines = [];

for (const [signal, exitCode] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
]) {
  process.on(signal, () => {
    console.error(`[browser] ${signal}: stopping`);
    const done = () => {
      rmSync(profile, { recursive: true, force: true });
      process.exit(exitCode);
    };
    setTimeout(done, 3000).unref();
    (context ? context.close() : Promise.resolve()).catch(() => {}).finally(done);
  });
}

let code = 0;
try {
  log(`chromium ${CHROMIUM}, profile ${profile}`);
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    handleSIGINT: false, // handled above: close the browser, remove the profile, exit
    handleSIGTERM: false,
    viewport: { width: 1440, height: 900 },
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  recordBrowserPid(profile);
  const page = context.pages()[0] ?? (await context.newPage());
  page.on("console", (msg) => consoleLines.push(`[${msg.type()}] ${msg.text()}`));
  page.on("pageerror", (err) => consoleLines.push(`[pageerror] ${err.message}`));
  wb = new Workbench(page, ARTIFACTS);
  await main(wb);
  log("PASS");
} catch (err) {
  code = 1;
  console.error(`[browser] FAIL: ${err instanceof Failure ? err.message : (err.stack ?? err)}`);
  if (wb) {
    await wb.shot("99-failure.png").catch(() => {});
    writeFileSync(join(ARTIFACTS, "failure-frames.txt"), await wb.dumpFrames());
  }
} finally {
  if (consoleLines.length) writeFileSync(join(ARTIFACTS, "browser-console.log"), `${consoleLines.join("\n")}\n`);
  await context?.close().catch(() => {});
  rmSync(profile, { recursive: true, force: true });
}
process.exit(code);
