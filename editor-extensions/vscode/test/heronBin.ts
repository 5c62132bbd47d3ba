// The real `heron acp` in the integration tests: where it is, whether the tests that drive it run
// (skipped, with a reason, when the binary is missing on a developer machine, but never on CI,
// where a missing binary is a failure), and how a test starts it.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { AgentCommand } from "../src/agentProcess";

// Tests run from the extension folder (npm scripts do); HERON_BIN overrides.
export const HERON_BIN = process.env.HERON_BIN ?? resolve("../../.venv/bin/heron");

export function heronSkip(bin: string, env: NodeJS.ProcessEnv = process.env): false | string {
  if (existsSync(bin)) return false;
  const reason = `heron not found at ${bin} (set HERON_BIN, or run \`make setup\`)`;
  if (env.CI) throw new Error(`${reason}; CI is set, so the integration tests must not be skipped`);
  return reason;
}

/** `heron acp` in `ws`, with a home of its own and the scripted model `script`; `env` adds to it. */
export function scriptedHeron(ws: string, home: string, script: string, env: NodeJS.ProcessEnv = {}): () => AgentCommand {
  return () => ({
    command: HERON_BIN,
    args: ["acp"],
    cwd: ws,
    env: { ...process.env, HERON_HOME: home, HERON_MODEL: `scripted:${script}`, ...env },
  });
}
