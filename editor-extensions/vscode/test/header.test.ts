// The header's pure parts: ACP session infos and config options to what the webview shows, the
// session details kept in step, and the usage line.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionConfigOption } from "@agentclientprotocol/sdk";
import { pickerDomId, shortSessionId, toHeaderView, type HeaderState } from "../src/header";
import { modeFromOptions, SessionDetails } from "../src/sessionDetails";
import { formatCost, toUsageView } from "../src/usage";

const MODE: SessionConfigOption = {
  id: "mode",
  name: "Approval mode",
  description: "What the agent may do without asking",
  category: "mode",
  type: "select",
  currentValue: "ask",
  options: [
    { value: "ask", name: "Ask", description: "Edits and commands need approval" },
    { value: "plan", name: "Plan" },
  ],
};
const MODEL: SessionConfigOption = {
  id: "model",
  name: "Model",
  category: "model",
  type: "select",
  currentValue: "anthropic:claude-sonnet-4-5",
  options: [
    { group: "anthropic", name: "Anthropic", options: [{ value: "anthropic:claude-sonnet-4-5", name: "claude-sonnet-4-5", description: "In use" }] },
    { group: "openai", name: "OpenAI", options: [{ value: "openai:gpt-5", name: "gpt-5" }] },
  ],
};
const THINKING: SessionConfigOption = {
  id: "thought_level",
  name: "Thinking",
  type: "select",
  currentValue: "default",
  options: [
    { value: "default", name: "Model default" },
    { value: "high", name: "High" },
  ],
};
const BOOLEAN: SessionConfigOption = { id: "fast", name: "Fast", type: "boolean", currentValue: true };

function state(over: Partial<HeaderState> = {}): HeaderState {
  return { sessionId: null, title: null, sessions: [], configOptions: [], modes: null, ...over };
}

test("no session: only New session, selected; no pickers, and they are disabled", () => {
  assert.deepEqual(toHeaderView(state()), {
    sessionId: "",
    sessions: [{ value: "", label: "New session", description: "Start a new session" }],
    pickers: [],
    enabled: false,
  });
});

test("the session picker: New session, then the listed sessions by title or a short id; the current one selected", () => {
  const view = toHeaderView(
    state({
      sessionId: "0123456789abcdef",
      sessions: [
        { sessionId: "0123456789abcdef", cwd: "/w", title: "Fix the greeting" },
        { sessionId: "fedcba9876543210", cwd: "/w", title: null },
        { sessionId: "s3", cwd: "/w" },
      ],
    }),
  );
  assert.equal(view.sessionId, "0123456789abcdef");
  assert.deepEqual(
    view.sessions.map((s) => [s.value, s.label]),
    [
      ["", "New session"],
      ["0123456789abcdef", "Fix the greeting"],
      ["fedcba9876543210", "fedcba98…"],
      ["s3", "s3"],
    ],
  );
  assert.equal(view.sessions[2]?.description, "fedcba9876543210", "the whole id as the tooltip");
  assert.equal(view.enabled, true);
});

test("the current session's title from session_info_update wins over the listed one; an unlisted current session is shown second", () => {
  const listed = state({ sessionId: "a", title: "New title", sessions: [{ sessionId: "a", cwd: "/w", title: "Old title" }] });
  assert.deepEqual(toHeaderView(listed).sessions.map((s) => s.label), ["New session", "New title"]);
  const unlisted = state({ sessionId: "b", title: null, sessions: [{ sessionId: "a", cwd: "/w", title: "Other" }] });
  assert.deepEqual(toHeaderView(unlisted).sessions.map((s) => [s.value, s.label]), [
    ["", "New session"],
    ["b", "b"],
    ["a", "Other"],
  ]);
  const titled = state({ sessionId: "b", title: "Just named", sessions: [] });
  assert.deepEqual(toHeaderView(titled).sessions.map((s) => s.label), ["New session", "Just named"], "an agent that cannot list");
});

test("a picker per select config option, in the agent's order, with fixed ids for mode and model; groups kept", () => {
  const view = toHeaderView(state({ sessionId: "a", configOptions: [MODEL, BOOLEAN, MODE, THINKING] }));
  assert.deepEqual(
    view.pickers.map((p) => [p.id, p.configId, p.label, p.value]),
    [
      ["model-select", "model", "Model", "anthropic:claude-sonnet-4-5"],
      ["mode-select", "mode", "Approval mode", "ask"],
      ["option-thought_level", "thought_level", "Thinking", "default"],
    ],
  );
  assert.deepEqual(view.pickers[0]?.choices, [
    { group: "Anthropic", choices: [{ value: "anthropic:claude-sonnet-4-5", label: "claude-sonnet-4-5", description: "In use" }] },
    { group: "OpenAI", choices: [{ value: "openai:gpt-5", label: "gpt-5", description: "" }] },
  ]);
  assert.deepEqual(view.pickers[1]?.choices[0], { value: "ask", label: "Ask", description: "Edits and commands need approval" });
  assert.equal(view.pickers[1].description, "What the agent may do without asking");
  assert.equal(pickerDomId("x y"), "option-x y");
});

test("a current value the agent does not list is still shown, first", () => {
  const odd: SessionConfigOption = { ...MODE, currentValue: "custom" };
  const picker = toHeaderView(state({ sessionId: "a", configOptions: [odd] })).pickers[0];
  assert.deepEqual(picker?.choices.map((c) => ("value" in c ? c.value : c.group)), ["custom", "ask", "plan"]);
});

test("without config options the session's modes make the mode picker; config options win over modes", () => {
  const modes = { currentModeId: "plan", availableModes: [{ id: "ask", name: "Ask" }, { id: "plan", name: "Plan", description: "Read-only" }] };
  const view = toHeaderView(state({ sessionId: "a", modes }));
  assert.deepEqual(view.pickers, [
    {
      id: "mode-select",
      configId: "mode",
      label: "Approval mode",
      description: "",
      value: "plan",
      choices: [
        { value: "ask", label: "Ask", description: "" },
        { value: "plan", label: "Plan", description: "Read-only" },
      ],
    },
  ]);
  assert.deepEqual(toHeaderView(state({ sessionId: "a", modes, configOptions: [MODEL] })).pickers.map((p) => p.id), ["model-select"]);
});

test("session details keep the mode the same in the modes and the mode option", () => {
  const details = new SessionDetails();
  details.setUp({ modes: { currentModeId: "ask", availableModes: [] }, configOptions: [MODE, MODEL] });
  assert.equal(details.currentMode, "ask");
  details.setMode("plan");
  assert.equal(modeFromOptions(details.configOptions), "plan");
  assert.equal(details.modes?.currentModeId, "plan");
  assert.equal(MODE.currentValue, "ask", "the agent's objects are not changed");
  details.setConfigOptions([{ ...MODE, currentValue: "ask" }, MODEL, THINKING]);
  assert.equal(details.modes.currentModeId, "ask");
  assert.equal(details.configOptions.length, 3);
  details.title = "T";
  details.open();
  assert.deepEqual([details.modes, details.configOptions, details.title, details.currentMode], [null, [], null, null]);
  assert.equal(modeFromOptions([{ ...MODEL, category: null, id: "mode" }]), "anthropic:claude-sonnet-4-5", "Heron's id without a category");
});

test("the usage line: tokens used of the window with a percentage, and the cost when reported", () => {
  assert.equal(toUsageView(null), null);
  assert.deepEqual(toUsageView({ used: 12345, size: 200000, cost: { amount: 0.0123, currency: "USD" } }), {
    text: "12,345 / 200,000 tokens (6%) · $0.0123",
    label: "Context: 12,345 of 200,000 tokens used (6%). Cost: $0.0123",
  });
  assert.deepEqual(toUsageView({ used: 10, size: 0, cost: null }), { text: "10 / 0 tokens", label: "Context: 10 of 0 tokens used." });
  assert.equal(formatCost(1.5, "USD"), "$1.50");
  assert.equal(formatCost(0.004, "EUR"), "€0.0040");
  assert.equal(formatCost(0.5, "credits"), "0.5000 credits", "not an ISO code");
  assert.equal(shortSessionId("12345678"), "12345678");
});
