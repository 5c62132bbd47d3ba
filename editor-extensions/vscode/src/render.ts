// Turns transcript items into safe HTML fragments for the chat webview, and names them for
// screen readers. Pure: no vscode.
import { escapeHtml, renderMarkdown } from "./markdown";
import { renderPromptActions } from "./promptActions";
import { NO_REWIND, type RewindSupport } from "./rewind";
import { childrenSummary, renderToolCard, statusLabel, type CardContext } from "./toolCard";
import { subagentStateLabel, type Item } from "./transcript";

export { alignLines, renderDiff } from "./diff";
export { childrenSummary, type CardContext, type PathDisplay } from "./toolCard";

const PLAN_STATUS: Record<string, string> = { pending: "to do", in_progress: "in progress", completed: "done" };

/** What drawing an item needs from the editor: a card's context, and what the agent can do with a prompt. */
export interface RenderContext extends CardContext {
  rewind: RewindSupport;
}

const noContext: RenderContext = { displayPath: (path) => path, command: () => undefined, rewind: NO_REWIND };

export function renderItem(item: Item, context: Partial<RenderContext> = {}): string {
  switch (item.kind) {
    case "user":
      return `<div class="msg user">${renderMarkdown(item.text)}</div>${renderPromptActions(item, context.rewind ?? NO_REWIND)}`;
    case "agent":
      return `<div class="msg agent">${renderMarkdown(item.text)}</div>`;
    case "thought":
      return `<details class="thought"><summary>Thinking</summary>${renderMarkdown(item.text)}</details>`;
    case "tool":
      return renderToolCard(item, { ...noContext, ...context });
    case "plan":
      // The status is also said in words (hidden), not only by the strike-through or bold.
      return `<div class="plan"><div class="plan-head">Plan</div><ul>${item.entries
        .map(
          (e) =>
            `<li class="plan-${escapeHtml(e.status)}"><span class="sr-only">${escapeHtml(
              PLAN_STATUS[e.status] ?? e.status,
            )}: </span>${escapeHtml(e.content)}</li>`,
        )
        .join("")}</ul></div>`;
    case "notice":
      return `<div class="notice notice-${escapeHtml(item.severity)}"><strong>${escapeHtml(
        item.title,
      )}</strong> ${renderMarkdown(item.description)}</div>`;
  }
}

/** At most `max` characters of `text` on one line, for a name read out by a screen reader. */
function gist(text: string, max = 120): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** The item's accessible name: who speaks and the start of what they say, or what a card is and its state. */
export function itemLabel(item: Item): string {
  switch (item.kind) {
    case "user":
      return `You: ${gist(item.text)}`;
    case "agent":
      return `Heron: ${gist(item.text)}`;
    case "thought":
      return "Heron's thinking";
    case "tool": {
      const label = `Tool call ${gist(item.title, 80)}, ${statusLabel(item.status)}`;
      const parts = item.children.length > 0 ? [childrenSummary(item.children)] : [];
      const state = item.subagent ? subagentStateLabel(item.subagent) : null;
      if (state !== null) parts.push(state);
      return parts.length > 0 ? `${label}, subagent: ${parts.join(", ")}` : label;
    }
    case "plan": {
      const done = item.entries.filter((e) => e.status === "completed").length;
      return `Plan, ${done} of ${item.entries.length} done`;
    }
    case "notice":
      return `Notice: ${gist(item.title, 80)}`;
  }
}
