// Builds the prompt for "Ask About Selection": the selection as an embedded resource. Pure.
import type { ContentBlock } from "@agentclientprotocol/sdk";

export interface SelectionQuestion {
  /** The document's URI (file:///...). */
  uri: string;
  /** A short path for display. */
  path: string;
  languageId: string;
  text: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  question: string;
}

export function selectionPrompt(q: SelectionQuestion): { blocks: ContentBlock[]; display: string } {
  const range = q.startLine === q.endLine ? `L${q.startLine}` : `L${q.startLine}-${q.endLine}`;
  const blocks: ContentBlock[] = [
    { type: "text", text: q.question },
    {
      type: "resource",
      resource: { uri: `${q.uri}#${range}`, mimeType: mimeFor(q.languageId), text: q.text },
    },
  ];
  return { blocks, display: `${q.question}\n\n(selection: ${q.path}#${range})` };
}

/**
 * 1-based inclusive lines of a selection (0-based positions, as VS Code gives them). A selection
 * ending at column 0 of a line does not include that line (a whole-line selection ends there).
 */
export function selectionLines(selection: {
  start: { line: number; character: number };
  end: { line: number; character: number };
}): { startLine: number; endLine: number } {
  const { start, end } = selection;
  const lastLine = end.character === 0 && end.line > start.line ? end.line - 1 : end.line;
  return { startLine: start.line + 1, endLine: lastLine + 1 };
}

function mimeFor(languageId: string): string {
  return languageId === "plaintext" ? "text/plain" : `text/x-${languageId}`;
}

/**
 * For an agent without `promptCapabilities.embeddedContext`: an embedded text resource becomes a
 * text block naming the file and range (from its URI). Other blocks are unchanged.
 */
export function embeddedAsText(block: ContentBlock): ContentBlock {
  if (block.type !== "resource" || !("text" in block.resource)) return block;
  const { uri, text } = block.resource;
  let name = uri;
  try {
    const url = new URL(uri);
    if (url.protocol === "file:") name = decodeURIComponent(url.pathname) + url.hash;
  } catch {
    // not a URL: keep it as it is
  }
  const fence = text.includes("```") ? "~~~~" : "```";
  return { type: "text", text: `${name}:\n${fence}\n${text}${text.endsWith("\n") ? "" : "\n"}${fence}` };
}
