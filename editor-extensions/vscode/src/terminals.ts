// terminal/*: each agent command runs as a child process; its output is shown live in a
// VS Code terminal (a Pseudoterminal) and collected for the agent.
import { spawn, type ChildProcess } from "node:child_process";
import * as vscode from "vscode";
import type {
  CreateTerminalRequest,
  CreateTerminalResponse,
  KillTerminalRequest,
  ReleaseTerminalRequest,
  TerminalExitStatus,
  TerminalOutputRequest,
  TerminalOutputResponse,
  WaitForTerminalExitRequest,
  WaitForTerminalExitResponse,
} from "@agentclientprotocol/sdk";
import { agentEnv } from "./agentProcess";
import type { TerminalHandler } from "./connection";
import { OutputBuffer } from "./text";

interface RunningCommand {
  child: ChildProcess;
  output: OutputBuffer;
  exitStatus: TerminalExitStatus | null;
  exited: Promise<TerminalExitStatus>;
  terminal: vscode.Terminal;
  write: vscode.EventEmitter<string>;
}

/** After the process exits, output still in the pipes is read for at most this long. */
export const EXIT_DRAIN_MS = 200;

/** Terminals show "\r\n" line ends. */
function forTerminal(text: string): string {
  return text.replace(/\r?\n/g, "\r\n");
}

export class VscodeTerminalHandler implements TerminalHandler {
  private readonly commands = new Map<string, RunningCommand>();
  private counter = 0;

  create(params: CreateTerminalRequest): Promise<CreateTerminalResponse> {
    this.counter += 1;
    const terminalId = `heron-${this.counter}`;
    const env = agentEnv(process.env);
    for (const variable of params.env ?? []) env[variable.name] = variable.value;
    // VS Code drops what a Pseudoterminal writes before open(): keep it until then.
    const write = new vscode.EventEmitter<string>();
    let beforeOpen: string[] | null = [];
    const show = (text: string): void => {
      if (beforeOpen) beforeOpen.push(text);
      else write.fire(text);
    };
    const pty: vscode.Pseudoterminal = {
      onDidWrite: write.event,
      open: () => {
        const pending = beforeOpen ?? [];
        beforeOpen = null;
        for (const text of pending) write.fire(text);
      },
      close: () => this.killById(terminalId),
    };
    const commandLine = [params.command, ...(params.args ?? [])].join(" ");
    const terminal = vscode.window.createTerminal({ name: `Heron: ${commandLine}`.slice(0, 60), pty });
    show(`\x1b[2m$ ${forTerminal(commandLine)}\x1b[0m\r\n`);

    const child = spawn(params.command, params.args ?? [], {
      cwd: params.cwd ?? undefined,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: process.platform !== "win32",
    });
    const output = new OutputBuffer(params.outputByteLimit ?? null);
    const onData = (data: Buffer): void => {
      output.append(data);
      show(forTerminal(data.toString("utf8")));
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    const running: RunningCommand = {
      child,
      output,
      exitStatus: null,
      terminal,
      write,
      exited: new Promise((resolve) => {
        const finish = (status: TerminalExitStatus, note: string): void => {
          if (running.exitStatus) return; // the first outcome wins (a spawn error's later close does not)
          running.exitStatus = status;
          show(`\r\n\x1b[2m[${note}]\x1b[0m\r\n`);
          resolve(status);
        };
        child.once("error", (err) => {
          onData(Buffer.from(`${err.message}\n`));
          finish({ exitCode: 127, signal: null }, "could not start");
        });
        // On exit, drain what is left in the pipes for a bounded time: a backgrounded grandchild
        // can hold them open for ever, so "close" alone may never come.
        child.once("exit", (code, signal) => {
          const status = { exitCode: code, signal };
          const note = `exit ${code ?? signal ?? "?"}`;
          const timer = setTimeout(() => finish(status, note), EXIT_DRAIN_MS);
          child.once("close", () => {
            clearTimeout(timer);
            finish(status, note);
          });
        });
      }),
    };
    this.commands.set(terminalId, running);
    terminal.show(true);
    return Promise.resolve({ terminalId });
  }

  output(params: TerminalOutputRequest): TerminalOutputResponse {
    const running = this.get(params.terminalId);
    return { output: running.output.text(), truncated: running.output.truncated, exitStatus: running.exitStatus };
  }

  async waitForExit(params: WaitForTerminalExitRequest): Promise<WaitForTerminalExitResponse> {
    const status = await this.get(params.terminalId).exited;
    return { exitCode: status.exitCode ?? null, signal: status.signal ?? null };
  }

  kill(params: KillTerminalRequest): void {
    this.get(params.terminalId);
    this.killById(params.terminalId);
  }

  /** Kills the command if it still runs and forgets it; the VS Code terminal stays for reading. */
  release(params: ReleaseTerminalRequest): void {
    this.get(params.terminalId);
    this.killById(params.terminalId);
    const running = this.commands.get(params.terminalId);
    running?.write.dispose();
    this.commands.delete(params.terminalId);
  }

  releaseAll(): void {
    for (const terminalId of [...this.commands.keys()]) this.release({ sessionId: "", terminalId });
  }

  /** Kills the command's whole process group: the shell and whatever it started (also after the shell exited). */
  private killById(terminalId: string): void {
    const running = this.commands.get(terminalId);
    if (!running || running.child.pid === undefined) return;
    if (process.platform !== "win32") {
      try {
        process.kill(-running.child.pid, "SIGKILL");
        return;
      } catch {
        // no such group any more
      }
    }
    if (!running.exitStatus) running.child.kill("SIGKILL");
  }

  private get(terminalId: string): RunningCommand {
    const running = this.commands.get(terminalId);
    if (!running) throw new Error(`unknown terminal ${terminalId}`);
    return running;
  }
}
