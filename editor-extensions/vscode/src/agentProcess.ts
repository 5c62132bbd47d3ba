// Starts `heron acp` in its own process group and stops it again, with everything it started
// (MCP servers, commands): SIGTERM to the group, then SIGKILL after a grace period.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import type { Log } from "./log";

export interface AgentCommand {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export const KILL_GRACE_MS = 3000;

/**
 * The environment for the agent and the commands it runs: the extension host's, without the
 * variables that make a child act as (or debug) VS Code's own Node/Electron.
 */
export function agentEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) {
    if (name === "ELECTRON_RUN_AS_NODE" || name === "NODE_OPTIONS" || name.startsWith("VSCODE_")) continue;
    env[name] = value;
  }
  return env;
}

export class AgentProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** Resolves when the process has exited (or failed to start). */
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  private hasExited = false;

  constructor(spec: AgentCommand, log: Log) {
    log.info(`starting: ${spec.command} ${spec.args.join(" ")} (cwd ${spec.cwd})`);
    this.child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: spec.env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: process.platform !== "win32", // its own process group, so stop() reaches its children
    });
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (chunk: string) => {
      for (const line of chunk.split("\n")) if (line.trim() !== "") log.info(`[heron] ${line}`);
    });
    this.child.stdin.on("error", (err) => log.info(`agent stdin: ${err.message}`));
    this.exited = new Promise((resolve) => {
      this.child.once("error", (err) => {
        log.info(`could not start ${spec.command}: ${err.message}`);
        this.hasExited = true;
        resolve({ code: null, signal: null });
      });
      this.child.once("exit", (code, signal) => {
        log.info(`agent exited (code ${code}, signal ${signal})`);
        this.hasExited = true;
        resolve({ code, signal });
      });
    });
  }

  get running(): boolean {
    return !this.hasExited;
  }

  /** SIGTERM to the agent's process group, then SIGKILL if the agent is still there after `graceMs`. */
  async stop(graceMs = KILL_GRACE_MS): Promise<void> {
    if (!this.running) {
      this.signalGroup("SIGKILL"); // the agent is gone; anything it left in its group goes too
      return;
    }
    this.child.stdin.end();
    this.signalGroup("SIGTERM");
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), graceMs);
    });
    const result = await Promise.race([this.exited, timedOut]);
    clearTimeout(timer);
    if (result === "timeout") {
      this.signalGroup("SIGKILL");
      await this.exited;
    } else {
      this.signalGroup("SIGKILL"); // children that outlived the agent
    }
  }

  private signalGroup(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    if (process.platform !== "win32") {
      try {
        process.kill(-pid, signal);
        return;
      } catch {
        // the group is gone already; fall back to the process itself
      }
    }
    if (this.running) this.child.kill(signal);
  }
}
