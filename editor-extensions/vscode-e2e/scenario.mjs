// The browser test's scenario in one place: the sample workspace, the scripted model's replies and
// what the test expects to see. browser.mjs imports it; run.sh runs it to write the files:
//   node scenario.mjs <workspace dir> <model script path>
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const HELLO_BEFORE = `def greet(name: str) -> str:
    return f"Hello, {name}!"


if __name__ == "__main__":
    print(greet("world"))
`;

/** What src/hello.py holds once the edit is applied. */
export const HELLO_AFTER = HELLO_BEFORE.replace("def greet(", "def welcome(").replace("print(greet(", "print(welcome(");

/** The prompts, in the order the test sends them, with what the scripted model answers. */
export const READ = {
  prompt: "Are you there, Heron?",
  answer: "Heron is here and working.",
};
export const EDIT = {
  prompt: "Please rename greet to welcome in src/hello.py.",
  answer: "Renamed greet to welcome in src/hello.py.",
};
/** A command with a long output: shown live in a VS Code terminal, its output in the card. */
export const COMMAND = {
  prompt: "Count to 300 in the terminal.",
  command: "seq -f 'line %g of 300' 1 300 | tee counted.txt",
  lines: 300,
  answer: "Counted to 300.",
};
/** A tool of an MCP server configured in Heron's config.toml (tests/support/mcp_server.py). */
export const MCP = {
  server: "calc",
  prompt: "Add 2 and 3 with the calculator.",
  result: "2 + 3 = 5",
  answer: "The calculator says 5.",
};
/**
 * A task delegated to a subagent. The extension takes child sessions, so Heron sends it as one:
 * announced on the parent, its read under its own session id, the delegate call linked to it. It
 * pauses after its read, long enough for the test to see it running (with its Stop button).
 */
export const SUBAGENT = {
  prompt: "Ask a subagent what the README says.",
  task: "Read README.md and say what it is (SUBAGENT-README)", // the delegate card's title
  read: "Read README.md",
  said: "Reading the README.", // its message before the pause: the card's summary meanwhile
  pause: 5,
  report: "The README says this is a tiny project for the browser test.",
  answer: "The subagent read the README.",
};
/** A reply that streams, then pauses long enough for the test to stop it half-way. */
export const STREAM = {
  prompt: "Tell me a long story.",
  start: "Once upon a time a heron stood in a river, waiting.",
  end: "THE END of the story.",
};
/**
 * "Edit and resend": a prompt whose turn edits src/hello.py (it adds farewell()), then that prompt
 * edited and sent again. Heron restores the file first (asking, with a preview), then the new
 * prompt's turn makes its own edit: the file ends with the docstring and without farewell().
 */
export const REWIND = {
  prompt: "Please add a farewell function to src/hello.py.",
  answer: "Added farewell() to src/hello.py.",
  edited: "Please give welcome a docstring in src/hello.py.",
  editedAnswer: "Gave welcome() a docstring.",
  restoreTitle: "Restore the workspace to checkpoint",
  restoreButton: "Restore these files",
};
const FAREWELL = 'def farewell(name: str) -> str:\n    return f"Goodbye, {name}!"\n\n\n';
const DOCSTRING = '    """Greet someone by name."""\n';
/** src/hello.py once the first prompt's turn has added farewell(). */
export const HELLO_FAREWELL = HELLO_AFTER.replace('if __name__ == "__main__":', `${FAREWELL}if __name__ == "__main__":`);
/** src/hello.py once the restore has taken farewell() away and the edited prompt's turn added the docstring. */
export const HELLO_DOCSTRING = HELLO_AFTER.replace("def welcome(name: str) -> str:\n", `def welcome(name: str) -> str:\n${DOCSTRING}`);

/** The session's title in the session picker: Heron titles a session with its first prompt. */
export const SESSION_TITLE = READ.prompt;

const text = (value) => ({ text: value });
const call = (name, args) => ({ tool_call: { name, arguments: args } });

/** agent_core/models/scripted.py: the n-th model call of a turn plays the n-th reply of the rule. */
export function modelScript() {
  return {
    chunk_delay: 0.02,
    rules: [
      {
        // The subagent's own model calls: its prompt is its task (first, so no other rule takes it).
        match: "SUBAGENT-README",
        replies: [
          [text(SUBAGENT.said), call("read_file", { path: "README.md" })],
          [{ sleep: SUBAGENT.pause }, text(SUBAGENT.report)],
        ],
      },
      {
        match: "ask a subagent",
        replies: [[call("delegate", { task: SUBAGENT.task })], [text(SUBAGENT.answer)]],
      },
      {
        match: "are you there",
        replies: [
          [{ thinking: "Let me look at the sample first." }, call("read_file", { path: "src/hello.py" })],
          [text(`${READ.answer} I read \`src/hello.py\`: it defines \`greet()\`.`)],
        ],
      },
      {
        match: "rename greet to welcome",
        replies: [
          // The stale-read guard refuses an edit of a file not read in this turn.
          [call("read_file", { path: "src/hello.py" })],
          [
            call("edit_file", {
              path: "src/hello.py",
              edits: [
                { old_string: "def greet(name: str)", new_string: "def welcome(name: str)" },
                { old_string: "print(greet(", new_string: "print(welcome(" },
              ],
            }),
          ],
          [text(EDIT.answer)],
        ],
      },
      {
        match: "count to 300",
        replies: [[call("terminal", { command: COMMAND.command })], [text(COMMAND.answer)]],
      },
      {
        match: "with the calculator",
        replies: [[call(`mcp__${MCP.server}__add`, { a: 2, b: 3 })], [text(MCP.answer)]],
      },
      {
        match: "add a farewell function",
        replies: [
          [call("read_file", { path: "src/hello.py" })],
          [call("edit_file", { path: "src/hello.py", edits: [{ old_string: 'if __name__ == "__main__":', new_string: `${FAREWELL}if __name__ == "__main__":` }] })],
          [text(REWIND.answer)],
        ],
      },
      {
        match: "give welcome a docstring",
        replies: [
          [call("read_file", { path: "src/hello.py" })],
          [call("edit_file", { path: "src/hello.py", edits: [{ old_string: "def welcome(name: str) -> str:\n", new_string: `def welcome(name: str) -> str:\n${DOCSTRING}` }] })],
          [text(REWIND.editedAnswer)],
        ],
      },
      {
        match: "long story",
        replies: [[text(STREAM.start), { sleep: 60 }, text(STREAM.end)]],
      },
    ],
  };
}

export function writeWorld(workspace, scriptPath) {
  mkdirSync(join(workspace, "src"), { recursive: true });
  writeFileSync(join(workspace, "README.md"), "# Sample workspace\n\nA tiny project for Heron's browser end-to-end test.\n");
  writeFileSync(join(workspace, "src", "hello.py"), HELLO_BEFORE);
  mkdirSync(dirname(scriptPath), { recursive: true });
  writeFileSync(scriptPath, `${JSON.stringify(modelScript(), null, 2)}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [workspace, scriptPath] = process.argv.slice(2);
  if (!workspace || !scriptPath) {
    console.error("usage: node scenario.mjs <workspace dir> <model script path>");
    process.exit(2);
  }
  writeWorld(workspace, scriptPath);
}
