// fs/read_text_file and fs/write_text_file, answered from and applied to VS Code's documents.
import { readFile, stat } from "node:fs/promises";
import * as vscode from "vscode";
import type { ReadTextFileRequest, ReadTextFileResponse, WriteTextFileRequest } from "@agentclientprotocol/sdk";
import type { FsHandler } from "./connection";
import type { AppliedWrite } from "./editedFileReveal";
import { sliceLines } from "./text";

function openDocument(path: string): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.scheme === "file" && d.uri.fsPath === path);
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

export class VscodeFsHandler implements FsHandler {
  /** `onWritten`: told of each write once it is saved (not awaited: the agent's answer goes first). */
  constructor(private readonly onWritten?: (write: AppliedWrite) => void) {}

  /** Unsaved editor buffers win over the file on disk. */
  async readTextFile(params: ReadTextFileRequest): Promise<ReadTextFileResponse> {
    const document = openDocument(params.path);
    const text = document ? document.getText() : await readFile(params.path, "utf8");
    return { content: sliceLines(text, params.line, params.limit) };
  }

  /** Through a WorkspaceEdit (so it can be undone), then saved. */
  async writeTextFile(params: WriteTextFileRequest): Promise<void> {
    const uri = vscode.Uri.file(params.path);
    const edit = new vscode.WorkspaceEdit();
    let before = "";
    if (openDocument(params.path) || (await exists(params.path))) {
      const document = await vscode.workspace.openTextDocument(uri);
      before = document.getText();
      const whole = new vscode.Range(document.positionAt(0), document.positionAt(before.length));
      edit.replace(uri, whole, params.content);
    } else {
      // overwrite: if the file appeared since we looked, it is replaced, not appended to.
      edit.createFile(uri, { overwrite: true });
      edit.insert(uri, new vscode.Position(0, 0), params.content);
    }
    if (!(await vscode.workspace.applyEdit(edit))) {
      throw new Error(`VS Code did not apply the edit to ${params.path}`);
    }
    const document = await vscode.workspace.openTextDocument(uri);
    if (!(await document.save())) throw new Error(`VS Code could not save ${params.path}`);
    this.onWritten?.({ path: params.path, before, after: document.getText() });
  }
}
