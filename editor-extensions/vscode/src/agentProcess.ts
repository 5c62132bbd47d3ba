// Starts `heron acp` and stops it again (SIGTERM, then SIGKILL after a grace period).
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import type { Log } from "./log";

export interface AgentCommand {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export const KILL_GRACE_MS = 3000;

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

  /** SIGTERM, then SIGKILL if the agent is still there after `graceMs`. */
  async stop(graceMs = KILL_GRACE_MS): Promise<void> {
    if (!this.running) return;
    this.child.stdin.end();
    this.child.kill("SIGTERM");
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), graceMs);
    });
    const result = await Promise.race([this.exited, timedOut]);
    clearTimeout(timer);
    if (result === "timeout") {
      this.child.kill("SIGKILL");
      await this.exited;
    }
  }
}
