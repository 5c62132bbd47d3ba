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

/** A rewind done: back to before which prompt, and what became of the files (Heron's sentence). */
export function rewoundNotice(promptText: string, files: string | null): SessionUpdate {
  const line = promptText.replace(/\s+/g, " ").trim();
  const gist = line.length <= 80 ? line : `${line.slice(0, 79)}…`;
  return {
    sessionUpdate: "notice",
    severity: "info",
    title: "Rewound.",
    description: `Back to before “${gist}”; the prompt is in the input box.${files === null ? "" : ` ${files}`}`,
  };
}

/** "Rewind to here" or "Edit and resend" did not happen (or not all of it): the agent's words, as they are. */
export function actionFailedNotice(title: string, message: string): SessionUpdate {
  return { sessionUpdate: "notice", severity: "error", title, description: message };
}
