// A small markdown renderer for the chat view. Everything the agent sends is
// HTML-escaped first; formatting is then applied to the escaped text, so no
// raw HTML from the agent can ever reach the webview.

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

const SAFE_LINK = /^(https?:|mailto:|file:)/i;

/** Inline formatting on one line of raw text: code spans, links, bold, italic. */
export function renderInline(raw: string): string {
  // Code spans and links are pulled out first, so nothing inside them (or inside a link's
  // href) is formatted. U+E000 (private use) marks where they go back; drop any the agent sent.
  const held: string[] = [];
  const hold = (html: string): string => {
    held.push(html);
    return `\uE000${held.length - 1}\uE000`;
  };
  const withoutCode = raw.replace(/\uE000/g, "").replace(/`([^`\n]+)`/g, (_m, code: string) =>
    hold(`<code>${escapeHtml(code)}</code>`),
  );
  let html = escapeHtml(withoutCode);
  html = html.replace(/\[([^\]\n]+)\]\(([^)\s]+)\)/g, (_m, label: string, href: string) => {
    // `href` is already escaped; unescape only to test the scheme.
    const plain = href.replace(/&amp;/g, "&");
    if (!SAFE_LINK.test(plain)) return `${label} (${href})`;
    return hold(`<a href="${href}">${emphasis(label)}</a>`);
  });
  html = emphasis(html);
  // Placeholders can nest (a code span inside a link label): put back until none are left.
  for (let i = 0; i < 3 && html.includes("\uE000"); i++) {
    html = html.replace(/\uE000(\d+)\uE000/g, (_m, n: string) => held[Number(n)] ?? "");
  }
  return html;
}

function emphasis(html: string): string {
  html = html.replace(/\*\*([^*\n]+)\*\*/g, "<strong>$1</strong>");
  html = html.replace(/__([^_\n]+)__/g, "<strong>$1</strong>");
  html = html.replace(/(^|[^*\w])\*([^*\n]+)\*(?!\w)/g, "$1<em>$2</em>");
  return html.replace(/(^|[^_\w])_([^_\n]+)_(?!\w)/g, "$1<em>$2</em>");
}

type Block =
  | { kind: "p"; lines: string[] }
  | { kind: "ul" | "ol"; items: string[] }
  | { kind: "quote"; lines: string[] };

/** Renders markdown to safe HTML. Unclosed code fences (while streaming) render as code. */
export function renderMarkdown(source: string): string {
  const out: string[] = [];
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  let block: Block | undefined;
  const flush = (): void => {
    if (!block) return;
    if (block.kind === "p") out.push(`<p>${block.lines.map(renderInline).join("<br>")}</p>`);
    else if (block.kind === "quote")
      out.push(`<blockquote>${block.lines.map(renderInline).join("<br>")}</blockquote>`);
    else
      out.push(
        `<${block.kind}>${block.items.map((i) => `<li>${renderInline(i)}</li>`).join("")}</${block.kind}>`,
      );
    block = undefined;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const fence = /^\s*(`{3,}|~{3,})\s*([\w+#.-]*)/.exec(line);
    if (fence) {
      flush();
      const marker = fence[1] ?? "```";
      const lang = fence[2] ?? "";
      const code: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] ?? "").trim().startsWith(marker)) {
        code.push(lines[i] ?? "");
        i++;
      }
      const cls = lang ? ` class="language-${escapeHtml(lang)}"` : "";
      out.push(`<pre><code${cls}>${escapeHtml(code.join("\n"))}</code></pre>`);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      flush();
      const level = (heading[1] ?? "#").length;
      out.push(`<h${level}>${renderInline(heading[2] ?? "")}</h${level}>`);
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush();
      out.push("<hr>");
      continue;
    }
    const bullet = /^\s*[-*+]\s+(.*)$/.exec(line);
    const numbered = /^\s*\d+[.)]\s+(.*)$/.exec(line);
    const listItem = bullet ?? numbered;
    if (listItem) {
      const kind = bullet ? "ul" : "ol";
      if (block?.kind !== kind) {
        flush();
        block = { kind, items: [] };
      }
      block.items.push(listItem[1] ?? "");
      continue;
    }
    const quote = /^\s*>\s?(.*)$/.exec(line);
    if (quote) {
      if (block?.kind !== "quote") {
        flush();
        block = { kind: "quote", lines: [] };
      }
      block.lines.push(quote[1] ?? "");
      continue;
    }
    if (line.trim() === "") {
      flush();
      continue;
    }
    if (block?.kind === "ul" || block?.kind === "ol") {
      // A continuation line of the last list item.
      const last = block.items.length - 1;
      block.items[last] = `${block.items[last] ?? ""} ${line.trim()}`;
      continue;
    }
    if (block?.kind !== "p") {
      flush();
      block = { kind: "p", lines: [] };
    }
    block.lines.push(line);
  }
  flush();
  return out.join("\n");
}
