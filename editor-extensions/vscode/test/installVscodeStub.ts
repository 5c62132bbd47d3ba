// Answers `require("vscode")` with the stub. Imported first by every test that loads product code.
import Module from "node:module";
import * as vscodeStub from "./vscodeStub";

type Loader = (request: string, parent: unknown, isMain: boolean) => unknown;
const moduleInternals = Module as unknown as { _load: Loader };
const originalLoad = moduleInternals._load;
moduleInternals._load = function (this: unknown, request: string, parent: unknown, isMain: boolean): unknown {
  if (request === "vscode") return vscodeStub;
  return originalLoad.call(this, request, parent, isMain);
};
