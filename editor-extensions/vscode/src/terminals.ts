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
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const variable of params.env ?? []) env[variable.name] = variable.value;
    const write = new vscode.EventEmitter<string>();
    const pty: vscode.Pseudoterminal = {
      onDidWrite: write.event,
      open: () => undefined,
      close: () => this.killById(terminalId),
    };
    const commandLine = [params.command, ...(params.args ?? [])].join(" ");
    const terminal = vscode.window.createTerminal({ name: `Heron: ${commandLine}`.slice(0, 60), pty });
    write.fire(`\x1b[2m$ ${forTerminal(commandLine)}\x1b[0m\r\n`);

    const child = spawn(params.command, params.args ?? [], {
      cwd: params.cwd ?? undefined,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: process.platform !== "win32",
    });
    const output = new OutputBuffer(params.outputByteLimit ?? null);
    const onData = (data: Buffer): void => {
      output.append(data);
      write.fire(forTerminal(data.toString("utf8")));
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
        child.once("error", (err) => {
          onData(Buffer.from(`${err.message}\n`));
          running.exitStatus = { exitCode: 127, signal: null };
          resolve(running.exitStatus);
        });
        child.once("close", (code, signal) => {
          running.exitStatus = { exitCode: code, signal };
          write.fire(`\r\n\x1b[2m[exit ${code ?? signal ?? "?"}]\x1b[0m\r\n`);
          resolve(running.exitStatus);
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

  private killById(terminalId: string): void {
    const running = this.commands.get(terminalId);
    if (!running || running.exitStatus || running.child.pid === undefined) return;
    try {
      // The whole process group: the shell and whatever it started.
      if (process.platform !== "win32") process.kill(-running.child.pid, "SIGKILL");
      else running.child.kill("SIGKILL");
    } catch {
      running.child.kill("SIGKILL");
    }
  }

  private get(terminalId: string): RunningCommand {
    const running = this.commands.get(terminalId);
    if (!running) throw new Error(`unknown terminal ${terminalId}`);
    return running;
  }
}
