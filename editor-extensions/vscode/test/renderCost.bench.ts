// What drawing the chat costs: a reply streamed in many chunks, and a long conversation.
// Not a test (no timing assertions); run it with:
//   npx esbuild test/renderCost.bench.ts --bundle --platform=node --outfile=out-test/renderCost.js && node out-test/renderCost.js
import { renderItem } from "../src/render";
import { Transcript } from "../src/transcript";

function chunkText(i: number): string {
  if (i % 200 === 100) return "\n```\nconst x = 1;\n";
  if (i % 200 === 150) return "\n```\n";
  return i % 40 === 39 ? "word.\n\n" : "word ";
}

function ms(since: number): string {
  return `${(performance.now() - since).toFixed(0)} ms`;
}

/** Streams `chunks` chunks into one reply; draws it after each chunk, or once per `every` chunks. */
function stream(chunks: number, every: number): { time: string; draws: number; bytes: number; size: number } {
  const t = new Transcript();
  let draws = 0;
  let bytes = 0;
  const start = performance.now();
  for (let i = 1; i <= chunks; i++) {
    const [item] = t.apply({ sessionUpdate: "agent_message_chunk", messageId: "m", content: { type: "text", text: chunkText(i) } });
    if (item && (Math.floor(i / every) !== Math.floor((i - 1) / every) || i === chunks)) {
      bytes += renderItem(item).length;
      draws += 1;
    }
  }
  const size = t.items[0]?.kind === "agent" ? t.items[0].text.length : 0;
  return { time: ms(start), draws, bytes, size };
}

// A reply at 50 chunks a second, drawn every 50 ms (the extension's batching): one draw per 2.5 chunks;
// a fast local model at 400 chunks a second: one draw per 20 chunks.
for (const chunks of [5_000, 20_000]) {
  console.log(`reply of ${chunks} chunks, drawn per chunk:`, stream(chunks, 1));
  console.log(`reply of ${chunks} chunks, drawn every 50 ms at 50 chunks/s:`, stream(chunks, 2.5));
  console.log(`reply of ${chunks} chunks, drawn every 50 ms at 400 chunks/s:`, stream(chunks, 20));
}

// A conversation of 500 items: drawing it whole (the view opening), then one chunk more.
const t = new Transcript();
for (let i = 0; i < 250; i++) {
  t.addUserPrompt(`question ${i}`);
  t.apply({ sessionUpdate: "agent_message_chunk", messageId: `m${i}`, content: { type: "text", text: "Some **answer** with `code`. ".repeat(20) } });
}
let start = performance.now();
const whole = t.items.map((item) => renderItem(item).length).reduce((a, b) => a + b, 0);
console.log(`500 items drawn whole: ${ms(start)}, ${whole} bytes`);
start = performance.now();
const changed = t.apply({ sessionUpdate: "agent_message_chunk", messageId: "m249", content: { type: "text", text: "more" } });
const one = changed.map((item) => renderItem(item).length).reduce((a, b) => a + b, 0);
console.log(`one more chunk: ${changed.length} item drawn again, ${ms(start)}, ${one} bytes`);
