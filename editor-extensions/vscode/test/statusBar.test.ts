import "./installVscodeStub";
import assert from "node:assert/strict";
import { test } from "node:test";
import { StatusBar } from "../src/statusBar";
import { stub } from "./vscodeStub";

test("the status bar names the mode of a live session only", () => {
  const bar = new StatusBar();
  const item = stub.statusItems.at(-1);
  assert.ok(item);
  bar.show("ready", undefined, "ask");
  assert.equal(item.text, "$(check) Heron: ready (ask)");
  bar.show("waiting", undefined, "ask");
  assert.equal(item.text, "$(question) Heron: approval needed (ask)");
  bar.show("error", "the agent process exited", "ask");
  assert.equal(item.text, "$(error) Heron: error");
  assert.equal(item.tooltip, "Heron stopped with an error: the agent process exited");
  bar.dispose();
});
