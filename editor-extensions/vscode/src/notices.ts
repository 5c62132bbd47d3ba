// What the chat itself says about a turn or the agent (beside the agent's own notices). Pure.
import type { SessionUpdate } from "@agentclientprotocol/sdk";

/** A turn the user stopped. */
export const STOPPED_NOTICE: SessionUpdate = { sessionUpdate: "notice", severity: "info", title: "Stopped." };

/** The agent process has gone: how, and what to do about it. */
export function agentExitedNotice(code: number | null, signal: string | null): SessionUpdate {
  const how = signal ? `killed by ${signal}` : `exit code ${code ?? "?"}`;
  return {
    sessionUpdate: "notice",
    severity: "error",
    title: "Heron stopped.",
    description: `The agent process exited (${how}); **Heron: Show Log** says why. Your next prompt starts it again in a new session; this one stays in the session picker.`,
  };
}
