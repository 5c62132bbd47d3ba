// Drives code-server's workbench in Debian's headless Chromium: opens the sample workspace, runs
// "Heron: New Session", sends a prompt in Heron's chat webview and checks the scripted answer,
// then asks for an edit, reviews it (diff editor + modal dialog), clicks "Apply" and checks the
// chat, the status bar and the file on disk.
// Started by run.sh, which passes everything through the environment.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (run.sh sets it)`);
  return value;
};
const URL = env("E2E_URL");
const ARTIFACTS = env("E2E_ARTIFACTS");
const CHROMIUM = env("E2E_CHROMIUM");
const PROMPT = env("E2E_PROMPT");
const ANSWER = env("E2E_ANSWER");
const EDIT_PROMPT = env("E2E_EDIT_PROMPT");
const EDIT_ANSWER = env("E2E_EDIT_ANSWER");
const WORKSPACE = env("E2E_WORKSPACE");
const EXPECTED_HELLO = env("E2E_EXPECTED_HELLO");
const DIFF_TITLE = "hello.py: Heron's proposed edit"; // the extension's vscode.diff title

const started = Date.now();
const log = (message) => console.log(`[browser ${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`);

class Failure extends Error {}
const fail = (message) => {
  throw new Failure(message);
};

/** Polls `probe` until it returns a truthy value; fails with `what` after `timeoutMs`. */
async function until(what, probe, timeoutMs = 30_000, intervalMs = 250) {
  const deadline = Date.now() + timeoutMs;
  let lastError;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (err) {
      if (err instanceof Failure) throw err; // a definite failure, not "not yet"
      lastError = err;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  fail(`timed out after ${timeoutMs / 1000}s waiting for ${what}${lastError ? ` (last error: ${lastError.message})` : ""}`);
}

const profile = mkdtempSync(join(tmpdir(), "heron-e2e-chromium-"));
let context;
let page;
const consoleLines = [];

async function shot(name) {
  const path = join(ARTIFACTS, name);
  await page.screenshot({ path });
  log(`screenshot ${path}`);
  return path;
}

async function statusBarText() {
  const items = page.locator("#workbench\\.parts\\.statusbar .statusbar-item", { hasText: "Heron" });
  if ((await items.count()) === 0) return "";
  return (await items.first().innerText()).trim();
}

/** Runs a command from the command palette by its title, as a person would. */
async function runCommand(title) {
  const input = page.locator(".quick-input-widget .quick-input-box input");
  await page.locator(".monaco-workbench").click({ position: { x: 700, y: 400 } }).catch(() => {});
  await page.keyboard.press("F1");
  if (!(await input.isVisible().catch(() => false))) {
    await page.keyboard.press("Control+Shift+P");
  }
  await input.waitFor({ state: "visible", timeout: 10_000 });
  await input.fill(`>${title}`);
  const row = page.locator(".quick-input-widget .monaco-list-row", { hasText: title }).first();
  await row.waitFor({ state: "visible", timeout: 10_000 }).catch(() =>
    fail(`the command palette does not offer "${title}"`),
  );
  await page.keyboard.press("Enter");
  await input.waitFor({ state: "hidden", timeout: 10_000 }).catch(() => {});
  log(`ran "${title}"`);
}

/** The frame of Heron's chat webview: the one (nested in iframes) that has the prompt box. */
async function chatFrame() {
  for (const frame of page.frames()) {
    if (frame === page.mainFrame()) continue;
    const has = await frame
      .locator("textarea#prompt")
      .count()
      .catch(() => 0);
    if (has > 0) return frame;
  }
  return null;
}

/**
 * Playwright starts Chromium in a process group of its own. Its pid goes to a file so that run.sh
 * can end it even when this script is killed before it could close the browser.
 */
function recordBrowserPid() {
  const pidFile = process.env.E2E_BROWSER_PID_FILE;
  if (!pidFile) return;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (ppid === process.pid && cmdline.includes(profile)) {
        writeFileSync(pidFile, `${entry}\n`);
        return;
      }
    } catch {
      // the process went away meanwhile
    }
  }
}

/** Editor tabs of Heron's proposed edit (a diff editor titled "<name>: Heron's proposed edit"). */
const diffTabs = () => page.locator("#workbench\\.parts\\.editor .tab", { hasText: DIFF_TITLE });

/**
 * "First edit approved in my editor": a prompt whose scripted replies read src/hello.py and edit
 * it with edit_file. In mode "ask" Heron requests permission; the extension opens a diff editor
 * and a modal dialog. The test clicks "Apply", then checks the chat, the status bar, the file on
 * disk and that the diff editor is gone.
 */
async function firstEditApproved(frame) {
  const step = (name, promise) =>
    promise.catch((err) => fail(`edit step "${name}": ${err instanceof Failure ? err.message : err.message ?? err}`));
  const helloPath = join(WORKSPACE, "src", "hello.py");
  const before = readFileSync(helloPath, "utf8");
  if (before === EXPECTED_HELLO) fail(`${helloPath} already holds the edited text before the edit prompt`);

  const prompt = frame.locator("textarea#prompt");
  await step("send the edit prompt", (async () => {
    await prompt.click();
    await prompt.fill(EDIT_PROMPT);
    await prompt.press("Enter");
  })());
  log(`sent "${EDIT_PROMPT}"`);
  await step("the edit prompt in the transcript", until(
    "the edit prompt in the transcript",
    () => frame.locator(".msg.user", { hasText: EDIT_PROMPT }).count(),
    15_000,
  ));

  // The review: a diff editor tab and VS Code's modal dialog (custom dialog in the workbench DOM).
  await step("the diff editor", until(
    `the diff editor tab "${DIFF_TITLE}"`,
    async () => (await diffTabs().count()) > 0 && (await page.locator(".monaco-diff-editor").first().isVisible()),
    60_000,
  ));
  log(`diff editor open: "${DIFF_TITLE}"`);
  const dialog = page.locator(".monaco-dialog-box");
  await step("the modal review dialog", until(
    "the modal review dialog (Apply / Reject)",
    async () => (await dialog.count()) > 0 && (await dialog.first().isVisible()),
    30_000,
  ));
  const dialogText = (await dialog.first().innerText()).replace(/\s+/g, " ").trim();
  log(`dialog: "${dialogText}"`);
  const buttons = (await dialog.first().locator(".dialog-buttons .monaco-button").allInnerTexts()).map((b) => b.trim());
  log(`dialog buttons: ${JSON.stringify(buttons)}`);
  for (const wanted of ["Apply", "Reject"]) {
    if (!buttons.includes(wanted)) fail(`the review dialog has no "${wanted}" button (buttons: ${JSON.stringify(buttons)})`);
  }
  if (!/src\/hello\.py/.test(dialogText)) fail(`the review dialog does not name src/hello.py: "${dialogText}"`);
  // The status bar says Heron waits for the user.
  const reviewStatus = await until(
    'status bar "Heron: approval needed" during the review',
    async () => {
      const text = await statusBarText();
      return /approval needed/i.test(text) ? text : "";
    },
    10_000,
  ).catch((err) => fail(`edit step "the status bar during the review": ${err.message}`));
  log(`status bar: "${reviewStatus}"`);
  // While the dialog is up nothing is written yet.
  if (readFileSync(helloPath, "utf8") !== before) fail(`${helloPath} changed before "Apply" was clicked`);
  await page.waitForTimeout(500); // let the diff editor render before the picture
  await shot("04-review.png");

  await step('click "Apply"', dialog.first().getByRole("button", { name: "Apply", exact: true }).click({ timeout: 10_000 }));
  log('clicked "Apply"');
  await step("the dialog closes", until(
    "the review dialog to close after Apply",
    async () => (await dialog.count()) === 0 || !(await dialog.first().isVisible()),
    10_000,
  ));

  // The answer, then the end of the turn.
  const agent = frame.locator(".msg.agent", { hasText: EDIT_ANSWER });
  await step("the edit answer", until(`the answer "${EDIT_ANSWER}" in the chat`, () => agent.count(), 60_000));
  await step("the end of the edit turn", until(
    'the end of the edit turn (status bar "ready (ask)")',
    async () => !(await frame.locator("body.busy").count()) && /ready \(ask\)/i.test(await statusBarText()),
    30_000,
  ));
  const answer = (await agent.first().innerText()).trim();
  log(`answer: "${answer}"`);
  const status = await statusBarText();
  log(`status bar: "${status}"`);

  // The edit's tool call: done, with its diff.
  const editTool = frame.locator(".tool", { hasText: "Edit src/hello.py" });
  if ((await editTool.count()) === 0) {
    const tools = await frame.locator(".tool").allInnerTexts();
    fail(`no "Edit src/hello.py" tool item in the chat (tool items: ${JSON.stringify(tools)})`);
  }
  const toolText = (await editTool.last().innerText()).replace(/\s+/g, " ").trim();
  log(`edit tool item: "${toolText}"`);
  const toolClass = (await editTool.last().getAttribute("class")) ?? "";
  if (!toolClass.includes("status-completed") || !/^done\b/.test(toolText)) {
    fail(`the edit tool item is not done (class "${toolClass}"): "${toolText}"`);
  }
  const diffText = await editTool.last().locator(".diff").innerText().catch(() => "");
  for (const line of ["-def greet(name: str) -> str:", "+def welcome(name: str) -> str:", '+    print(welcome("world"))']) {
    if (!diffText.includes(line)) fail(`the edit's diff in the chat lacks ${JSON.stringify(line)}: ${JSON.stringify(diffText)}`);
  }

  // The file on disk (written by the extension through a WorkspaceEdit and saved).
  let onDisk = "";
  await until(
    `the edited text in ${helloPath}`,
    () => (onDisk = readFileSync(helloPath, "utf8")) === EXPECTED_HELLO,
    10_000,
  ).catch((err) =>
    fail(`edit step "the file on disk": ${err.message}; it holds ${JSON.stringify(onDisk)}, expected ${JSON.stringify(EXPECTED_HELLO)}`),
  );
  log(`${helloPath} holds the edited text`);

  // The review is over: its diff editor is closed.
  await step("the diff editor closes", until(
    `the diff editor "${DIFF_TITLE}" to close`,
    async () => (await diffTabs().count()) === 0,
    10_000,
  ));
  log("diff editor closed");

  await page.waitForTimeout(500);
  await shot("05-applied.png");
  return { dialog: dialogText, buttons, reviewStatus, tool: toolText, answer, status };
}

async function main() {
  log(`chromium ${CHROMIUM}, profile ${profile}`);
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    handleSIGINT: false, // handled below: close the browser, remove the profile, exit
    handleSIGTERM: false,
    viewport: { width: 1440, height: 900 },
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  recordBrowserPid();
  page = context.pages()[0] ?? (await context.newPage());
  page.on("console", (msg) => consoleLines.push(`[${msg.type()}] ${msg.text()}`));
  page.on("pageerror", (err) => consoleLines.push(`[pageerror] ${err.message}`));

  log(`open ${URL}`);
  await page.goto(URL, { waitUntil: "domcontentloaded", timeout: 60_000 });
  await page.locator(".monaco-workbench").waitFor({ state: "visible", timeout: 60_000 });
  await page.locator("#workbench\\.parts\\.statusbar").waitFor({ state: "visible", timeout: 60_000 });
  log("workbench is up");

  // The extension activates on startup and shows its status bar item.
  const initialStatus = await until("Heron's status bar item", statusBarText, 60_000);
  log(`status bar: "${initialStatus}"`);
  // The explorer shows the sample workspace.
  await until("the sample workspace in the explorer", () =>
    page.locator(".explorer-folders-view .monaco-list-row", { hasText: "README.md" }).count(),
  );
  await page.waitForTimeout(1000); // let notifications and layout settle before the picture
  await shot("01-workbench.png");

  await runCommand("Heron: New Session");
  const readyStatus = await until(
    'status bar "Heron: ready (ask)" after New Session',
    async () => {
      const text = await statusBarText();
      if (/error/i.test(text)) fail(`status bar shows an error after New Session: "${text}"`);
      return /ready \(ask\)/i.test(text) ? text : ""; // the session is open, in its mode
    },
    60_000,
  );
  log(`status bar: "${readyStatus}"`);

  // New Session opens the chat view, even when it has never been shown.
  const frame = await until("Heron's chat webview, opened by New Session", chatFrame, 30_000);
  log(`chat webview frame: ${frame.url().slice(0, 100)}…`);

  const prompt = frame.locator("textarea#prompt");
  await prompt.waitFor({ state: "visible", timeout: 10_000 });
  await shot("02-chat-open.png");
  await prompt.click();
  await prompt.fill(PROMPT);
  await prompt.press("Enter");
  log(`sent "${PROMPT}"`);

  await until(
    "the prompt in the transcript",
    () => frame.locator(".msg.user", { hasText: PROMPT }).count(),
    15_000,
  );
  const agent = frame.locator(".msg.agent", { hasText: ANSWER });
  await until(`the answer "${ANSWER}" in the chat`, () => agent.count(), 90_000);
  // Wait until the turn is over: the webview's busy flag clears and the status bar is ready again.
  await until(
    "the end of the turn",
    async () => !(await frame.locator("body.busy").count()) && /ready/i.test(await statusBarText()),
    30_000,
  );
  const answer = (await agent.first().innerText()).trim();
  log(`answer: "${answer}"`);
  if (!answer.includes(ANSWER)) fail(`answer is "${answer}", expected it to contain "${ANSWER}"`);

  // The read_file tool call shows as a finished tool item.
  const tools = await frame.locator(".tool").allInnerTexts();
  log(`tool items: ${JSON.stringify(tools.map((t) => t.replace(/\s+/g, " ").trim()))}`);
  if (!tools.some((t) => /done/i.test(t))) fail(`no finished tool call in the chat (tool items: ${JSON.stringify(tools)})`);
  // What the tool read is shown as it is in the file: preformatted, not rendered as markdown.
  const output = await frame.locator(".tool pre.tool-output").first().innerText().catch(() => "");
  if (!output.includes('if __name__ == "__main__":')) fail(`the file's text is not shown verbatim: ${JSON.stringify(output)}`);

  const finalStatus = await statusBarText();
  log(`status bar: "${finalStatus}"`);
  if (!/Heron: ready/.test(finalStatus)) fail(`status bar shows "${finalStatus}", expected "Heron: ready"`);

  await page.waitForTimeout(500);
  await shot("03-answer.png");

  const edit = await firstEditApproved(frame);

  writeFileSync(
    join(ARTIFACTS, "result.json"),
    JSON.stringify(
      { passed: true, initialStatus, readyStatus, finalStatus, answer, tools, edit },
      null,
      2,
    ),
  );
}

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
  await main();
  log("PASS");
} catch (err) {
  code = 1;
  console.error(`[browser] FAIL: ${err instanceof Failure ? err.message : err.stack ?? err}`);
  if (page) {
    await shot("99-failure.png").catch(() => {});
    // What each frame shows, for the post-mortem.
    const dump = [];
    for (const frame of page.frames()) {
      const text = await frame
        .evaluate(() => document.body?.innerText ?? "")
        .catch((e) => `(unreadable: ${e.message})`);
      dump.push(`=== ${frame.url()}\n${text}`);
    }
    writeFileSync(join(ARTIFACTS, "failure-frames.txt"), dump.join("\n\n"));
  }
} finally {
  if (consoleLines.length) writeFileSync(join(ARTIFACTS, "browser-console.log"), consoleLines.join("\n") + "\n");
  await context?.close().catch(() => {});
  rmSync(profile, { recursive: true, force: true });
}
process.exit(code);
