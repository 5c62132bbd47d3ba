// What the session controller keeps for the chat's header, against the scripted fake agent: the
// config options (new, load, updates, set, an error), the session list and titles, and Stop.
import "./installVscodeStub";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { HeaderState } from "../src/header";
import { SessionController, type SessionState } from "../src/session";
import type { Item } from "../src/transcript";
import { fakeAgentCommand, NO_FS, noTerminals, until } from "./fakeAgent";

interface Harness {
  session: SessionController;
  headers: HeaderState[];
  modes: (string | null)[];
  items: Item[];
  states: SessionState[];
  /** Lines the extension sent to the agent. */
  sent(method: string): string[];
  cwd: string;
}

function harness(env: Record<string, string> = {}): Harness {
  const cwd = mkdtempSync(join(tmpdir(), "heron-header-"));
  const traffic: string[] = [];
  const h: Omit<Harness, "session"> = {
    headers: [],
    modes: [],
    items: [],
    states: [],
    sent: (method) => traffic.filter((l) => l.startsWith("->") && l.includes(`"method":"${method}"`)),
    cwd,
  };
  const session = new SessionController({
    agentCommand: () => fakeAgentCommand(cwd, env),
    initialMode: () => undefined,
    fs: NO_FS,
    terminals: noTerminals(),
    permissions: { request: () => Promise.resolve({ outcome: { outcome: "cancelled" } }) },
    log: { info: () => undefined, traffic: (d, l) => traffic.push(`${d} ${l}`) },
    listener: {
      onState: (s) => h.states.push(s),
      onItems: (items) => h.items.push(...items),
      onReset: () => undefined,
      onMode: (m) => h.modes.push(m),
      onHeader: (header) => h.headers.push(header),
    },
  });
  return { ...h, session };
}

const text = (t: string) => [{ type: "text" as const, text: t }];
const values = (header: HeaderState | undefined): Record<string, string> =>
  Object.fromEntries((header?.configOptions ?? []).flatMap((o) => (o.type === "select" ? [[o.id, o.currentValue]] : [])));

test("config options arrive with session/new; setting one sends session/set_config_option and applies the answer", async () => {
  const h = harness();
  try {
    const sessionId = await h.session.newSession(h.cwd);
    assert.equal(h.headers.at(-1)?.sessionId, sessionId);
    assert.deepEqual(values(h.headers.at(-1)), { mode: "ask", model: "fake:small" });

    await h.session.setOption("model", "fake:large");
    assert.equal(h.sent("session/set_config_option").length, 1);
    assert.ok(h.sent("session/set_config_option")[0]?.includes('"configId":"model","value":"fake:large"'));
    assert.deepEqual(values(h.headers.at(-1)), { mode: "ask", model: "fake:large" });

    // The mode through the config option: the modes and the status bar follow.
    await h.session.setOption("mode", "plan");
    assert.deepEqual(values(h.headers.at(-1)), { mode: "plan", model: "fake:large" });
    assert.equal(h.session.modes?.currentModeId, "plan");
    assert.equal(h.modes.at(-1), "plan");
    assert.equal(h.sent("session/set_mode").length, 0, "not the modes' method when there are config options");
  } finally {
    await h.session.stop();
  }
});

test("a refused option leaves the options as they were and shows the header again; an unknown one is not sent", async () => {
  const h = harness();
  try {
    await h.session.newSession(h.cwd);
    const before = h.headers.length;
    await assert.rejects(h.session.setOption("model", "fake:broken"), /cannot use fake:broken/);
    assert.ok(h.headers.length > before, "the header is shown again, so the picker goes back");
    assert.deepEqual(values(h.headers.at(-1)), { mode: "ask", model: "fake:small" });
    await assert.rejects(h.session.setOption("colour", "red"), /no option colour/);
    assert.equal(h.sent("session/set_config_option").length, 1);
  } finally {
    await h.session.stop();
  }
});

test("config_option_update and current_mode_update from the agent change the options; session/load brings its own", async () => {
  const h = harness();
  try {
    await h.session.prompt(text("thinking"), "thinking", h.cwd);
    assert.deepEqual(values(h.headers.at(-1)), { mode: "ask", model: "fake:small", thought_level: "low" });
    await h.session.prompt(text("mode"), "mode", h.cwd);
    assert.deepEqual(values(h.headers.at(-1)), { mode: "plan", model: "fake:small", thought_level: "low" });

    const sessionId = h.session.sessionId;
    assert.ok(sessionId);
    await h.session.setOption("model", "fake:large");
    await h.session.newSession(h.cwd);
    assert.deepEqual(values(h.headers.at(-1)), { mode: "ask", model: "fake:small" }, "a new session's own");
    await h.session.loadSession(sessionId, h.cwd);
    assert.equal(h.headers.at(-1)?.sessionId, sessionId);
    assert.equal(values(h.headers.at(-1)).model, "fake:large", "the loaded session's options");
  } finally {
    await h.session.stop();
  }
});

test("without config options the mode picker goes through session/set_mode", async () => {
  const h = harness({ FAKE_NO_CONFIG: "1" });
  try {
    await h.session.newSession(h.cwd);
    assert.deepEqual(h.headers.at(-1)?.configOptions, []);
    await h.session.setOption("mode", "plan");
    assert.equal(h.sent("session/set_mode").length, 1);
    assert.equal(h.sent("session/set_config_option").length, 0);
    assert.equal(h.headers.at(-1)?.modes?.currentModeId, "plan");
  } finally {
    await h.session.stop();
  }
});

test("the session list is asked for when a session opens and after each turn; the title arrives at once", async () => {
  const h = harness();
  try {
    const sessionId = await h.session.newSession(h.cwd);
    await until("the first list", () => h.headers.at(-1)?.sessions.length === 1);
    assert.deepEqual(h.headers.at(-1)?.sessions, [{ sessionId, cwd: h.cwd }]);
    assert.ok(h.sent("session/list")[0]?.includes(`"cwd":${JSON.stringify(h.cwd)}`));

    await h.session.prompt(text("hello"), "hello", h.cwd);
    assert.equal(h.headers.at(-1)?.title, "About hello", "from session_info_update, before the list is asked again");
    await until("the list after the turn", () => h.headers.at(-1)?.sessions[0]?.title === "About hello");
    assert.equal(h.sent("session/list").length, 2);

    await h.session.newSession(h.cwd);
    await until("both sessions listed", () => h.headers.at(-1)?.sessions.length === 2);
    assert.equal(h.headers.at(-1)?.title, null, "the new session has no title yet");
  } finally {
    await h.session.stop();
  }
});

test("an agent that cannot list sessions is not asked; the list stays empty", async () => {
  const h = harness({ FAKE_NO_LIST: "1" });
  try {
    await h.session.newSession(h.cwd);
    await h.session.prompt(text("hello"), "hello", h.cwd);
    await h.session.refreshSessions(h.cwd);
    assert.equal(h.sent("session/list").length, 0);
    assert.deepEqual(h.headers.at(-1)?.sessions, []);
    assert.equal(h.headers.at(-1)?.title, "About hello");
  } finally {
    await h.session.stop();
  }
});

test("stopping a turn sends session/cancel; the cancelled turn leaves a Stopped. notice and the ready state", async () => {
  const h = harness();
  try {
    const turn = h.session.prompt(text("hang"), "hang", h.cwd);
    await until("the turn to run", () => h.sent("session/prompt").length === 1);
    await h.session.cancel();
    assert.equal(await turn, "cancelled");
    assert.equal(h.sent("session/cancel").length, 1);
    const last = h.session.transcript.items.at(-1);
    assert.deepEqual(last && last.kind === "notice" ? [last.severity, last.title] : last, ["info", "Stopped."]);
    assert.equal(h.items.at(-1), last, "shown in the chat");
    assert.equal(h.session.currentState, "ready");
    assert.equal(h.states.at(-1), "ready");

    assert.equal(await h.session.prompt(text("hello"), "hello", h.cwd), "end_turn");
    assert.equal(h.session.transcript.items.filter((i) => i.kind === "notice").length, 1, "only a cancelled turn says so");
  } finally {
    await h.session.stop();
  }
});
