// A tool call's card in the chat: its status, title, output, diffs, the command it runs, and a
// subagent's own calls. Pure: no vscode.
import { renderDiffBlock } from "./diff";
import { HtmlBudget, OUTPUT_LIMITS, renderLongLines, TERMINAL_LIMITS, textLines } from "./longText";
import { escapeHtml } from "./markdown";
import type { CommandView } from "./terminals";
import {
  canStopSubagent,
  childrenExpanded,
  subagentStateLabel,
  type SubagentView,
  type ToolContentView,
  type ToolItem,
} from "./transcript";

export const STATUS_LABELS: Record<string, string> = {
  pending: "pending",
  in_progress: "running",
  completed: "done",
  failed: "failed",
};

/** How a file path reads in the chat (the extension makes it workspace-relative). */
export type PathDisplay = (path: string) => string;

/** What a card needs from the editor besides the item. */
export interface CardContext {
  displayPath: PathDisplay;
  /** A command the agent runs here, by terminal id; undefined when this window does not know it. */
  command: (terminalId: string) => CommandView | undefined;
}

export function statusLabel(status: string): string {
  return STATUS_LABELS[status] ?? status;
}

/** How a command ended, in words. */
export function exitText(view: CommandView): string {
  const status = view.exitStatus;
  if (!status) return "Running…";
  if (status.signal) return `Killed by ${status.signal}`;
  return `Exit code ${status.exitCode ?? "unknown"}`;
}

/**
 * A command run in a VS Code terminal: its output (live while it runs, then final) and how it
 * ended. Once this window no longer knows the command (a loaded session), the agent's own report
 * of it (`rawOutput`) is shown instead, when there is one.
 */
function renderCommand(item: ToolItem, terminalId: string, key: string, context: CardContext, budget: HtmlBudget): string {
  const view = context.command(terminalId);
  if (!view) {
    if (item.output !== null) return renderLongLines(textLines(item.output), "tool-output", key, OUTPUT_LIMITS, budget);
    return `<div class="tool-text">The command's output is not available in this window.</div>`;
  }
  const output = view.output.replace(/\r\n?/g, "\n");
  // Drawn again as it prints (terminalCards.ts): the hidden middle only once it has ended.
  const final = { middle: view.exitStatus !== null };
  const shown = output === "" ? "" : renderLongLines(textLines(output), "terminal-output", key, TERMINAL_LIMITS, budget, final);
  const notes = [exitText(view)];
  if (view.truncated) notes.push("the start of the output was not kept");
  if (output === "" && view.exitStatus) notes.push("no output");
  const open = view.terminalOpen
    ? ` <button type="button" class="show-terminal" data-terminal="${escapeHtml(terminalId)}" aria-label="${escapeHtml(
        `Open the terminal of ${item.title}`,
      )}">Open terminal</button>`
    : "";
  return `<div class="command">${shown}<div class="command-status">${escapeHtml(notes.join(" · "))}${open}</div></div>`;
}

function renderContent(item: ToolItem, content: ToolContentView, key: string, context: CardContext, budget: HtmlBudget): string {
  switch (content.type) {
    case "text": // a tool's output (file contents, command output): shown as it is, not as markdown
      return renderLongLines(textLines(content.text), "tool-output", key, OUTPUT_LIMITS, budget);
    case "diff":
      return `<div class="diff"><div class="diff-path">${escapeHtml(context.displayPath(content.path))}</div>${renderDiffBlock(
        content.oldText,
        content.newText,
        key,
        budget,
      )}</div>`;
    case "terminal":
      return renderCommand(item, content.terminalId, key, context, budget);
  }
}

/** A tool call's card; `budget` is shared with the cards nested in it. */
export function renderToolCard(item: ToolItem, context: CardContext, budget: HtmlBudget = new HtmlBudget()): string {
  const status = escapeHtml(item.status);
  const content = item.content.map((c, index) => renderContent(item, c, `${item.id}-${index}`, context, budget)).join("");
  return (
    `<div class="tool status-${status}" data-tool-call-id="${escapeHtml(item.toolCallId)}" data-status="${status}"><div class="tool-head">` +
    `<span class="badge">${escapeHtml(statusLabel(item.status))}</span> <span class="tool-title">${escapeHtml(item.title)}</span>` +
    `</div>${content}${renderChildren(item, context, budget)}</div>`
  );
}

/** "3 tool calls · 1 running · 1 failed": what a subagent did, readable while its list is hidden. */
export function childrenSummary(children: readonly ToolItem[]): string {
  const parts = [`${children.length} tool call${children.length === 1 ? "" : "s"}`];
  for (const status of ["pending", "in_progress", "failed"] as const) {
    const count = children.filter((c) => c.status === status).length;
    if (count > 0) parts.push(`${count} ${statusLabel(status)}`);
  }
  return parts.join(" · ");
}

/** One line of a subagent's latest message, for its card. */
export function summaryLine(text: string, max = 160): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/**
 * What a child session's card says of it besides its calls: its state in a word (running, done,
 * stopped, failed), a Stop button while it runs and may be cancelled, and its latest message
 * (unless the call's own text already has it).
 */
function renderSubagentState(item: ToolItem, view: SubagentView): string {
  const label = subagentStateLabel(view);
  const state = label === null ? "" : `<span class="subagent-state" data-state="${escapeHtml(label)}">${escapeHtml(label)}</span>`;
  const stop = canStopSubagent(view)
    ? ` <button type="button" class="stop-subagent" data-session="${escapeHtml(view.sessionId)}" aria-label="${escapeHtml(
        `Stop the subagent: ${item.title}`,
      )}">Stop</button>`
    : "";
  const error = view.error === null ? "" : `<div class="subagent-error">${escapeHtml(view.error)}</div>`;
  // Not when the call's own text already says it (Heron's account ends with the report).
  const said = view.summary.trim();
  const repeated = said === "" || item.content.some((c) => c.type === "text" && c.text.includes(said));
  const summary = repeated ? "" : `<div class="subagent-summary">${escapeHtml(summaryLine(said))}</div>`;
  return state + stop + error + summary;
}

/**
 * A subagent's tool calls inside the card of the call that runs it: a button that shows or hides
 * them (the webview flips it at once and tells the extension, which keeps the choice), then the
 * list of their cards. Shown while the call runs, hidden once it has completed, unless the user
 * chose. A subagent that is a child session also says its state, and can be stopped while it runs.
 */
function renderChildren(item: ToolItem, context: CardContext, budget: HtmlBudget): string {
  const view = item.subagent ?? null;
  if (item.children.length === 0 && view === null) return "";
  const state = view === null ? "" : renderSubagentState(item, view);
  if (item.children.length === 0) return `<div class="subagent">${state}</div>`;
  const expanded = childrenExpanded(item);
  const id = escapeHtml(item.id);
  return (
    `<div class="subagent">` +
    `<button type="button" class="children-toggle" data-tool="${id}" aria-expanded="${String(expanded)}" aria-controls="children-${id}">` +
    `<span class="chevron" aria-hidden="true"></span>Subagent · ${escapeHtml(childrenSummary(item.children))}</button>` +
    (state === "" ? "" : ` ${state}`) +
    `<ul class="tool-children" id="children-${id}" aria-label="${escapeHtml(`Subagent tool calls: ${item.title}`)}"${expanded ? "" : " hidden"}>` +
    item.children.map((child) => `<li>${renderToolCard(child, context, budget)}</li>`).join("") +
    `</ul></div>`
  );
}
