import assert from "node:assert/strict";
import { test } from "node:test";
import { escapeHtml, renderInline, renderMarkdown } from "../src/markdown";

test("escapes raw HTML instead of passing it through", () => {
  const html = renderMarkdown('<script>alert(1)</script> <img src=x onerror="alert(2)">');
  assert.ok(!html.includes("<script>"), html);
  assert.ok(!html.includes("<img"), html);
  assert.ok(html.includes("&lt;script&gt;alert(1)&lt;/script&gt;"), html);
  assert.ok(html.includes("onerror=&quot;alert(2)&quot;"), html);
});

test("escapes HTML inside code spans and fenced code", () => {
  assert.equal(renderInline("use `<b>` here"), "use <code>&lt;b&gt;</code> here");
  const html = renderMarkdown("```html\n<div onclick=\"x\">**not bold**</div>\n```");
  assert.equal(html, '<pre><code class="language-html">&lt;div onclick=&quot;x&quot;&gt;**not bold**&lt;/div&gt;</code></pre>');
});

test("formats headings, emphasis, lists, links and paragraphs", () => {
  const html = renderMarkdown("# Title\n\nSome **bold** and *italic* text.\n\n- one\n- two\n\n1. first\n2. second");
  assert.equal(
    html,
    [
      "<h1>Title</h1>",
      "<p>Some <strong>bold</strong> and <em>italic</em> text.</p>",
      "<ul><li>one</li><li>two</li></ul>",
      "<ol><li>first</li><li>second</li></ol>",
    ].join("\n"),
  );
  assert.equal(renderInline("[docs](https://example.com/a?b=1&c=2)"), '<a href="https://example.com/a?b=1&amp;c=2">docs</a>');
});

test("refuses javascript: links and quote-breaking hrefs", () => {
  assert.equal(renderInline("[x](javascript:alert(1))"), "x (javascript:alert(1))");
  const html = renderInline('[x](https://e.com/"onmouseover="alert(1))');
  assert.ok(!html.includes('"onmouseover'), html);
});

test("an unclosed fence while streaming still renders as escaped code", () => {
  assert.equal(renderMarkdown("```\nlet a = <T>b"), "<pre><code>let a = &lt;T&gt;b</code></pre>");
});

test("escapeHtml covers the five special characters", () => {
  assert.equal(escapeHtml(`<>&"'`), "&lt;&gt;&amp;&quot;&#39;");
});

test("emphasis markers inside a link's href are left alone", () => {
  assert.equal(
    renderInline("see [the _docs_](https://e.com/a_b_c/*x*) and _this_"),
    'see <a href="https://e.com/a_b_c/*x*">the <em>docs</em></a> and <em>this</em>',
  );
  assert.equal(renderInline("[`a_b`](file:///w/a__b__.py)"), '<a href="file:///w/a__b__.py"><code>a_b</code></a>');
});
