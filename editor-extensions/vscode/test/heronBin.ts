// Whether tests that drive the real `heron acp` run: skipped (with a reason) when the binary is
// missing on a developer machine, but never on CI, where a missing binary is a failure.
import { existsSync } from "node:fs";

export function heronSkip(bin: string, env: NodeJS.ProcessEnv = process.env): false | string {
  if (existsSync(bin)) return false;
  const reason = `heron not found at ${bin} (set HERON_BIN, or run \`make setup\`)`;
  if (env.CI) throw new Error(`${reason}; CI is set, so the integration tests must not be skipped`);
  return reason;
}
