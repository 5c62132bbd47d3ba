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

function mimeFor(languageId: string): string {
  return languageId === "plaintext" ? "text/plain" : `text/x-${languageId}`;
}
