// What the agent has said about the session shown, beside its conversation: its modes and config
// options (the mode kept the same in both), its title, and the workspace's recent sessions. No
// I/O: the session controller feeds it the agent's answers and updates.
import type { SessionConfigOption, SessionInfo, SessionModeState } from "@agentclientprotocol/sdk";
import { MODES_CONFIG_ID } from "./header";

/** What `session/new` and `session/load` answer about a session's options. */
export interface SessionSetup {
  modes?: SessionModeState | null;
  configOptions?: SessionConfigOption[] | null;
}

export class SessionDetails {
  modes: SessionModeState | null = null;
  configOptions: SessionConfigOption[] = [];
  /** From `session_info_update`; null: none heard of for this session. */
  title: string | null = null;
  /** From the last `session/list`. */
  sessions: SessionInfo[] = [];

  /** Another session is shown, or none: nothing is known of it yet. */
  open(): void {
    this.modes = null;
    this.configOptions = [];
    this.title = null;
  }

  /** What `session/new` or `session/load` answered about the session's options. */
  setUp(setup: SessionSetup): void {
    this.modes = setup.modes ?? null;
    this.configOptions = setup.configOptions ?? [];
  }

  /** The current mode: as the config options say, else as the modes say. */
  get currentMode(): string | null {
    return modeFromOptions(this.configOptions) ?? this.modes?.currentModeId ?? null;
  }

  setMode(modeId: string): void {
    if (this.modes) this.modes = { ...this.modes, currentModeId: modeId };
    this.configOptions = this.configOptions.map((o) => (o.type === "select" && isModeOption(o) ? { ...o, currentValue: modeId } : o));
  }

  /** All of the session's config options, as the agent sent them again; the modes follow their mode. */
  setConfigOptions(options: SessionConfigOption[]): void {
    this.configOptions = options;
    const mode = modeFromOptions(options);
    if (mode !== null && this.modes) this.modes = { ...this.modes, currentModeId: mode };
  }
}

/** Whether this config option is the session's mode (ACP's `mode` category, or Heron's `mode` id). */
export function isModeOption(option: SessionConfigOption): boolean {
  return option.category === "mode" || (option.category == null && option.id === MODES_CONFIG_ID);
}

/** The mode the config options say is current; null when none of them is the mode. */
export function modeFromOptions(options: readonly SessionConfigOption[]): string | null {
  const mode = options.find((o) => o.type === "select" && isModeOption(o));
  return mode?.type === "select" ? mode.currentValue : null;
}
