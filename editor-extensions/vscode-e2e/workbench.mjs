// What the browser test does to code-server's workbench, as a person would: waits, screenshots,
// the command palette, the status bar, Heron's chat webview, quick picks and modal dialogs.
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const started = Date.now();
export const log = (message) => console.log(`[browser ${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`);

/** A definite failure (not "not yet"): ends the test with this message. */
export class Failure extends Error {}
export const fail = (message) => {
  throw new Failure(message);
};

/** Polls `probe` until it returns a truthy value; fails with `what` after `timeoutMs`. */
export async function until(what, probe, timeoutMs = 30_000, intervalMs = 250) {
  const deadline = Date.now() + timeoutMs;
  let lastError;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (err) {
      if (err instanceof Failure) throw err;
      lastError = err;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  fail(`timed out after ${timeoutMs / 1000}s waiting for ${what}${lastError ? ` (last error: ${lastError.message})` : ""}`);
}

/** Runs `body`; a failure inside it names the step. */
export async function step(name, body) {
  log(`— ${name}`);
  try {
    return await body();
  } catch (err) {
    fail(`step "${name}": ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Collapses white space, for comparing what the DOM shows. */
export const flat = (text) => text.replace(/\s+/g, " ").trim();

export class Workbench {
  constructor(page, artifacts) {
    this.page = page;
    this.artifacts = artifacts;
  }

  async shot(name) {
    const path = join(this.artifacts, name);
    await this.page.screenshot({ path });
    log(`screenshot ${name}`);
  }

  /** Waits for the workbench and Heron's status bar item (the extension has activated). */
  async ready() {
    const page = this.page;
    await page.locator(".monaco-workbench").waitFor({ state: "visible", timeout: 60_000 });
    await page.locator("#workbench\\.parts\\.statusbar").waitFor({ state: "visible", timeout: 60_000 });
    return until("Heron's status bar item", () => this.statusBar(), 60_000);
  }

  async statusBar() {
    const items = this.page.locator("#workbench\\.parts\\.statusbar .statusbar-item", { hasText: "Heron" });
    if ((await items.count()) === 0) return "";
    return (await items.first().innerText()).trim();
  }

  /** Waits until the status bar matches `pattern`; fails at once on an error state. */
  statusBarUntil(pattern, what, timeoutMs = 30_000) {
    return until(
      `status bar ${what}`,
      async () => {
        const text = await this.statusBar();
        if (/error/i.test(text) && !pattern.test(text)) fail(`status bar shows an error: "${text}"`);
        return pattern.test(text) ? text : "";
      },
      timeoutMs,
    );
  }

  /** Runs a command from the command palette by its title. */
  async runCommand(title) {
    const page = this.page;
    const input = page.locator(".quick-input-widget .quick-input-box input");
    await page.locator(".monaco-workbench").click({ position: { x: 700, y: 400 } }).catch(() => {});
    await page.keyboard.press("F1");
    if (!(await input.isVisible().catch(() => false))) await page.keyboard.press("Control+Shift+P");
    await input.waitFor({ state: "visible", timeout: 10_000 });
    await input.fill(`>${title}`);
    const row = page.locator(".quick-input-widget .monaco-list-row", { hasText: title }).first();
    await row.waitFor({ state: "visible", timeout: 10_000 }).catch(() => fail(`the command palette does not offer "${title}"`));
    await page.keyboard.press("Enter");
    await input.waitFor({ state: "hidden", timeout: 10_000 }).catch(() => {});
    log(`ran "${title}"`);
  }

  /** The frame of Heron's chat webview: the one (nested in iframes) that has the prompt box. */
  async chatFrame() {
    for (const frame of this.page.frames()) {
      if (frame === this.page.mainFrame()) continue;
      const has = await frame.locator("textarea#prompt").count().catch(() => 0);
      if (has > 0) return frame;
    }
    return null;
  }

  /** The open quick pick: its title and rows. */
  quickPick() {
    const widget = this.page.locator(".quick-input-widget");
    return { widget, rows: widget.locator(".monaco-list-row") };
  }

  /** VS Code's modal dialog (the workbench's own, in the DOM). */
  dialog() {
    return this.page.locator(".monaco-dialog-box").first();
  }

  /** Editor tabs whose label contains `text`. */
  editorTabs(text) {
    return this.page.locator("#workbench\\.parts\\.editor .tab", { hasText: text });
  }

  /** The text of every frame, for a post-mortem. */
  async dumpFrames() {
    const dump = [];
    for (const frame of this.page.frames()) {
      const text = await frame.evaluate(() => document.body?.innerText ?? "").catch((e) => `(unreadable: ${e.message})`);
      dump.push(`=== ${frame.url()}\n${text}`);
    }
    return dump.join("\n\n");
  }
}

/**
 * Playwright starts Chromium in a process group of its own. Its pid goes to a file so that run.sh
 * can end it even when the test is killed before it could close the browser.
 */
export function recordBrowserPid(profile) {
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
