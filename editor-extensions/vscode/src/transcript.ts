// Folds ACP session updates into a view model of the conversation. Pure: no vscode.
import type {
  ContentBlock,
  PlanEntry,
  SessionUpdate,
  ToolCallContent,
  ToolCallStatus,
} from "@agentclientprotocol/sdk";

export type ToolContentView =
  | { type: "text"; text: string }
  | { type: "diff"; path: string; oldText: string | null; newText: string }
  | { type: "terminal"; terminalId: string };

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
}

export type Item =
  | { kind: "user" | "agent" | "thought"; id: string; messageId: string | null; text: string }
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

function toolContent(content: ToolCallContent): ToolContentView {
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

  clear(): void {
    this.items.length = 0;
    this.tools.clear();
    this.parents.clear();
    this.namedParents.clear();
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

  /** A prompt the user typed here (the agent does not echo it back). */
  addUserPrompt(text: string): Item {
    const item: Item = { kind: "user", id: this.newId(), messageId: null, text };
    this.items.push(item);
    this.plan = null; // a new turn starts a new plan
    return item;
  }

  /**
   * Applies one update; returns the items that changed (to re-render), if any. A change to a
   * nested tool call returns the top-level item it is shown in.
   */
  apply(update: SessionUpdate): Item[] {
    switch (update.sessionUpdate) {
      case "user_message_chunk":
      case "agent_message_chunk":
      case "agent_thought_chunk":
        return [this.chunk(CHUNK_KINDS[update.sessionUpdate], update.messageId ?? null, update.content)];
      case "tool_call": {
        const item = this.tool(update.toolCallId, update._meta, update.title);
        item.title = update.title;
        item.toolKind = update.kind ?? item.toolKind;
        item.status = update.status ?? item.status;
        if (update.content) item.content = update.content.map(toolContent);
        if (update.rawOutput !== undefined) item.output = outputText(update.rawOutput);
        return [this.topLevel(item)];
      }
      case "tool_call_update": {
        const item = this.tool(update.toolCallId, update._meta, update.title ?? update.toolCallId);
        if (update.title) item.title = update.title;
        if (update.kind) item.toolKind = update.kind;
        if (update.status) item.status = update.status;
        if (update.content) item.content = update.content.map(toolContent);
        if (update.rawOutput !== undefined) item.output = outputText(update.rawOutput);
        return [this.topLevel(item)];
      }
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
      case "notice": {
        const item: Item = {
          kind: "notice",
          id: this.newId(),
          severity: update.severity,
          title: update.title,
          description: update.description ?? "",
        };
        this.items.push(item);
        return [item];
      }
      default:
        return [];
    }
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
   * The tool call with this id; a new one goes under the call its `_meta` names when that call is
   * known, and otherwise at the top level (a call that arrives before its parent is not lost).
   * Where a call is shown is settled when it first arrives: later updates only find it, by id
   * and, when they name one, by parent. A subagent's calls get their ids from its own model, so
   * one may repeat an id seen elsewhere (even its parent's): under a parent it did not name
   * before, the same id is another call.
   */
  private tool(toolCallId: string, meta: unknown, title: string): ToolItem {
    const parentId = parentToolCallId(meta);
    const parent = parentId === null ? undefined : this.tools.get(parentId);
    const known = parent?.children.find((c) => c.toolCallId === toolCallId) ?? this.tools.get(toolCallId);
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
    if (!this.tools.has(toolCallId)) this.tools.set(toolCallId, item);
    this.namedParents.set(item, parentId);
    if (parent) {
      parent.children.push(item);
      this.parents.set(item, parent);
    } else {
      this.items.push(item);
    }
    return item;
  }

  /** The top-level item a tool call is shown in (itself, unless it is nested). */
  private topLevel(item: ToolItem): ToolItem {
    let top = item;
    for (let up = this.parents.get(top); up; up = this.parents.get(top)) top = up;
    return top;
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
