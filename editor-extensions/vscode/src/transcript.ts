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

export type Item =
  | { kind: "user" | "agent" | "thought"; id: string; messageId: string | null; text: string }
  | {
      kind: "tool";
      id: string;
      toolCallId: string;
      title: string;
      toolKind: string;
      status: ToolCallStatus;
      content: ToolContentView[];
    }
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
  private readonly tools = new Map<string, Item & { kind: "tool" }>();
  private plan: (Item & { kind: "plan" }) | null = null;

  clear(): void {
    this.items.length = 0;
    this.tools.clear();
    this.plan = null;
    this.usage = null;
  }

  /** The agent is gone: tool calls that had not finished never will. Returns the changed items. */
  failUnfinishedTools(): Item[] {
    const changed: Item[] = [];
    for (const item of this.tools.values()) {
      if (item.status === "pending" || item.status === "in_progress") {
        item.status = "failed";
        changed.push(item);
      }
    }
    return changed;
  }

  /** A prompt the user typed here (the agent does not echo it back). */
  addUserPrompt(text: string): Item {
    const item: Item = { kind: "user", id: this.newId(), messageId: null, text };
    this.items.push(item);
    this.plan = null; // a new turn starts a new plan
    return item;
  }

  /** Applies one update; returns the items that changed (to re-render), if any. */
  apply(update: SessionUpdate): Item[] {
    switch (update.sessionUpdate) {
      case "user_message_chunk":
      case "agent_message_chunk":
      case "agent_thought_chunk":
        return [this.chunk(CHUNK_KINDS[update.sessionUpdate], update.messageId ?? null, update.content)];
      case "tool_call": {
        const existing = this.tools.get(update.toolCallId);
        const item: Item & { kind: "tool" } = existing ?? {
          kind: "tool",
          id: this.newId(),
          toolCallId: update.toolCallId,
          title: "",
          toolKind: "other",
          status: "pending",
          content: [],
        };
        item.title = update.title;
        item.toolKind = update.kind ?? item.toolKind;
        item.status = update.status ?? item.status;
        if (update.content) item.content = update.content.map(toolContent);
        if (!existing) {
          this.tools.set(update.toolCallId, item);
          this.items.push(item);
        }
        return [item];
      }
      case "tool_call_update": {
        let item = this.tools.get(update.toolCallId);
        if (!item) {
          item = {
            kind: "tool",
            id: this.newId(),
            toolCallId: update.toolCallId,
            title: update.title ?? update.toolCallId,
            toolKind: "other",
            status: "pending",
            content: [],
          };
          this.tools.set(update.toolCallId, item);
          this.items.push(item);
        }
        if (update.title) item.title = update.title;
        if (update.kind) item.toolKind = update.kind;
        if (update.status) item.status = update.status;
        if (update.content) item.content = update.content.map(toolContent);
        return [item];
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

  private newId(): string {
    this.nextId += 1;
    return `i${this.nextId}`;
  }
}
