// The actions under each of the user's prompts in the chat, when the agent can rewind: "Rewind to
// here" and "Edit and resend". Pure: no vscode. media/chat.js shows them on hover and focus,
// disables them while a turn runs, and turns a prompt into an editor for "Edit and resend".
import { escapeHtml } from "./markdown";
import type { RewindSupport } from "./rewind";
import type { MessageItem } from "./transcript";

export const REWIND_LABEL = "Rewind to here";
export const EDIT_LABEL = "Edit and resend";

const REWIND_TITLE = "Remove this prompt and everything after it, restore the files as they were before it, and put the prompt back in the input box";
const EDIT_TITLE = "Edit this prompt and send it again: what follows it is removed and its files restored";

/**
 * The actions of a user's prompt: none without an id (the agent has not named it yet) or when the
 * agent cannot rewind. The prompt's text rides along (`data-text`) for the editor and the input box.
 */
export function renderPromptActions(item: MessageItem, support: RewindSupport): string {
  if (item.kind !== "user" || item.messageId === null || !support.rewind) return "";
  const button = (action: string, label: string, title: string): string =>
    `<button type="button" class="prompt-action" data-action="${action}" title="${escapeHtml(title)}">${label}</button>`;
  const buttons = [button("rewind", REWIND_LABEL, REWIND_TITLE)];
  if (support.editPrompt) buttons.push(button("edit", EDIT_LABEL, EDIT_TITLE));
  return `<div class="prompt-actions" data-message="${escapeHtml(item.messageId)}" data-text="${escapeHtml(item.text)}">${buttons.join("")}</div>`;
}
