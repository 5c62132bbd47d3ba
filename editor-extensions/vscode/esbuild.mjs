// Bundles the extension (and, with --tests, the tests) into CommonJS for Node 20 / VS Code.
import { readdirSync } from "node:fs";
import { build } from "esbuild";

const common = {
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  external: ["vscode"],
  logLevel: "warning",
};

if (process.argv.includes("--tests")) {
  const entryPoints = readdirSync("test")
    .filter((name) => name.endsWith(".test.ts"))
    .map((name) => `test/${name}`);
  await build({ ...common, entryPoints, outdir: "out-test", sourcemap: "inline" });
} else {
  await build({ ...common, entryPoints: ["src/extension.ts"], outfile: "dist/extension.js", minify: false });
}
