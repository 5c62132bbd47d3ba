import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { test } from "node:test";
import { heronSkip } from "./heronBin";

interface Manifest {
  capabilities?: { untrustedWorkspaces?: { supported: unknown; description?: unknown } };
  contributes: { configuration: { properties: Record<string, { scope?: string }> } };
}

test("settings that choose what runs are machine-scoped, and untrusted workspaces are not supported", () => {
  const manifest = JSON.parse(readFileSync("package.json", "utf8")) as Manifest;
  const props = manifest.contributes.configuration.properties;
  for (const key of ["heron.path", "heron.mode", "heron.model"]) {
    assert.equal(props[key]?.scope, "machine", `${key} must not be settable by a workspace`);
  }
  const untrusted = manifest.capabilities?.untrustedWorkspaces;
  assert.equal(untrusted?.supported, false);
  assert.equal(typeof untrusted.description, "string");
  assert.ok(String(untrusted.description).length > 10);
});

test("a missing heron skips the integration tests locally but fails them on CI", () => {
  const missing = join(tmpdir(), "no-such-heron-for-tests");
  assert.match(String(heronSkip(missing, {})), /heron not found/);
  assert.throws(() => heronSkip(missing, { CI: "true" }), /CI is set/);
  assert.equal(heronSkip(process.execPath, { CI: "true" }), false);
});
