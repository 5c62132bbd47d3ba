// A stand-in for the webview view VS Code gives the chat: it records what the extension posts and
// lets a test send what the page would. `openChatView` resolves it the way VS Code does.
import type { HeaderView } from "../src/header";
import type { UsageView } from "../src/usage";
import { stub, Uri } from "./vscodeStub";

/** A message to the page; which fields it has depends on `type`. */
export interface Posted {
  type: string;
  items?: { id: string; html: string }[];
  usage?: UsageView | null;
  busy?: boolean;
  [field: string]: unknown;
}

export class StubChatView {
  readonly posted: Posted[] = [];
  receive: (message: unknown) => void = () => undefined;
  readonly webview = {
    options: {},
    html: "",
    cspSource: "vscode-webview:",
    asWebviewUri: (uri: Uri) => uri,
    postMessage: (message: Posted) => {
      this.posted.push(message);
      return Promise.resolve(true);
    },
    onDidReceiveMessage: (handler: (message: unknown) => void) => {
      this.receive = handler;
      return { dispose: () => undefined };
    },
  };
  show(): void {
    return undefined;
  }
  onDidDispose(): { dispose(): void } {
    return { dispose: () => undefined };
  }
  /** The last HTML posted for each item id, in first-posted order (a reset clears them). */
  renderedItems(): string[] {
    const byId = new Map<string, string>();
    for (const message of this.posted) {
      if (message.type === "reset") byId.clear();
      for (const item of message.items ?? []) byId.set(item.id, item.html);
    }
    return [...byId.values()];
  }
  /** The header last posted. */
  header(): HeaderView | undefined {
    return this.posted.filter((m) => m.type === "header").at(-1) as HeaderView | undefined;
  }
  /** Every item's HTML ever posted, joined. */
  html(): string {
    return this.posted.flatMap((m) => (m.items ?? []).map((i) => i.html)).join("\n");
  }
}

/** Resolves the chat view (registered by activate()) into a new stub; `ready`: the page says so. */
export function openChatView({ ready = true } = {}): StubChatView {
  const provider = stub.webviewProviders.get("heron.chat") as { resolveWebviewView(view: StubChatView): void };
  const view = new StubChatView();
  provider.resolveWebviewView(view);
  if (ready) view.receive({ type: "ready" });
  return view;
}
