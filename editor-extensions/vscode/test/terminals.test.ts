import "./installVscodeStub";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { beforeEach, test } from "node:test";
import { VscodeTerminalHandler } from "../src/terminals";
import { stub } from "./vscodeStub";

beforeEach(() => stub.reset());

test("runs a command, shows it in a pseudoterminal and returns its output and exit code", async () => {
  const terminals = new VscodeTerminalHandler();
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
  assert.equal(stub.terminals.length, 1);
  assert.ok(stub.terminals[0]?.written.includes(`in ${cwd}\r\nhi there\r\n`), stub.terminals[0]?.written);
  terminals.release({ sessionId: "s", terminalId });
  assert.throws(() => terminals.output({ sessionId: "s", terminalId }), /unknown terminal/);
});

test("respects outputByteLimit, keeping the end", async () => {
  const terminals = new VscodeTerminalHandler();
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
  const terminals = new VscodeTerminalHandler();
  const { terminalId } = await terminals.create({ sessionId: "s", command: "/bin/sh", args: ["-c", "sleep 30; echo late"] });
  const before = terminals.output({ sessionId: "s", terminalId });
  assert.equal(before.exitStatus, null);
  terminals.kill({ sessionId: "s", terminalId });
  const exit = await terminals.waitForExit({ sessionId: "s", terminalId });
  assert.equal(exit.signal, "SIGKILL");
  assert.equal(terminals.output({ sessionId: "s", terminalId }).output, "");
});
