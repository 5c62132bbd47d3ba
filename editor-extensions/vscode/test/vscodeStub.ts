// A small, honest stand-in for the `vscode` module: in-memory text documents that
// WorkspaceEdits really change, a save that really writes to disk, and recorders for
// the UI calls. Tests steer the UI through `stub.ui`.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, relative } from "node:path";

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly path: string,
    readonly query: string,
  ) {}
  static file(path: string): Uri {
    return new Uri("file", path, "");
  }
  static from(parts: { scheme: string; path?: string; query?: string }): Uri {
    return new Uri(parts.scheme, parts.path ?? "", parts.query ?? "");
  }
  static joinPath(base: Uri, ...segments: string[]): Uri {
    return new Uri(base.scheme, [base.path, ...segments].join("/"), "");
  }
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    return `${this.scheme}://${this.path}${this.query ? `?${this.query}` : ""}`;
  }
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Range {
  constructor(
    readonly start: Position,
    readonly end: Position,
  ) {}
}

export enum DiagnosticSeverity {
  Error = 0,
  Warning = 1,
  Information = 2,
  Hint = 3,
}

export class Diagnostic {
  source?: string;
  code?: string | number | { value: string | number; target: Uri };
  constructor(
    readonly range: Range,
    readonly message: string,
    readonly severity: DiagnosticSeverity = DiagnosticSeverity.Error,
  ) {}
}

export type EditOp =
  | { kind: "replace"; uri: Uri; range: Range; text: string }
  | { kind: "insert"; uri: Uri; position: Position; text: string }
  | { kind: "createFile"; uri: Uri; options: { overwrite?: boolean; ignoreIfExists?: boolean } };

export class WorkspaceEdit {
  readonly ops: EditOp[] = [];
  replace(uri: Uri, range: Range, text: string): void {
    this.ops.push({ kind: "replace", uri, range, text });
  }
  insert(uri: Uri, position: Position, text: string): void {
    this.ops.push({ kind: "insert", uri, position, text });
  }
  createFile(uri: Uri, options: { overwrite?: boolean; ignoreIfExists?: boolean } = {}): void {
    this.ops.push({ kind: "createFile", uri, options });
  }
}

export class TextDocument {
  isDirty = false;
  saves = 0;
  constructor(
    readonly uri: Uri,
    private text: string,
    readonly languageId = "plaintext",
  ) {}
  get fileName(): string {
    return this.uri.fsPath;
  }
  get lineCount(): number {
    return this.text.split("\n").length;
  }
  getText(range?: Range): string {
    if (!range) return this.text;
    return this.text.slice(this.offsetAt(range.start), this.offsetAt(range.end));
  }
  offsetAt(position: Position): number {
    const lines = this.text.split("\n");
    let offset = 0;
    for (let i = 0; i < position.line && i < lines.length; i++) offset += (lines[i] ?? "").length + 1;
    return Math.min(offset + position.character, this.text.length);
  }
  positionAt(offset: number): Position {
    const before = this.text.slice(0, Math.max(0, Math.min(offset, this.text.length))).split("\n");
    return new Position(before.length - 1, (before[before.length - 1] ?? "").length);
  }
  /** Used by the stub's applyEdit. */
  splice(start: number, end: number, text: string): void {
    this.text = this.text.slice(0, start) + text + this.text.slice(end);
    this.isDirty = true;
  }
  save(): Promise<boolean> {
    mkdirSync(dirname(this.uri.fsPath), { recursive: true });
    writeFileSync(this.uri.fsPath, this.text);
    this.isDirty = false;
    this.saves += 1;
    return Promise.resolve(true);
  }
}

export class EventEmitter<T> {
  private listeners: ((value: T) => void)[] = [];
  readonly event = (listener: (value: T) => void): { dispose(): void } => {
    this.listeners.push(listener);
    return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
  };
  fire(value: T): void {
    for (const listener of this.listeners) listener(value);
  }
  dispose(): void {
    this.listeners = [];
  }
}

/** What `vscode.workspace.onDidChangeTextDocument` and `languages.onDidChangeDiagnostics` fire. */
const textChanges = new EventEmitter<{ document: TextDocument; contentChanges: { text: string }[] }>();
const diagnosticChanges = new EventEmitter<{ uris: readonly Uri[] }>();

interface Pty {
  onDidWrite: (listener: (text: string) => void) => unknown;
  open(initialDimensions: unknown): void;
  close(): void;
}

export interface StubTerminal {
  name: string;
  written: string;
  /** How often it was brought to the front (show()). */
  shown: number;
  show(): void;
  /** The user closes it. */
  close(): void;
}

export interface MessageOptions {
  modal?: boolean;
  detail?: string;
}

type ContentProvider = { provideTextDocumentContent(uri: Uri): string };

/** What the tests steer and inspect. */
/** An editor with a selection (lines and characters 0-based, as in VS Code). */
export interface StubEditor {
  document: TextDocument;
  selection: Range & { isEmpty: boolean };
}

export const stub = {
  documents: [] as TextDocument[],
  appliedEdits: [] as WorkspaceEdit[],
  executed: [] as { command: string; args: unknown[] }[],
  tabs: [] as StubTab[],
  messages: [] as { message: string; items: string[]; options: MessageOptions }[],
  quickPicks: [] as string[][],
  inputBoxes: 0,
  /** The items of each quick pick as given (with descriptions). */
  quickPickItems: [] as unknown[][],
  /** Documents shown with window.showTextDocument, with what was revealed in each editor. */
  shownDocuments: [] as ShownDocument[],
  terminals: [] as StubTerminal[],
  providers: new Map<string, ContentProvider>(),
  commands: new Map<string, (...args: unknown[]) => unknown>(),
  webviewProviders: new Map<string, unknown>(),
  statusItems: [] as StubStatusBarItem[],
  outputLines: [] as string[],
  /** Settings, by full key ("heron.path"). */
  config: new Map<string, unknown>(),
  workspaceFolders: undefined as { uri: Uri }[] | undefined,
  ui: {
    /** Picks a button of an information message; undefined = dismissed. A promise keeps it open. */
    answerMessage: (_message: string, _items: string[]): string | undefined | Promise<string | undefined> => undefined,
    answerQuickPick: (_items: string[]): string | undefined => undefined,
    /** What the user types into an input box; undefined = dismissed. */
    answerInput: (): string | undefined => undefined,
  },
  activeEditor: undefined as StubEditor | undefined,
  /** The language services' diagnostics, by URI string; set them with `setDiagnostics`. */
  diagnostics: new Map<string, [Uri, Diagnostic[]]>(),
  /** Like a language extension's DiagnosticCollection.set: stores them, then fires the event. */
  setDiagnostics(uri: Uri, diagnostics: Diagnostic[]): void {
    stub.diagnostics.set(uri.toString(), [uri, diagnostics]);
    diagnosticChanges.fire({ uris: [uri] });
  },
  /** The text a content provider serves for a virtual URI. */
  virtualText(uri: Uri): string | undefined {
    return stub.providers.get(uri.scheme)?.provideTextDocumentContent(uri);
  },
  reset(): void {
    stub.documents.length = 0;
    stub.appliedEdits.length = 0;
    stub.executed.length = 0;
    stub.tabs.length = 0;
    stub.messages.length = 0;
    stub.quickPicks.length = 0;
    stub.inputBoxes = 0;
    stub.quickPickItems.length = 0;
    stub.shownDocuments.length = 0;
    stub.terminals.length = 0;
    stub.commands.clear();
    stub.webviewProviders.clear();
    stub.statusItems.length = 0;
    stub.outputLines.length = 0;
    stub.config.clear();
    stub.workspaceFolders = undefined;
    stub.ui.answerMessage = () => undefined;
    stub.ui.answerQuickPick = () => undefined;
    stub.ui.answerInput = () => undefined;
    stub.activeEditor = undefined;
    stub.diagnostics.clear();
  },
};

function findDocument(uri: Uri): TextDocument | undefined {
  return stub.documents.find((d) => d.uri.toString() === uri.toString());
}

function loadDocument(uri: Uri): TextDocument {
  const existing = findDocument(uri);
  if (existing) return existing;
  if (uri.scheme !== "file") throw new Error(`stub: cannot open ${uri.toString()}`);
  const document = new TextDocument(uri, readFileSync(uri.fsPath, "utf8"));
  stub.documents.push(document);
  return document;
}

const disposable = { dispose: () => undefined };

export const workspace = {
  get textDocuments(): TextDocument[] {
    return stub.documents;
  },
  openTextDocument(uri: Uri): Promise<TextDocument> {
    return Promise.resolve(loadDocument(uri));
  },
  applyEdit(edit: WorkspaceEdit): Promise<boolean> {
    for (const op of edit.ops) {
      if (op.kind === "createFile") {
        if (existsSync(op.uri.fsPath) && !op.options.overwrite && !op.options.ignoreIfExists) return Promise.resolve(false);
        if (!findDocument(op.uri)) stub.documents.push(new TextDocument(op.uri, ""));
      } else if (op.kind === "replace") {
        const document = loadDocument(op.uri);
        document.splice(document.offsetAt(op.range.start), document.offsetAt(op.range.end), op.text);
        textChanges.fire({ document, contentChanges: [{ text: op.text }] });
      } else {
        const document = loadDocument(op.uri);
        const at = document.offsetAt(op.position);
        document.splice(at, at, op.text);
        textChanges.fire({ document, contentChanges: [{ text: op.text }] });
      }
    }
    stub.appliedEdits.push(edit);
    return Promise.resolve(true);
  },
  registerTextDocumentContentProvider(scheme: string, provider: ContentProvider): typeof disposable {
    stub.providers.set(scheme, provider);
    return disposable;
  },
  /** Like VS Code: relative to the (first) workspace folder when inside it, else unchanged. */
  asRelativePath(pathOrUri: string | Uri): string {
    const path = typeof pathOrUri === "string" ? pathOrUri : pathOrUri.fsPath;
    const folder = stub.workspaceFolders?.[0]?.uri.fsPath;
    return folder && path.startsWith(`${folder}/`) ? relative(folder, path) : path;
  },
  get workspaceFolders(): { uri: Uri }[] | undefined {
    return stub.workspaceFolders;
  },
  onDidChangeTextDocument: textChanges.event,
  getConfiguration: (section: string) => ({
    get: <T>(key: string, fallback: T): T => (stub.config.get(`${section}.${key}`) as T | undefined) ?? fallback,
  }),
};

export const languages = {
  onDidChangeDiagnostics: diagnosticChanges.event,
  /** Like VS Code: one file's list (empty if none), or every file's that has had any. */
  getDiagnostics: ((uri?: Uri) => {
    if (uri) return stub.diagnostics.get(uri.toString())?.[1] ?? [];
    return [...stub.diagnostics.values()];
  }) as {
    (uri: Uri): Diagnostic[];
    (): [Uri, Diagnostic[]][];
  },
};

export const commands = {
  executeCommand(command: string, ...args: unknown[]): Promise<unknown> {
    stub.executed.push({ command, args });
    if (command === "vscode.diff") {
      stub.tabs.push({ input: new TabInputTextDiff(args[0] as Uri, args[1] as Uri) });
    }
    const registered = stub.commands.get(command);
    return Promise.resolve(registered ? registered(...args) : undefined);
  },
  registerCommand(command: string, callback: (...args: unknown[]) => unknown): typeof disposable {
    stub.commands.set(command, callback);
    return disposable;
  },
};

export interface StubStatusBarItem {
  text: string;
  tooltip: string;
  command: string;
  visible: boolean;
  show(): void;
  dispose(): void;
}

export class TabInputTextDiff {
  constructor(
    readonly original: Uri,
    readonly modified: Uri,
  ) {}
}

export interface StubTextEditor {
  document: TextDocument | undefined;
  revealRange(range: Range, type?: TextEditorRevealType): void;
}

export interface StubTab {
  input: unknown;
}

export const window = {
  /** One group holding the tabs that `vscode.diff` opened. */
  tabGroups: {
    get all(): { tabs: StubTab[] }[] {
      return [{ tabs: [...stub.tabs] }];
    },
    close(tabs: StubTab[]): Promise<boolean> {
      for (const tab of tabs) stub.tabs.splice(stub.tabs.indexOf(tab), 1);
      return Promise.resolve(true);
    },
  },
  /** Like VS Code: an optional options object ({modal, detail}) before the buttons. */
  showInformationMessage(message: string, ...rest: (string | MessageOptions)[]): Promise<string | undefined> {
    const options = typeof rest[0] === "object" ? rest[0] : {};
    const items = rest.filter((i): i is string => typeof i === "string");
    stub.messages.push({ message, items, options });
    return Promise.resolve(stub.ui.answerMessage(message, items));
  },
  showErrorMessage: (message: string) => window.showInformationMessage(message),
  /** Strings or `{label}` items, like VS Code; the test answers with a label. */
  showQuickPick<T extends string | { label: string }>(items: T[]): Promise<T | undefined> {
    const labels = items.map((i) => (typeof i === "string" ? i : i.label));
    stub.quickPicks.push(labels);
    stub.quickPickItems.push(items);
    const answer = stub.ui.answerQuickPick(labels);
    return Promise.resolve(items.find((_item, index) => labels[index] === answer));
  },
  /** A URI or a document, like VS Code; the editor returned records what it reveals. */
  showTextDocument(target: Uri | TextDocument, options?: unknown): Promise<StubTextEditor> {
    const uri = target instanceof TextDocument ? target.uri : target;
    const shown: ShownDocument = { uri, options, revealed: [] };
    stub.shownDocuments.push(shown);
    const document = target instanceof TextDocument ? target : findDocument(uri);
    return Promise.resolve({
      document,
      revealRange: (range: Range, type?: TextEditorRevealType) => void shown.revealed.push({ range, type }),
    });
  },
  showInputBox: (): Promise<string | undefined> => {
    stub.inputBoxes += 1;
    return Promise.resolve(stub.ui.answerInput());
  },
  get activeTextEditor(): StubEditor | undefined {
    return stub.activeEditor;
  },
  createOutputChannel: (_name: string) => ({
    appendLine: (line: string) => stub.outputLines.push(line),
    show: () => undefined,
    dispose: () => undefined,
  }),
  createStatusBarItem(): StubStatusBarItem {
    const item: StubStatusBarItem = {
      text: "",
      tooltip: "",
      command: "",
      visible: false,
      show: () => (item.visible = true),
      dispose: () => (item.visible = false),
    };
    stub.statusItems.push(item);
    return item;
  },
  registerWebviewViewProvider(viewId: string, provider: unknown): typeof disposable {
    stub.webviewProviders.set(viewId, provider);
    return disposable;
  },
  /** Like VS Code: open() comes a little later, and what the pty writes before it is dropped. */
  createTerminal(options: { name: string; pty: Pty }): StubTerminal {
    const terminal: StubTerminal = {
      name: options.name,
      written: "",
      shown: 0,
      show: () => (terminal.shown += 1),
      close: () => options.pty.close(),
    };
    let opened = false;
    options.pty.onDidWrite((text) => {
      if (opened) terminal.written += text;
    });
    setTimeout(() => {
      opened = true;
      options.pty.open(undefined);
    }, 5);
    stub.terminals.push(terminal);
    return terminal;
  },
};

export const StatusBarAlignment = { Left: 1, Right: 2 };

export enum TextEditorRevealType {
  Default = 0,
  InCenter = 1,
  InCenterIfOutsideViewport = 2,
  AtTop = 3,
}

/** One window.showTextDocument call: the editor it returned records its revealRange calls. */
export interface ShownDocument {
  uri: Uri;
  options: unknown;
  revealed: { range: Range; type: TextEditorRevealType | undefined }[];
}
