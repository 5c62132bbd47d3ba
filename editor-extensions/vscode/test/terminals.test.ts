import "./installVscodeStub";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { beforeEach, test } from "node:test";
import { NAMING_WAIT_MS, VscodeTerminalHandler } from "../src/terminals";
import { TERMINAL_NAME_CHARS, terminalName } from "../src/text";
import { stub } from "./vscodeStub";

beforeEach(() => stub.reset());

test("runs a command, shows it in a pseudoterminal and returns its output and exit code", async () => {
  const terminals = new VscodeTerminalHandler(0);
  const cwd = mkdtempSync(`${tmpdir()}/heron-term-`);
  const { terminalId } = await terminals.create({
    sessionId: "s",
    command: "/bin/sh",
    args: ["-c", 'echo "in $(pwd)"; echo "$GREETING" >&2; exit 3'],
    cwd,
    env: [{ name: "GREETING", value: "hi there" }],
  });
  const exit = await terminals.waitForExit({ sessionId: "s", terminalId });
  assert.deepEqual(exit, { exitCode: 3, signal: null });
  const output = terminals.output({ sessionId: "s", terminalId });
  assert.equal(output.output, `in ${cwd}\nhi there\n`);
  assert.equal(output.truncated, false);
  assert.deepEqual(output.exitStatus, { exitCode: 3, signal: null });
  // VS Code opens the terminal a little later.
  await eventually(() => stub.terminals[0]?.written.includes(`in ${cwd}\r\nhi there\r\n`) ?? false);
  assert.ok(stub.terminals[0]?.written.includes(`in ${cwd}\r\nhi there\r\n`), stub.terminals[0]?.written);
  terminals.release({ sessionId: "s", terminalId });
  assert.throws(() => terminals.output({ sessionId: "s", terminalId }), /unknown terminal/);
});

test("respects outputByteLimit, keeping the end", async () => {
  const terminals = new VscodeTerminalHandler(0);
  const { terminalId } = await terminals.create({
    sessionId: "s",
    command: "/bin/sh",
    args: ["-c", "printf 0123456789"],
    outputByteLimit: 4,
  });
  await terminals.waitForExit({ sessionId: "s", terminalId });
  assert.deepEqual(terminals.output({ sessionId: "s", terminalId }), {
    output: "6789",
    truncated: true,
    exitStatus: { exitCode: 0, signal: null },
  });
});

test("kill stops a running command (and its children)", async () => {
  const terminals = new VscodeTerminalHandler(0);
  const { terminalId } = await terminals.create({ sessionId: "s", command: "/bin/sh", args: ["-c", "sleep 30; echo late"] });
  const before = terminals.output({ sessionId: "s", terminalId });
  assert.equal(before.exitStatus, null);
  terminals.kill({ sessionId: "s", terminalId });
  const exit = await terminals.waitForExit({ sessionId: "s", terminalId });
  assert.equal(exit.signal, "SIGKILL");
  assert.equal(terminals.output({ sessionId: "s", terminalId }).output, "");
});

test("what the command prints before VS Code opens the terminal is shown once it opens", async () => {
  const terminals = new VscodeTerminalHandler(0);
  const { terminalId } = await terminals.create({ sessionId: "s", command: "/bin/sh", args: ["-c", "echo early"] });
  // The header is written at once, before the (stub, like VS Code) terminal calls open().
  await terminals.waitForExit({ sessionId: "s", terminalId });
  await eventually(() => stub.terminals[0]?.written.includes("early\r\n") ?? false);
  const written = stub.terminals[0]?.written ?? "";
  assert.ok(written.startsWith("\x1b[2m$ /bin/sh -c echo early"), JSON.stringify(written));
  assert.ok(written.includes("early\r\n"), JSON.stringify(written));
});

test("a command that cannot start exits 127, and the later close does not change that", async () => {
  const terminals = new VscodeTerminalHandler(0);
  const { terminalId } = await terminals.create({ sessionId: "s", command: "/no/such/command-heron" });
  assert.deepEqual(await terminals.waitForExit({ sessionId: "s", terminalId }), { exitCode: 127, signal: null });
  await new Promise((r) => setTimeout(r, 100)); // let any close event arrive
  const output = terminals.output({ sessionId: "s", terminalId });
  assert.deepEqual(output.exitStatus, { exitCode: 127, signal: null });
  assert.match(output.output, /ENOENT/);
});

test("wait_for_exit answers when the process exits, even if a background child holds its output open", async () => {
  const terminals = new VscodeTerminalHandler(0);
  const started = Date.now();
  const { terminalId } = await terminals.create({
    sessionId: "s",
    command: "/bin/sh",
    args: ["-c", "sleep 30 & echo started; exit 4"],
  });
  const exit = await terminals.waitForExit({ sessionId: "s", terminalId });
  assert.deepEqual(exit, { exitCode: 4, signal: null });
  assert.ok(Date.now() - started < 5000, "did not wait for the background sleep");
  assert.equal(terminals.output({ sessionId: "s", terminalId }).output, "started\n");
  terminals.release({ sessionId: "s", terminalId }); // kills the group, the sleep too
});

test("terminal commands do not inherit VS Code's own Node/Electron variables", async () => {
  const saved = { ...process.env };
  Object.assign(process.env, { ELECTRON_RUN_AS_NODE: "1", NODE_OPTIONS: "--inspect", VSCODE_PID: "42", HERON_KEEP: "yes" });
  try {
    const terminals = new VscodeTerminalHandler(0);
    const { terminalId } = await terminals.create({
      sessionId: "s",
      command: "/bin/sh",
      args: ["-c", 'echo "[$ELECTRON_RUN_AS_NODE][$NODE_OPTIONS][$VSCODE_PID][$HERON_KEEP]"'],
    });
    await terminals.waitForExit({ sessionId: "s", terminalId });
    assert.equal(terminals.output({ sessionId: "s", terminalId }).output, "[][][][yes]\n");
    terminals.release({ sessionId: "s", terminalId });
  } finally {
    for (const key of ["ELECTRON_RUN_AS_NODE", "NODE_OPTIONS", "VSCODE_PID", "HERON_KEEP"]) {
      if (key in saved) process.env[key] = saved[key];
      else Reflect.deleteProperty(process.env, key);
    }
  }
});

/** Polls ``condition`` for up to five seconds (the assertion after it says what was wrong). */
async function eventually(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
}

test("a terminal is named after the tool call that shows it, else after the command line", async () => {
  const terminals = new VscodeTerminalHandler();
  const named = await terminals.create({ sessionId: "s", command: "/bin/sh", args: ["-c", "echo named"] });
  assert.equal(stub.terminals.length, 0, "no terminal until the tool call names it");
  terminals.name(named.terminalId, terminalName("Run `pytest -q`"));
  terminals.name(named.terminalId, "Heron: again"); // named once: VS Code keeps a terminal's first name
  assert.deepEqual(stub.terminals.map((t) => t.name), ["Heron: Run `pytest -q`"]);
  await terminals.waitForExit({ sessionId: "s", terminalId: named.terminalId });
  await eventually(() => stub.terminals[0]?.written.includes("named") === true);
  const written = stub.terminals[0]?.written ?? "";
  assert.ok(written.includes("$ /bin/sh -c echo named") && written.includes("\r\nnamed\r\n"), `what it printed before the terminal existed: ${JSON.stringify(written)}`);
  assert.equal(stub.terminals[0]?.shown, 1, "brought to the front");
  terminals.release({ sessionId: "s", terminalId: named.terminalId });

  const unnamed = await terminals.create({ sessionId: "s", command: "/bin/sh", args: ["-c", "sleep 0.1"] });
  await new Promise((r) => setTimeout(r, NAMING_WAIT_MS + 50));
  assert.equal(stub.terminals.map((t) => t.name).join(" | "), "Heron: Run `pytest -q` | Heron: /bin/sh -c sleep 0.1", `no tool call within ${NAMING_WAIT_MS} ms: the command line`);
  terminals.release({ sessionId: "s", terminalId: unnamed.terminalId });
  const long = terminalName(`Run \`${"x".repeat(100)}\`\n--flag`);
  assert.equal(long.length, TERMINAL_NAME_CHARS);
  assert.ok(long.startsWith("Heron: Run `xxx") && long.endsWith("…") && !long.includes("\n"), long);
});

test("the chat sees a command's output live, and its final output and exit status after release", async () => {
  const terminals = new VscodeTerminalHandler(0);
  const changes: string[] = [];
  terminals.onDidChange((id) => changes.push(id));
  const { terminalId } = await terminals.create({
    sessionId: "s",
    command: "/bin/sh",
    args: ["-c", "echo one; sleep 0.3; echo two; exit 2"],
  });
  await eventually(() => terminals.view(terminalId)?.output === "one\n");
  assert.deepEqual(terminals.view(terminalId), { output: "one\n", truncated: false, exitStatus: null, terminalOpen: true });
  assert.ok(changes.includes(terminalId), "output is announced");
  await terminals.waitForExit({ sessionId: "s", terminalId });
  terminals.release({ sessionId: "s", terminalId });
  assert.deepEqual(terminals.view(terminalId), {
    output: "one\ntwo\n",
    truncated: false,
    exitStatus: { exitCode: 2, signal: null },
    terminalOpen: true,
  });
  assert.equal(terminals.view("heron-unknown"), undefined);

  // "Open terminal" brings it to the front while it exists; once the user closed it, it cannot.
  assert.equal(terminals.show(terminalId), true);
  const terminal = stub.terminals[0];
  assert.equal(terminal?.shown, 2, "once when the command started, once now");
  const before = changes.length;
  terminal.close();
  assert.equal(changes.length, before + 1, "closing is a change the card shows");
  assert.equal(terminals.view(terminalId)?.terminalOpen, false);
  assert.equal(terminals.view(terminalId)?.output, "one\ntwo\n", "the output is still there for the chat");
  assert.equal(terminals.show(terminalId), false);
});

test("terminal ids differ from one run of the extension to the next", async () => {
  const first = await new VscodeTerminalHandler(0).create({ sessionId: "s", command: "/bin/true" });
  const second = await new VscodeTerminalHandler(0).create({ sessionId: "s", command: "/bin/true" });
  assert.match(first.terminalId, /^heron-[0-9a-f]{6}-1$/);
  assert.notEqual(first.terminalId, second.terminalId);
});
