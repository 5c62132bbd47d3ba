// The session controller against a scripted fake agent: one turn at a time, cancelling a turn
// for New/Load Session, stale permission requests, failed loads and prompts, a dying agent.
import "./installVscodeStub";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { RequestPermissionRequest, RequestPermissionResponse } from "@agentclientprotocol/sdk";
import { SessionController, TurnInProgressError, type SessionState } from "../src/session";
import { canStopSubagent, subagentStateLabel, type Item } from "../src/transcript";
import { fakeAgentCommand, NO_FS, noTerminals, until } from "./fakeAgent";

interface Harness {
  session: SessionController;
  states: SessionState[];
  modes: (string | null)[];
  traffic: string[];
  asked: { params: RequestPermissionRequest; signal: AbortSignal }[];
  released: { count: number };
  cwd: string;
}

/** `answer`: how the user answers permission questions; without it they stay open until the turn is cancelled. */
function harness(env: Record<string, string> = {}, answer?: (params: RequestPermissionRequest) => RequestPermissionResponse): Harness {
  const cwd = mkdtempSync(join(tmpdir(), "heron-session-"));
  const h: Omit<Harness, "session"> = { states: [], modes: [], traffic: [], asked: [], released: { count: 0 }, cwd };
  const session = new SessionController({
    agentCommand: () => fakeAgentCommand(cwd, env),
    initialMode: () => undefined,
    fs: NO_FS,
    terminals: noTerminals(() => {
      h.released.count += 1;
    }),
    permissions: {
      // Stays open until the turn is cancelled, like a user who has not answered yet.
      request: (params, signal): Promise<RequestPermissionResponse> => {
        h.asked.push({ params, signal });
        if (answer) return Promise.resolve(answer(params));
        return new Promise((resolve) => {
          const cancelled = (): void => resolve({ outcome: { outcome: "cancelled" } });
          if (signal.aborted) cancelled();
          else signal.addEventListener("abort", cancelled, { once: true });
        });
      },
    },
    log: { info: () => undefined, traffic: (d, l) => h.traffic.push(`${d} ${l}`) },
    listener: {
      onState: (s) => h.states.push(s),
      onItems: () => undefined,
      onReset: () => undefined,
      onMode: (m) => h.modes.push(m),
    },
  });
  return { ...h, session };
}

const text = (t: string) => [{ type: "text" as const, text: t }];

function agentText(session: SessionController): string {
  return session.transcript.items.map((i) => (i.kind === "agent" ? i.text : "")).join("");
}

test("a prompt while a turn runs is refused; New Session cancels the turn and waits for its answer", async () => {
  const h = harness();
  try {
    const first = h.session.prompt(text("hang"), "hang", h.cwd);
    await until("the turn to start", () => h.traffic.some((l) => l.includes('"session/prompt"')));
    assert.equal(h.session.busy, true);
    assert.equal(h.session.currentState, "working");
    await assert.rejects(h.session.prompt(text("again"), "again", h.cwd), TurnInProgressError);
    assert.equal(h.traffic.filter((l) => l.startsWith("->") && l.includes('"session/prompt"')).length, 1, "not sent");

    const oldSession = h.session.sessionId;
    const newId = await h.session.newSession(h.cwd);
    assert.equal(await first, "cancelled", "the running turn was cancelled and answered first");
    assert.ok(h.traffic.some((l) => l.startsWith("->") && l.includes('"session/cancel"') && l.includes(`"${oldSession}"`)));
    assert.notEqual(newId, oldSession);
    assert.equal(h.session.busy, false);
    assert.equal(h.session.currentState, "ready");
    assert.equal(await h.session.prompt(text("hello"), "hello", h.cwd), "end_turn");
  } finally {
    await h.session.stop();
  }
});

test("Load Session while a permission question is open cancels the turn and aborts the question", async () => {
  const h = harness();
  try {
    const first = h.session.prompt(text("wait"), "wait", h.cwd);
    await until("the permission question", () => h.asked.length === 1);
    assert.equal(h.session.currentState, "waiting");
    const sessionId = h.session.sessionId;
    assert.ok(sessionId);
    await h.session.loadSession(sessionId, h.cwd);
    assert.equal(h.asked[0]?.signal.aborted, true);
    assert.equal(await first, "cancelled");
    assert.equal(h.session.currentState, "ready");
    assert.equal(h.session.sessionId, sessionId);
  } finally {
    await h.session.stop();
  }
});

test("a permission request for another session is answered cancelled without asking", async () => {
  const h = harness();
  try {
    assert.equal(await h.session.prompt(text("other-session"), "other-session", h.cwd), "end_turn");
    assert.equal(h.asked.length, 0);
    assert.ok(agentText(h.session).includes('other: {"outcome":{"outcome":"cancelled"}}'), agentText(h.session));
  } finally {
    await h.session.stop();
  }
});

test("a subagent's call is asked about like any other, shown under its parent, and nested again on load", async () => {
  const allow = (): RequestPermissionResponse => ({ outcome: { outcome: "selected", optionId: "yes" } });
  const h = harness({}, allow);
  const shape = (items: readonly Item[]): unknown[] =>
    items.map((i) => (i.kind === "tool" ? [i.toolCallId, i.title, i.status, shape(i.children)] : [i.kind, "text" in i ? i.text : ""]));
  try {
    assert.equal(await h.session.prompt(text("subagent"), "subagent", h.cwd), "end_turn");
    assert.deepEqual(
      h.asked.map((a) => [a.params.toolCall.toolCallId, a.params.toolCall.title]),
      [["c1", "Run rm notes.bak"]],
      "the child's own id and title reach the prompter",
    );
    assert.ok(agentText(h.session).includes('subagent: {"outcome":{"outcome":"selected","optionId":"yes"}}'), agentText(h.session));
    const live = shape(h.session.transcript.items);
    assert.deepEqual(live, [
      ["user", "subagent"],
      [
        "d1",
        "Tidy the notes",
        "completed",
        [
          ["c1", "Run rm notes.bak", "completed", []],
          ["c2", "Read notes.md", "completed", []],
        ],
      ],
      ["agent", 'subagent: {"outcome":{"outcome":"selected","optionId":"yes"}}'],
    ]);

    const sessionId = h.session.sessionId;
    assert.ok(sessionId);
    await h.session.loadSession(sessionId, h.cwd);
    assert.deepEqual(shape(h.session.transcript.items), live, "the replay nests the same calls under the same parent");
  } finally {
    await h.session.stop();
  }
});

test("child sessions: the extension opts in, a subagent and its own are nested under their calls, live and on load", async () => {
  const h = harness();
  type Shape = [string, string, string | null, Shape[]];
  const shape = (items: readonly Item[]): Shape[] =>
    items.flatMap((i) => (i.kind === "tool" ? [[i.title, i.status, i.subagent ? subagentStateLabel(i.subagent) : null, shape(i.children)] satisfies Shape] : []));
  try {
    assert.equal(await h.session.prompt(text("children"), "children", h.cwd), "end_turn");
    const init = h.traffic.find((l) => l.startsWith("->") && l.includes('"initialize"')) ?? "";
    assert.ok(init.includes('"subagents":{}'), init);
    const live = shape(h.session.transcript.items);
    assert.deepEqual(live, [
      [
        "Find ALPHA",
        "completed",
        "done",
        [
          ["Read alpha.txt", "completed", null, []],
          ["Search deeper", "completed", "done", [["Grep ALPHA", "completed", null, []]]],
        ],
      ],
    ]);
    assert.deepEqual(
      h.session.transcript.items.map((i) => i.kind),
      ["user", "tool", "agent"],
      "the child's task, message and plan are not items of the parent",
    );
    const delegate = h.session.transcript.items[1];
    assert.ok(delegate?.kind === "tool" && delegate.subagent?.summary === "ALPHA is in alpha.txt.");

    const sessionId = h.session.sessionId;
    assert.ok(sessionId);
    await h.session.loadSession(sessionId, h.cwd);
    assert.deepEqual(shape(h.session.transcript.items), live, "replayed: the children after the parent's own updates, nested the same");
  } finally {
    await h.session.stop();
  }
});

test("Stop on a running subagent sends session/cancel with its id alone; the parent's turn goes on", async () => {
  const h = harness();
  try {
    const turn = h.session.prompt(text("stop-child"), "stop-child", h.cwd);
    await until("the child to run", () => h.session.transcript.subagent(`${h.session.sessionId ?? ""}-slow`)?.state === "running");
    const parent = h.session.sessionId ?? "";
    const child = `${parent}-slow`;
    assert.equal(await h.session.cancelSubagent("not-a-child"), false, "only a child of this session");
    assert.equal(await h.session.cancelSubagent(child), true);
    assert.equal(await turn, "end_turn", "the parent's turn was not cancelled");
    const cancels = h.traffic.filter((l) => l.startsWith("->") && l.includes('"session/cancel"'));
    assert.deepEqual(cancels.map((l) => (JSON.parse(l.slice(3)) as { params: unknown }).params), [{ sessionId: child }]);
    const view = h.session.transcript.subagent(child);
    assert.ok(view);
    assert.deepEqual([subagentStateLabel(view), canStopSubagent(view)], ["stopped", false]);
    assert.equal(await h.session.cancelSubagent(child), false, "not sent again once it has stopped");
    assert.ok(agentText(h.session).includes("going on"));
  } finally {
    await h.session.stop();
  }
});

test("a failed session/load leaves no session and a usable ready state", async () => {
  const h = harness();
  try {
    await h.session.newSession(h.cwd);
    await assert.rejects(h.session.loadSession("missing", h.cwd), /no such session/);
    assert.equal(h.session.sessionId, null);
    assert.equal(h.session.currentState, "ready");
    assert.equal(h.session.busy, false);
    assert.equal(await h.session.prompt(text("hello"), "hello", h.cwd), "end_turn", "the next prompt opens a session");
  } finally {
    await h.session.stop();
  }
});

test("session/load is not sent to an agent without the loadSession capability", async () => {
  const h = harness({ FAKE_NO_LOAD: "1" });
  try {
    await assert.rejects(h.session.loadSession("s1", h.cwd), /cannot load sessions/);
    assert.ok(!h.traffic.some((l) => l.includes('"session/load"')));
    assert.equal(h.session.currentState, "ready");
  } finally {
    await h.session.stop();
  }
});

test("a JSON-RPC error answering a prompt leaves the agent ready", async () => {
  const h = harness();
  try {
    await assert.rejects(h.session.prompt(text("fail"), "fail", h.cwd), /the model exploded/);
    assert.equal(h.session.currentState, "ready");
    assert.ok(!h.states.includes("error"), h.states.join(","));
    assert.equal(await h.session.prompt(text("hello"), "hello", h.cwd), "end_turn");
  } finally {
    await h.session.stop();
  }
});

test("an agent dying mid-turn: error state, unfinished tools failed, terminals released", async () => {
  const h = harness();
  try {
    await assert.rejects(h.session.prompt(text("die"), "die", h.cwd));
    await until("the error state", () => h.session.currentState === "error");
    const tools = h.session.transcript.items.flatMap((i) => (i.kind === "tool" ? [[i.toolCallId, i.status]] : []));
    assert.deepEqual(tools, [
      ["t9", "failed"],
      ["t8", "completed"],
    ]);
    assert.ok(h.released.count >= 1, "terminals released");
    assert.equal(h.session.busy, false);
    const notice = h.session.transcript.items.at(-1);
    assert.equal(notice?.kind === "notice" && `${notice.severity}: ${notice.title}`, "error: Heron stopped.");
    assert.match(notice?.kind === "notice" ? notice.description : "", /exited \(exit code \d+\).*next prompt starts it again/);
  } finally {
    await h.session.stop();
  }
});

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) Z/.test(stat); // a zombie is dead
  } catch {
    return false;
  }
}

test("stopping the agent also ends what it started (its process group)", { skip: !existsSync("/proc") }, async () => {
  const pidFile = join(mkdtempSync(join(tmpdir(), "heron-pid-")), "pid");
  const h = harness({ FAKE_PIDFILE: pidFile });
  await h.session.prompt(text("spawn"), "spawn", h.cwd);
  const pid = Number(readFileSync(pidFile, "utf8"));
  assert.ok(alive(pid));
  await h.session.stop();
  await until("the grandchild to end", () => !alive(pid), 5000);
});

test("current_mode_update from the agent changes the session's current mode", async () => {
  const h = harness();
  try {
    await h.session.prompt(text("mode"), "mode", h.cwd);
    assert.equal(h.session.modes?.currentModeId, "plan");
    assert.equal(h.session.transcript.currentModeId, "plan");
    assert.equal(h.modes.at(-1), "plan");
  } finally {
    await h.session.stop();
  }
});

const selection = [
  { type: "text" as const, text: "blocks" },
  { type: "resource" as const, resource: { uri: "file:///w/a.py#L3-4", mimeType: "text/x-python", text: "x = 1\n" } },
];

test("an embedded resource goes as text to an agent without embeddedContext", async () => {
  const h = harness();
  try {
    await h.session.prompt(selection, "blocks", h.cwd);
    const sent = JSON.parse(agentText(h.session)) as unknown;
    assert.deepEqual(sent, [
      { type: "text", text: "blocks" },
      { type: "text", text: "/w/a.py#L3-4:\n```\nx = 1\n```" },
    ]);
  } finally {
    await h.session.stop();
  }
});

test("an embedded resource is sent as it is when the agent takes embedded context", async () => {
  const h = harness({ FAKE_EMBEDDED: "1" });
  try {
    await h.session.prompt(selection, "blocks", h.cwd);
    assert.deepEqual(JSON.parse(agentText(h.session)), selection);
  } finally {
    await h.session.stop();
  }
});
