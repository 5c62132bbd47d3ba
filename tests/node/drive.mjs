#!/usr/bin/env node
// Independent ACP v1 client used by Heron's Python tests to drive an agent
// (normally `heron acp`) end to end through the official TypeScript SDK.
//
//   node tests/node/drive.mjs --cwd <absolute dir> [--prompt "hello"]
//        [--cancel-after-first-update] [--timeout <seconds>]
//        [--elicitation '<CreateElicitationResponse JSON>'] [--subagents]
//        -- <agent command> [args...]
//
// --elicitation advertises form elicitation and answers every elicitation/create with that
// response; without it the client advertises none. --subagents advertises child sessions
// (clientCapabilities.subagents); "updates" then holds every session's, the children's too.
//
// Exactly one JSON line is written to stdout:
//   success: {"initialize", "sessionId", "stopReason", "updates", "elicitations", "wire",
//             "exitCode"}, exit 0
//   failure: {"error", "wire"}, exit 1
// Everything else (diagnostics, SDK logging, the agent's own stderr) goes to stderr.

import { spawn } from "node:child_process";
import path from "node:path";
import { Writable } from "node:stream";
import { client, methods, ndJsonStream, RequestError } from "@agentclientprotocol/sdk";

const EXIT_GRACE_MS = 5000;
const STDOUT_DRAIN_MS = 1000;
const DEFAULT_TIMEOUT_S = 120;

const wire = [];
let reported = false;
let agentChild = null;

function log(...args) {
  console.error("[drive.mjs]", ...args);
}

function emit(payload, code) {
  if (reported) return;
  reported = true;
  process.stdout.write(JSON.stringify(payload) + "\n", () => process.exit(code));
}

function fail(message) {
  if (agentChild && agentChild.exitCode === null && agentChild.signalCode === null) {
    killAgent(agentChild);
  }
  emit({ error: message, wire }, 1);
}

process.on("uncaughtException", (err) => {
  log("uncaught exception:", err);
  fail(`uncaught exception: ${describeError(err)}`);
});
process.on("unhandledRejection", (err) => {
  log("unhandled rejection:", err);
  fail(`unhandled rejection: ${describeError(err)}`);
});

function describeError(err) {
  if (err instanceof RequestError) {
    const data = err.data === undefined ? "" : ` ${JSON.stringify(err.data)}`;
    return `JSON-RPC error ${err.code}: ${err.message}${data}`;
  }
  if (err instanceof Error) return err.message || String(err);
  return String(err);
}

function parseArgs(argv) {
  const opts = {
    cwd: undefined,
    prompt: "hello",
    cancelAfterFirstUpdate: false,
    timeoutS: DEFAULT_TIMEOUT_S,
    elicitation: undefined,
    subagents: false,
    command: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${arg} needs a value`);
      return argv[++i];
    };
    if (arg === "--") {
      opts.command = argv.slice(i + 1);
      break;
    } else if (arg === "--cwd") {
      opts.cwd = value();
    } else if (arg === "--prompt") {
      opts.prompt = value();
    } else if (arg === "--cancel-after-first-update") {
      opts.cancelAfterFirstUpdate = true;
    } else if (arg === "--subagents") {
      opts.subagents = true;
    } else if (arg === "--elicitation") {
      opts.elicitation = JSON.parse(value());
    } else if (arg === "--timeout") {
      opts.timeoutS = Number(value());
      if (!Number.isFinite(opts.timeoutS) || opts.timeoutS <= 0) {
        throw new Error("--timeout must be a positive number of seconds");
      }
    } else {
      throw new Error(`unknown argument: ${arg}`);
    }
  }
  if (!opts.cwd) throw new Error("--cwd <absolute dir> is required");
  if (!path.isAbsolute(opts.cwd)) throw new Error(`--cwd must be absolute: ${opts.cwd}`);
  if (opts.command.length === 0) throw new Error("missing agent command after --");
  return opts;
}

// Splits a byte stream into newline-delimited lines and records each one in
// the wire log, independently of what the SDK later does with the bytes.
function lineRecorder(dir) {
  const decoder = new TextDecoder();
  let pending = "";
  const record = (line) => {
    const text = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (text.trim() === "") return;
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      wire.push({ dir, message: null, raw: text });
      return;
    }
    wire.push({ dir, message });
  };
  return {
    push(chunk) {
      pending += decoder.decode(chunk, { stream: true });
      let nl;
      while ((nl = pending.indexOf("\n")) !== -1) {
        record(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
      }
    },
    end() {
      pending += decoder.decode();
      if (pending !== "") record(pending);
      pending = "";
    },
  };
}

// Agent stdout -> recorder -> SDK. The pump keeps draining (and recording)
// the agent's stdout until EOF even after the SDK has stopped reading.
function tapAgentOutput(child) {
  const recorder = lineRecorder("from_agent");
  let sdkReading = true;
  let controller;
  const toSdk = new ReadableStream({
    start(c) {
      controller = c;
    },
    cancel() {
      sdkReading = false;
    },
  });
  let finish;
  const done = new Promise((resolve) => {
    finish = () => {
      recorder.end();
      if (sdkReading) {
        sdkReading = false;
        try {
          controller.close();
        } catch {
          /* already closed */
        }
      }
      resolve();
    };
    child.stdout.on("data", (chunk) => {
      recorder.push(chunk);
      if (sdkReading) controller.enqueue(new Uint8Array(chunk));
    });
    child.stdout.once("end", finish);
    child.stdout.once("close", finish);
    child.stdout.once("error", (err) => {
      log("agent stdout error:", err.message);
      finish();
    });
  });
  // A grandchild that inherited the agent's stdout can keep the pipe open
  // after the agent itself has exited: stop waiting for EOF then.
  const forceEnd = () => {
    child.stdout.destroy();
    finish();
  };
  return { toSdk, done, forceEnd };
}

// SDK -> recorder -> agent stdin.
function tapAgentInput(child) {
  const recorder = lineRecorder("to_agent");
  child.stdin.on("error", (err) => log("agent stdin error:", err.message));
  const stdinWriter = Writable.toWeb(child.stdin).getWriter();
  stdinWriter.closed.catch(() => {});
  const fromSdk = new WritableStream({
    async write(chunk) {
      recorder.push(chunk);
      await stdinWriter.write(chunk);
    },
  });
  return {
    fromSdk,
    close() {
      recorder.end();
      stdinWriter.close().catch(() => {});
    },
  };
}

// The agent runs in its own process group (spawned detached) so that a forced
// kill also takes down anything it started.
function killAgent(child) {
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
}

function waitForExit(child, ms) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off("exit", onExit);
      resolve(false);
    }, ms);
    const onExit = () => {
      clearTimeout(timer);
      resolve(true);
    };
    child.once("exit", onExit);
  });
}

function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// Lets notification handlers that are already queued inside the SDK run
// before the connection is closed (the prompt response can resolve first).
async function drainSdk() {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
}

function choosePermission(options) {
  const list = Array.isArray(options) ? options : [];
  const chosen =
    list.find((o) => typeof o?.kind === "string" && o.kind.startsWith("allow")) ?? list[0];
  if (!chosen) return { outcome: { outcome: "cancelled" } };
  return { outcome: { outcome: "selected", optionId: chosen.optionId } };
}

async function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (err) {
    fail(`usage error: ${describeError(err)}`);
    return;
  }

  const [cmd, ...cmdArgs] = opts.command;
  const child = spawn(cmd, cmdArgs, {
    stdio: ["pipe", "pipe", "inherit"],
    env: process.env,
    detached: true,
  });
  agentChild = child;
  let spawnError = null;
  let exited = false;
  child.once("error", (err) => {
    spawnError = err;
    log("agent process error:", err.message);
  });
  child.once("exit", (code, signal) => {
    exited = true;
    log(`agent exited (code=${code}, signal=${signal})`);
  });

  const output = tapAgentOutput(child);
  const input = tapAgentInput(child);
  const endOutputSoon = () => setTimeout(output.forceEnd, STDOUT_DRAIN_MS);
  child.once("exit", endOutputSoon);
  child.once("error", endOutputSoon);

  let timedOut = false;
  const timeout = setTimeout(() => {
    timedOut = true;
    log(`timed out after ${opts.timeoutS}s; killing agent`);
    killAgent(child);
  }, opts.timeoutS * 1000);

  const updates = [];
  const elicitations = [];
  let sessionId;
  let promptSent = false;
  let cancelSent = false;

  const app = client({ name: "heron-tests-ts" })
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      const response = choosePermission(params.options);
      log("session/request_permission ->", JSON.stringify(response.outcome));
      return response;
    })
    .onRequest(methods.client.elicitation.create, ({ params }) => {
      elicitations.push(params);
      log("elicitation/create ->", JSON.stringify(opts.elicitation));
      return opts.elicitation ?? { action: "decline" };
    })
    .onNotification(methods.client.session.update, ({ params, agent }) => {
      updates.push(params);
      if (opts.cancelAfterFirstUpdate && promptSent && !cancelSent) {
        cancelSent = true;
        const target = sessionId ?? params.sessionId;
        log("first update during the prompt turn; sending session/cancel");
        agent.notify(methods.agent.session.cancel, { sessionId: target }).catch((err) => {
          log("session/cancel failed:", describeError(err));
        });
      }
    });

  let outcome;
  let failure;
  try {
    outcome = await app.connectWith(ndJsonStream(input.fromSdk, output.toSdk), async (ctx) => {
      const initialize = await ctx.request(methods.agent.initialize, {
        protocolVersion: 1,
        clientInfo: { name: "heron-tests-ts", version: "0" },
        clientCapabilities: {
          fs: { readTextFile: false, writeTextFile: false },
          terminal: false,
          ...(opts.elicitation ? { elicitation: { form: {} } } : {}),
          ...(opts.subagents ? { subagents: {} } : {}),
        },
      });
      const session = await ctx.request(methods.agent.session.new, {
        cwd: opts.cwd,
        mcpServers: [],
      });
      sessionId = session.sessionId;
      promptSent = true;
      const prompt = await ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: opts.prompt }],
      });
      await drainSdk();
      return { initialize, sessionId, stopReason: prompt.stopReason };
    });
  } catch (err) {
    failure = err;
  }

  // Shut the agent down: EOF on stdin, then SIGKILL if it lingers.
  input.close();
  if (!spawnError && !(await waitForExit(child, EXIT_GRACE_MS))) {
    log(`agent still running ${EXIT_GRACE_MS}ms after stdin closed; killing it`);
    killAgent(child);
    await waitForExit(child, EXIT_GRACE_MS);
  }
  // Keep recording whatever the agent flushed before exiting.
  await Promise.race([output.done, delay(STDOUT_DRAIN_MS)]);
  clearTimeout(timeout);
  const exitCode = child.exitCode;

  if (failure !== undefined || spawnError) {
    let message;
    if (spawnError) message = `failed to run agent ${JSON.stringify(cmd)}: ${spawnError.message}`;
    else if (timedOut) message = `timed out after ${opts.timeoutS}s: ${describeError(failure)}`;
    else message = describeError(failure);
    if (!spawnError && exited) {
      message += ` (agent exit code ${exitCode}, signal ${child.signalCode})`;
    }
    fail(message);
    return;
  }

  emit(
    {
      initialize: outcome.initialize,
      sessionId: outcome.sessionId,
      stopReason: outcome.stopReason,
      updates,
      elicitations,
      wire,
      exitCode,
    },
    0,
  );
}

main().catch((err) => {
  log("driver failure:", err);
  fail(`driver failure: ${describeError(err)}`);
});
