// Starts test/fixtures/fake-agent.mjs (a scripted ACP agent) in place of `heron acp`.
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { AgentCommand } from "../src/agentProcess";
import type { FsHandler, TerminalHandler } from "../src/connection";

export const FAKE_AGENT = resolve("test/fixtures/fake-agent.mjs");

export function fakeAgentCommand(cwd: string, env: Record<string, string> = {}): AgentCommand {
  return { command: process.execPath, args: [FAKE_AGENT], cwd, env: { ...process.env, ...env } };
}

/** An executable that runs the fake agent, to set as `heron.path` (it ignores the `acp` argument). */
export function fakeHeronExecutable(): string {
  const dir = mkdtempSync(join(tmpdir(), "heron-fake-bin-"));
  const path = join(dir, "heron");
  writeFileSync(path, `#!/bin/sh\nexec "${process.execPath}" "${FAKE_AGENT}" "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}

export async function until(what: string, condition: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** For a fake agent that never reads or writes files. */
export const NO_FS: FsHandler = {
  readTextFile: () => Promise.reject(new Error("no")),
  writeTextFile: () => Promise.reject(new Error("no")),
};

/** For a fake agent that runs no commands; `onReleaseAll` counts the controller's clean-ups. */
export function noTerminals(onReleaseAll: () => void = () => undefined): TerminalHandler & { releaseAll(): void } {
  return {
    create: () => Promise.reject(new Error("no")),
    output: () => ({ output: "", truncated: false }),
    waitForExit: () => Promise.reject(new Error("no")),
    kill: () => undefined,
    release: () => undefined,
    releaseAll: onReleaseAll,
  };
}
