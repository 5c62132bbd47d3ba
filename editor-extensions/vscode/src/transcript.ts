// Folds ACP session updates into a view model of the conversation. Pure: no vscode.
import type { ContentBlock, PlanEntry, ToolCallStatus } from "@agentclientprotocol/sdk";
import { linkedSessions, type IncomingToolContent, type IncomingUpdate, type SubagentUpdate } from "./childSessions";

export type ToolContentView =
  | { type: "text"; text: string }
  | { type: "diff"; path: string; oldText: string | null; newText: string }
  | { type: "terminal"; terminalId: string };

/**
 * A subagent that runs as a child session: what its parent's `subagent_update`s said of it, and
 * the last thing it wrote. Shared by the child's record and the tool call that links to it.
 */
export interface SubagentView {
  sessionId: string;
  title: string | null;
  /** "running", "idle", "requires_action", "unknown"; null: not reported (or cleared). */
  state: string | null;
  /** With "idle": how its work ended. */
  stopReason: string | null;
  error: string | null;
  /** Its `capabilities.cancel` is an object: `session/cancel` with its id stops it. */
  canCancel: boolean;
  /** Its latest message (its report, once it is done). */
  summary: string;
}

/** A tool call. A subagent's calls are `children` of the call that runs it, not items. */
export interface ToolItem {
  kind: "tool";
  id: string;
  toolCallId: string;
  title: string;
  toolKind: string;
  status: ToolCallStatus;
  content: ToolContentView[];
  children: ToolItem[];
  /** The user's choice to show or hide the children; null: the default (see `childrenExpanded`). */
  expanded: boolean | null;
  /** The agent's report of the result (`rawOutput`), when it is text: what a command's card shows
   * once its terminal is unknown here (a loaded session). */
  output: string | null;
  /** The child session this call runs (its `session` content), when the agent sends subagents as such. */
  subagent?: SubagentView | null;
}

/** A message: the user's prompt, or the agent's reply or thinking; `messageId` as the agent knows it. */
export interface MessageItem {
  kind: "user" | "agent" | "thought";
  id: string;
  messageId: string | null;
  text: string;
}

export type Item =
  | MessageItem
  | ToolItem
  | { kind: "plan"; id: string; entries: PlanEntry[] }
  | { kind: "notice"; id: string; severity: string; title: string; description: string };

export interface Usage {
  used: number;
  size: number;
  cost: { amount: number; currency: string } | null;
}

export function contentText(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "resource_link":
      return `[${block.name}](${block.uri})`;
    case "resource":
      return "text" in block.resource
        ? `\n\`\`\`\n${block.resource.text}\n\`\`\`\n(${block.resource.uri})\n`
        : `(${block.resource.uri})`;
    case "image":
      return "(image)";
    case "audio":
      return "(audio)";
  }
}

function toolContent(content: Exclude<IncomingToolContent, { type: "session" }>): ToolContentView {
  switch (content.type) {
    case "content":
      return { type: "text", text: contentText(content.content) };
    case "diff":
      return {
        type: "diff",
        path: content.path,
        oldText: content.oldText ?? null,
        newText: content.newText,
      };
    case "terminal":
      return { type: "terminal", terminalId: content.terminalId };
  }
}

/** What is drawn of a call's content: everything but its links to sessions. */
function toolContents(content: readonly IncomingToolContent[]): ToolContentView[] {
  return content.flatMap((c) => (c.type === "session" ? [] : [toolContent(c)]));
}

/** A child's state in a word or two: running, done, stopped, failed; null when there is nothing to say. */
export function subagentStateLabel(view: SubagentView): string | null {
  switch (view.state) {
    case "running":
      return "running";
    case "requires_action":
      return "waiting";
    case "idle":
      if (view.stopReason === "cancelled") return "stopped";
      if (view.stopReason === "error" || view.error !== null) return "failed";
      if (view.stopReason === null || view.stopReason === "end_turn") return "done";
      return `ended (${view.stopReason.replace(/_/g, " ")})`;
    default:
      return null;
  }
}

/** The stop button is offered: the child is running and the agent lets it be cancelled. */
export function canStopSubagent(view: SubagentView): boolean {
  return view.state === "running" && view.canCancel;
}

/**
 * Whether a tool call's children are shown: the user's choice, else until the call completes (a
 * failed one keeps them in view: they are where to look for what went wrong).
 */
export function childrenExpanded(item: ToolItem): boolean {
  return item.expanded ?? item.status !== "completed";
}

/**
 * The tool call a call belongs to, from Heron's `_meta`: `{"heron": {"parentToolCallId": id}}` on
 * a subagent's calls. Other keys in the namespace (`checkpoint`) and other shapes are ignored.
 */
export function parentToolCallId(meta: unknown): string | null {
  if (typeof meta !== "object" || meta === null) return null;
  const heron: unknown = (meta as Record<string, unknown>).heron;
  if (typeof heron !== "object" || heron === null) return null;
  const parent: unknown = (heron as Record<string, unknown>).parentToolCallId;
  return typeof parent === "string" && parent !== "" ? parent : null;
}

/** Heron's `rawOutput` is `{"output": text}`; a plain string is taken as it is; anything else is not text. */
export function outputText(raw: unknown): string | null {
  if (typeof raw === "string") return raw;
  if (typeof raw !== "object" || raw === null) return null;
  const output: unknown = (raw as Record<string, unknown>).output;
  return typeof output === "string" ? output : null;
}

/** The terminals shown by these tool calls and their nested ones, with the title of the call. */
export function terminalCalls(items: readonly Item[]): { terminalId: string; title: string }[] {
  const found: { terminalId: string; title: string }[] = [];
  for (const item of items) {
    if (item.kind !== "tool") continue;
    for (const content of item.content) {
      if (content.type === "terminal") found.push({ terminalId: content.terminalId, title: item.title });
    }
    found.push(...terminalCalls(item.children));
  }
  return found;
}

const CHUNK_KINDS = {
  user_message_chunk: "user",
  agent_message_chunk: "agent",
  agent_thought_chunk: "thought",
} as const;

/** Where a session's tool calls go: its own ids (a child's model numbers its calls afresh), and
 * where a call that names no parent is placed. */
interface Scope {
  tools: Map<string, ToolItem>;
  place(item: ToolItem): void;
}

/** A child session of one shown here: what is known of it, the call that links to it (once one
 * does), and its calls until then. */
interface Child {
  view: SubagentView;
  scope: Scope;
  host: ToolItem | null;
  waiting: ToolItem[];
  /** The message its summary is (chunks of another start a new summary). */
  summaryId: string | null;
}

export class Transcript {
  readonly items: Item[] = [];
  usage: Usage | null = null;
  currentModeId: string | null = null;
  private nextId = 0;
  /** Tool calls by id, nested ones included; for an id used twice, the first call. */
  private readonly tools = new Map<string, ToolItem>();
  /** A nested call's parent: how a change finds the item to show again. */
  private readonly parents = new Map<ToolItem, ToolItem>();
  /** The parent each call named when it arrived (null: none), shown under it or not. */
  private readonly namedParents = new Map<ToolItem, string | null>();
  private plan: (Item & { kind: "plan" }) | null = null;
  private readonly root: Scope = { tools: this.tools, place: (item) => this.items.push(item) };
  /** Child sessions (subagents) announced or linked in the session shown, and theirs, by id. */
  private readonly children = new Map<string, Child>();

  clear(): void {
    this.items.length = 0;
    this.tools.clear();
    this.parents.clear();
    this.namedParents.clear();
    this.children.clear();
    this.plan = null;
    this.usage = null;
  }

  /** The agent is gone: tool calls that had not finished never will. Returns the changed items. */
  failUnfinishedTools(): Item[] {
    const changed = new Set<Item>();
    for (const item of this.allTools(this.items)) {
      if (item.status === "pending" || item.status === "in_progress") {
        item.status = "failed";
        changed.add(this.topLevel(item));
      }
    }
    // Nor will its subagents: they cannot be stopped any more.
    for (const { view, host } of this.children.values()) {
      view.canCancel = false;
      if (view.state === "running" || view.state === "requires_action") {
        Object.assign(view, { state: "idle", stopReason: "error", error: "the agent exited" });
        for (const item of host ? this.shown(host) : []) changed.add(item);
      }
    }
    return [...changed];
  }

  /** Shows or hides the children of the tool call whose item id is `id`; returns the item to show again. */
  setExpanded(id: string, expanded: boolean): Item | null {
    for (const item of this.allTools(this.items)) {
      if (item.id === id) {
        item.expanded = expanded;
        return this.topLevel(item);
      }
    }
    return null;
  }

  /** The top-level items that show one of these terminals (in a tool call or a nested one). */
  itemsShowingTerminals(terminalIds: ReadonlySet<string>): Item[] {
    return this.items.filter(
      (item) => item.kind === "tool" && terminalCalls([item]).some(({ terminalId }) => terminalIds.has(terminalId)),
    );
  }

  /** A prompt the user typed here (the agent does not echo it back); `messageId`: its id, when it has one yet. */
  addUserPrompt(text: string, messageId: string | null = null): MessageItem {
    const item: MessageItem = { kind: "user", id: this.newId(), messageId, text };
    this.items.push(item);
    this.plan = null; // a new turn starts a new plan
    return item;
  }

  /** Where the user's prompt with this id is in the conversation; -1: not there. */
  promptIndex(messageId: string): number {
    return this.items.findIndex((i) => i.kind === "user" && i.messageId === messageId);
  }

  /**
   * Takes the items from `index` on out of the conversation (a rewind) and returns them. Their
   * tool calls are still known until `forget` (a rewind that fails puts them back with `putBack`).
   */
  cutFrom(index: number): Item[] {
    const cut = this.items.splice(index);
    if (this.plan && cut.includes(this.plan)) this.plan = null;
    return cut;
  }

  /** Puts items taken out by `cutFrom` back at `index`. */
  putBack(index: number, items: readonly Item[]): void {
    this.items.splice(index, 0, ...items);
  }

  /** Takes one item out of the conversation (a prompt whose edit failed). */
  remove(item: Item): void {
    const index = this.items.indexOf(item);
    if (index >= 0) this.items.splice(index, 1);
    if (item === this.plan) this.plan = null;
  }

  /** These items leave the conversation for good, wherever they are in it. */
  cutOut(items: readonly Item[]): void {
    const gone = new Set(items);
    const kept = this.items.filter((i) => !gone.has(i));
    this.items.length = 0;
    this.items.push(...kept);
    if (this.plan && gone.has(this.plan)) this.plan = null;
    this.forget(items);
  }

  /** Items taken out for good: their tool calls (nested ones too) and the subagents they ran are forgotten. */
  forget(items: readonly Item[]): void {
    const gone = new Set(this.allTools(items));
    for (const item of gone) {
      if (this.tools.get(item.toolCallId) === item) this.tools.delete(item.toolCallId);
      this.parents.delete(item);
      this.namedParents.delete(item);
    }
    for (const [sessionId, child] of this.children) {
      if (child.host !== null && gone.has(child.host)) this.children.delete(sessionId);
    }
  }

  /** A child session of the one shown (or of one of its children), announced or linked to. */
  subagent(sessionId: string): SubagentView | null {
    return this.children.get(sessionId)?.view ?? null;
  }

  /**
   * Applies one update of the session shown; returns the items that changed (to re-render), if
   * any. A change to a nested tool call returns the top-level item it is shown in.
   */
  apply(update: IncomingUpdate): Item[] {
    switch (update.sessionUpdate) {
      case "user_message_chunk":
      case "agent_message_chunk":
      case "agent_thought_chunk":
        return [this.chunk(CHUNK_KINDS[update.sessionUpdate], update.messageId ?? null, update.content)];
      case "tool_call":
      case "tool_call_update":
        return [this.topLevel(this.toolUpdate(this.root, update))];
      case "subagent_update":
        return this.announce(update);
      case "plan": {
        if (!this.plan) {
          this.plan = { kind: "plan", id: this.newId(), entries: [] };
          this.items.push(this.plan);
        }
        this.plan.entries = update.entries;
        return [this.plan];
      }
      case "usage_update":
        this.usage = { used: update.used, size: update.size, cost: update.cost ?? null };
        return [];
      case "current_mode_update":
        this.currentModeId = update.currentModeId;
        return [];
      case "notice":
        return [this.notice(update.severity, update.title, update.description ?? "")];
      default:
        return [];
    }
  }

  /**
   * Applies one update of a child session (`sessionId`, a subagent announced or linked here):
   * its tool calls go under the call that runs it, its own children are announced, its latest
   * message is its summary; its plan, thoughts and the task it was given are its own and not
   * shown. Nothing for a session not known here.
   */
  applyChild(sessionId: string, update: IncomingUpdate): Item[] {
    const child = this.children.get(sessionId);
    if (!child) return [];
    switch (update.sessionUpdate) {
      case "tool_call":
      case "tool_call_update":
        return this.shown(this.toolUpdate(child.scope, update));
      case "subagent_update":
        return this.announce(update);
      case "agent_message_chunk": {
        const messageId = update.messageId ?? null;
        if (messageId !== child.summaryId) child.view.summary = ""; // another message
        child.summaryId = messageId;
        child.view.summary += contentText(update.content);
        return child.host ? this.shown(child.host) : [];
      }
      case "notice":
        return [this.notice(update.severity, `Subagent: ${update.title}`, update.description ?? "")];
      default:
        return [];
    }
  }

  private notice(severity: string, title: string, description: string): Item {
    const item: Item = { kind: "notice", id: this.newId(), severity, title, description };
    this.items.push(item);
    return item;
  }

  private toolUpdate(scope: Scope, update: IncomingUpdate & { sessionUpdate: "tool_call" | "tool_call_update" }): ToolItem {
    const item = this.tool(scope, update.toolCallId, update._meta, update.title ?? update.toolCallId);
    if (update.sessionUpdate === "tool_call" || update.title) item.title = update.title ?? item.title;
    if (update.kind) item.toolKind = update.kind;
    if (update.status) item.status = update.status;
    if (update.content) {
      item.content = toolContents(update.content);
      for (const sessionId of linkedSessions(update.content)) this.link(sessionId, item);
    }
    if (update.rawOutput !== undefined) item.output = outputText(update.rawOutput);
    return item;
  }

  /** A `subagent_update`: the child is known from now on; what it says of it replaces what was said. */
  private announce(update: SubagentUpdate): Item[] {
    const child = this.child(update.sessionId);
    const view = child.view;
    if (update.title !== undefined) view.title = update.title;
    if (update.capabilities !== undefined) view.canCancel = typeof update.capabilities?.cancel === "object" && update.capabilities.cancel !== null;
    if (update.state !== undefined) {
      view.state = update.state?.state ?? null;
      view.stopReason = update.state?.stopReason ?? null;
      view.error = update.state?.error?.message ?? null;
    }
    return child.host ? this.shown(child.host) : [];
  }

  /** A call's `session` content: the child it runs is drawn in its card (the first call that links to it keeps it). */
  private link(sessionId: string, item: ToolItem): void {
    const child = this.child(sessionId);
    if (child.host !== null) return;
    child.host = item;
    item.subagent = child.view;
    for (const call of child.waiting) {
      item.children.push(call);
      this.parents.set(call, item);
    }
    child.waiting = [];
  }

  private child(sessionId: string): Child {
    const known = this.children.get(sessionId);
    if (known) return known;
    const child: Child = {
      view: { sessionId, title: null, state: null, stopReason: null, error: null, canCancel: false, summary: "" },
      scope: {
        tools: new Map(),
        place: (item) => {
          if (!child.host) {
            child.waiting.push(item);
            return;
          }
          child.host.children.push(item);
          this.parents.set(item, child.host);
        },
      },
      host: null,
      waiting: [],
      summaryId: null,
    };
    this.children.set(sessionId, child);
    return child;
  }

  private chunk(kind: "user" | "agent" | "thought", messageId: string | null, content: ContentBlock): Item {
    const text = contentText(content);
    const last = this.items[this.items.length - 1];
    let target: Item | undefined;
    if (messageId !== null) {
      // Chunks with the same id belong to one message, wherever it is.
      target = this.items.find((i) => i.kind === kind && "messageId" in i && i.messageId === messageId);
    } else if (last?.kind === kind && last.messageId === null) {
      target = last;
    }
    if (target && (target.kind === "user" || target.kind === "agent" || target.kind === "thought")) {
      target.text += text;
      return target;
    }
    const item: Item = { kind, id: this.newId(), messageId, text };
    if (kind === "user") this.plan = null;
    this.items.push(item);
    return item;
  }

  /**
   * The tool call with this id in `scope` (a session's calls); a new one goes under the call its
   * `_meta` names when that call is known, and otherwise at the scope's top level (a call that
   * arrives before its parent is not lost). Where a call is shown is settled when it first
   * arrives: later updates only find it, by id and, when they name one, by parent. A subagent's
   * calls get their ids from its own model, so one may repeat an id seen elsewhere (even its
   * parent's): under a parent it did not name before, the same id is another call.
   */
  private tool(scope: Scope, toolCallId: string, meta: unknown, title: string): ToolItem {
    const parentId = parentToolCallId(meta);
    const parent = parentId === null ? undefined : scope.tools.get(parentId);
    const known = parent?.children.find((c) => c.toolCallId === toolCallId) ?? scope.tools.get(toolCallId);
    if (known && (parent === undefined || this.namedParents.get(known) === parentId)) return known;
    const item: ToolItem = {
      kind: "tool",
      id: this.newId(),
      toolCallId,
      title,
      toolKind: "other",
      status: "pending",
      content: [],
      children: [],
      expanded: null,
      output: null,
    };
    if (!scope.tools.has(toolCallId)) scope.tools.set(toolCallId, item);
    this.namedParents.set(item, parentId);
    if (parent) {
      parent.children.push(item);
      this.parents.set(item, parent);
    } else {
      scope.place(item);
    }
    return item;
  }

  /** The top-level item a tool call is shown in (itself, unless it is nested). */
  private topLevel(item: ToolItem): ToolItem {
    let top = item;
    for (let up = this.parents.get(top); up; up = this.parents.get(top)) top = up;
    return top;
  }

  /** The item to draw again after a change to this call: its top-level card, if that is shown
   * (a child's call waits unshown until a call links to the child). */
  private shown(item: ToolItem): Item[] {
    const top = this.topLevel(item);
    return this.items.includes(top) ? [top] : [];
  }

  /** Every tool call among these items, nested ones included. */
  private *allTools(items: readonly Item[]): Generator<ToolItem> {
    for (const item of items) {
      if (item.kind !== "tool") continue;
      yield item;
      yield* this.allTools(item.children);
    }
  }

  private newId(): string {
    this.nextId += 1;
    return `i${this.nextId}`;
  }
}
