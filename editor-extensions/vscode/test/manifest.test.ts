import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { test } from "node:test";
import { CLIENT_INFO } from "../src/connection";
import { heronSkip } from "./heronBin";
import { zipEntries } from "./zipEntries";

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

interface Published {
  name: string;
  displayName: string;
  description: string;
  version: string;
  publisher: string;
  license: string;
  private?: boolean;
  icon: string;
  engines: { vscode: string };
  repository: { type: string; url: string; directory?: string };
  homepage: string;
  bugs: { url: string };
  keywords: string[];
  galleryBanner: { color: string; theme: string };
  scripts: Record<string, string>;
  devDependencies: Record<string, string>;
}

const published = (): Published => JSON.parse(readFileSync("package.json", "utf8")) as Published;

/** Width and height from a PNG's IHDR chunk (it must come first, right after the signature). */
function pngSize(png: Buffer): [number, number] {
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "PNG signature");
  assert.equal(png.toString("ascii", 12, 16), "IHDR");
  return [png.readUInt32BE(16), png.readUInt32BE(20)];
}

test("the manifest has what the Marketplace and Open VSX need (ovsx publish: publisher, name, version, license)", () => {
  const manifest = published();
  assert.equal(manifest.publisher, "heron-agent");
  assert.equal(`${manifest.publisher}.${manifest.name}`, "heron-agent.heron-vscode");
  assert.match(manifest.version, /^\d+\.\d+\.\d+$/);
  for (const field of ["displayName", "description", "license", "homepage"] as const) {
    assert.ok(manifest[field].length > 0, field);
  }
  assert.ok(existsSync("LICENSE"), "a LICENSE file to package");
  assert.deepEqual(manifest.repository, {
    type: "git",
    url: "https://github.com/heron-agent/heron.git",
    directory: "editor-extensions/vscode",
  });
  assert.match(manifest.bugs.url, /^https:\/\/github\.com\/heron-agent\/heron\/issues$/);
  assert.ok(manifest.keywords.length > 0 && manifest.keywords.length <= 30, "vsce takes at most 30 keywords");
  assert.match(manifest.galleryBanner.color, /^#[0-9A-Fa-f]{6}$/);
  assert.ok(["dark", "light"].includes(manifest.galleryBanner.theme));
  assert.doesNotMatch(manifest.scripts.package ?? "", /allow-missing-repository/);
  assert.equal(CLIENT_INFO.version, manifest.version, "the version the agent is told in initialize");
});

test("the icon is a 128×128 PNG", () => {
  const manifest = published();
  assert.match(manifest.icon, /\.png$/, "the Marketplace refuses SVG icons");
  assert.deepEqual(pngSize(readFileSync(manifest.icon)), [128, 128]);
});

test("engines.vscode is not newer than the API the code is typed against, nor older", () => {
  const manifest = published();
  // vsce refuses a package whose @types/vscode is newer than engines.vscode; an older engine
  // would let VS Code versions install it that lack an API it calls.
  const engine = /^\^(\d+\.\d+)\.\d+$/.exec(manifest.engines.vscode)?.[1];
  const typed = /^(\d+\.\d+)\.\d+$/.exec(manifest.devDependencies["@types/vscode"] ?? "")?.[1];
  assert.ok(engine && typed, `${manifest.engines.vscode} / ${String(manifest.devDependencies["@types/vscode"])}`);
  assert.equal(engine, typed);
});

test("CHANGELOG.md has an entry for the current version", () => {
  const changelog = readFileSync("CHANGELOG.md", "utf8");
  assert.match(changelog, new RegExp(`^## \\[${published().version.replaceAll(".", "\\.")}\\] - \\d{4}-\\d{2}-\\d{2}$`, "m"));
});

test("the .vsix holds the manifest, readme, changelog, licence, icon and bundle, and no sources or tests", { timeout: 60_000 }, () => {
  if (!existsSync("dist/extension.js")) execFileSync(process.execPath, ["esbuild.mjs"]);
  const out = join(mkdtempSync(join(tmpdir(), "heron-vsix-")), "heron.vsix");
  // The vsce command of `npm run package`, writing to a temporary file instead of heron.vsix.
  const vsce = /\bvsce (.*) -o heron\.vsix$/.exec(published().scripts.package ?? "")?.[1]?.split(" ");
  assert.ok(vsce, "the package script ends with vsce ... -o heron.vsix");
  execFileSync(join("node_modules", ".bin", "vsce"), [...vsce, "-o", out], { stdio: "pipe" });
  const entries = zipEntries(readFileSync(out));
  // vsce stores README.md and CHANGELOG.md as readme.md and changelog.md; VS Code finds them so.
  const names = [...entries.keys()].map((n) => n.toLowerCase());
  for (const wanted of ["extension/package.json", "extension/readme.md", "extension/changelog.md", "extension/media/icon.png", "extension/dist/extension.js"]) {
    assert.ok(names.includes(wanted), `${wanted} in ${names.join(", ")}`);
  }
  assert.ok(names.includes("extension/license.txt") || names.includes("extension/license"), "the licence");
  assert.deepEqual(
    names.filter((n) => /^extension\/(src|test|scripts|node_modules|out-test)\//.test(n) || n.endsWith(".ts")),
    [],
  );
  const packaged = JSON.parse(entries.get("extension/package.json")?.toString("utf8") ?? "{}") as Published;
  assert.equal(packaged.version, published().version);
  // Relative links in the readme point into this folder of the repository, not its root.
  const readme = entries.get("extension/readme.md")?.toString("utf8") ?? "";
  const links = [...readme.matchAll(/\]\((https:\/\/github\.com\/heron-agent\/heron\/[^)]*)\)/g)].map((m) => m[1]);
  assert.ok(links.includes("https://github.com/heron-agent/heron/blob/HEAD/editor-extensions/vscode/CHANGELOG.md"), links.join(" "));
  const vsixManifest = entries.get("extension.vsixmanifest")?.toString("utf8") ?? "";
  assert.match(vsixManifest, /<Identity [^>]*Id="heron-vscode" Version="[\d.]+" Publisher="heron-agent"/);
  assert.match(vsixManifest, /<Icon>extension\/media\/icon\.png<\/Icon>/);
  assert.match(vsixManifest, /Microsoft\.VisualStudio\.Services\.Links\.Source" Value="https:\/\/github\.com\/heron-agent\/heron\.git"/);
  assert.deepEqual(pngSize(entries.get("extension/media/icon.png") ?? Buffer.alloc(0)), [128, 128]);
});
