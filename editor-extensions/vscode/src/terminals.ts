// terminal/*: each agent command runs as a child process; its output is shown live in a
// VS Code terminal (a Pseudoterminal) and collected for the agent and for the chat's card.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
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
import { OutputBuffer, terminalName } from "./text";

interface RunningCommand {
  child: ChildProcess;
  output: OutputBuffer;
  exitStatus: TerminalExitStatus | null;
  exited: Promise<TerminalExitStatus>;
  terminal: CommandTerminal;
}

/**
 * The VS Code terminal a command is shown in; it outlives the command (and its release). It is
 * created once the agent's tool call that shows the command names it, or after `NAMING_WAIT_MS`
 * with the command line: VS Code keeps a terminal's first name (a pty's later name change only
 * keeps its first word), so the name must be right from the start.
 */
interface CommandTerminal {
  terminal: vscode.Terminal | null;
  write: vscode.EventEmitter<string>;
  /** Until VS Code opens the pty, what it would drop. */
  beforeOpen: string[] | null;
  /** Its name if no tool call names it: the command line. */
  fallbackName: string;
  /** Creates it with `fallbackName`, if no tool call has named it by then. */
  namingTimer: ReturnType<typeof setTimeout> | undefined;
  /** The user has closed it. */
  closed: boolean;
}

/** What the chat shows of a command: its output, and once it has exited, how. */
export interface CommandView {
  output: string;
  /** The start of the output was dropped (the agent's byte limit, or the chat's own). */
  truncated: boolean;
  exitStatus: TerminalExitStatus | null;
  /** Its VS Code terminal is still open (it can be shown). */
  terminalOpen: boolean;
}

/** After the process exits, output still in the pipes is read for at most this long. */
export const EXIT_DRAIN_MS = 200;
/** A released command's output is kept for the chat up to this many characters (the end). */
export const KEPT_OUTPUT_CHARS = 256 * 1024;
/** Released commands whose output is kept for the chat; the oldest are forgotten first. */
export const KEPT_COMMANDS = 200;

/** How long a command's terminal waits for the tool call that names it (it follows at once). */
export const NAMING_WAIT_MS = 300;

/** Terminals show "\r\n" line ends. */
function forTerminal(text: string): string {
  return text.replace(/\r?\n/g, "\r\n");
}

export class VscodeTerminalHandler implements TerminalHandler {
  private readonly commands = new Map<string, RunningCommand>();
  /** Every command's terminal, by terminal id, released or not (until the user closes it). */
  private readonly terminals = new Map<string, CommandTerminal>();
  /** Released commands, as the chat shows them. */
  private readonly released = new Map<string, CommandView>();
  private readonly changed = new vscode.EventEmitter<string>();
  /** Fired with a terminal id when its command printed, exited, or its terminal was closed. */
  readonly onDidChange = this.changed.event;
  /** Ids differ from one run of the extension to the next: a loaded session's old ids match nothing. */
  private readonly runTag = randomBytes(3).toString("hex");
  private counter = 0;

  /** `namingWaitMs`: how long a terminal waits for its name (see `CommandTerminal`). */
  constructor(private readonly namingWaitMs = NAMING_WAIT_MS) {}

  create(params: CreateTerminalRequest): Promise<CreateTerminalResponse> {
    this.counter += 1;
    const terminalId = `heron-${this.runTag}-${this.counter}`;
    const env = agentEnv(process.env);
    for (const variable of params.env ?? []) env[variable.name] = variable.value;
    const commandLine = [params.command, ...(params.args ?? [])].join(" ");
    const terminal = this.prepareTerminal(terminalId, terminalName(commandLine));
    const show = (text: string): void => {
      if (terminal.beforeOpen) terminal.beforeOpen.push(text);
      else terminal.write.fire(text);
    };
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
      this.changed.fire(terminalId);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    const running: RunningCommand = {
      child,
      output,
      exitStatus: null,
      terminal,
      exited: new Promise((resolve) => {
        const finish = (status: TerminalExitStatus, note: string): void => {
          if (running.exitStatus) return; // the first outcome wins (a spawn error's later close does not)
          running.exitStatus = status;
          show(`\r\n\x1b[2m[${note}]\x1b[0m\r\n`);
          this.changed.fire(terminalId);
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
    return Promise.resolve({ terminalId });
  }

  /** A command's terminal, not yet created: see `CommandTerminal`. */
  private prepareTerminal(terminalId: string, fallbackName: string): CommandTerminal {
    const shown: CommandTerminal = {
      terminal: null,
      write: new vscode.EventEmitter<string>(),
      beforeOpen: [],
      fallbackName,
      namingTimer: setTimeout(() => this.createTerminal(terminalId, fallbackName), this.namingWaitMs),
      closed: false,
    };
    this.terminals.set(terminalId, shown);
    return shown;
  }

  /** Creates the VS Code terminal of a command, once, and brings it to the front. */
  private createTerminal(terminalId: string, name: string): void {
    const shown = this.terminals.get(terminalId);
    if (!shown || shown.terminal) return;
    clearTimeout(shown.namingTimer);
    const pty: vscode.Pseudoterminal = {
      onDidWrite: shown.write.event,
      open: () => {
        const pending = shown.beforeOpen ?? [];
        shown.beforeOpen = null;
        for (const text of pending) shown.write.fire(text);
      },
      close: () => {
        shown.closed = true;
        this.killById(terminalId);
        shown.write.dispose();
        this.changed.fire(terminalId);
      },
    };
    shown.terminal = vscode.window.createTerminal({ name, pty });
    shown.terminal.show(true);
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

  /** Kills the command if it still runs and forgets it; the VS Code terminal stays for reading,
   * and the chat keeps its final output. */
  release(params: ReleaseTerminalRequest): void {
    const running = this.get(params.terminalId);
    this.killById(params.terminalId);
    this.show(params.terminalId, { focus: false }); // what ran stays to be read, named or not
    const output = running.output.text();
    this.released.set(params.terminalId, {
      output: output.slice(-KEPT_OUTPUT_CHARS),
      truncated: running.output.truncated || output.length > KEPT_OUTPUT_CHARS,
      exitStatus: running.exitStatus,
      terminalOpen: false,
    });
    for (const old of this.released.keys()) {
      if (this.released.size <= KEPT_COMMANDS) break;
      this.released.delete(old);
    }
    this.commands.delete(params.terminalId);
  }

  /** What the chat shows of a command, also after its release; undefined for an unknown id. */
  view(terminalId: string): CommandView | undefined {
    const terminalOpen = this.terminals.get(terminalId)?.closed === false;
    const running = this.commands.get(terminalId);
    if (running) {
      const { output, exitStatus } = running;
      return { output: output.text(), truncated: output.truncated, exitStatus, terminalOpen };
    }
    const released = this.released.get(terminalId);
    return released ? { ...released, terminalOpen } : undefined;
  }

  /** Names the command's terminal (after the tool call that shows it), if it has no name yet. */
  name(terminalId: string, name: string): void {
    this.createTerminal(terminalId, name);
  }

  /** Brings the command's terminal to the front (creating it if need be); false when it is gone. */
  show(terminalId: string, { focus = true } = {}): boolean {
    const shown = this.terminals.get(terminalId);
    if (!shown || shown.closed) return false;
    if (!shown.terminal) this.createTerminal(terminalId, shown.fallbackName);
    else if (focus) shown.terminal.show(false);
    return true;
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
