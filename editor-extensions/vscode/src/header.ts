// What the chat view's header shows: a session picker, and a picker for each `select` config
// option of the session. Pure: from the protocol's shapes (ACP session infos, config options,
// modes) to plain data the webview draws with DOM APIs.
import type {
  SessionConfigOption,
  SessionConfigSelectGroup,
  SessionConfigSelectOption,
  SessionInfo,
  SessionModeState,
} from "@agentclientprotocol/sdk";

/** What the session controller knows that the header shows. */
export interface HeaderState {
  /** The session shown; null: none open yet. */
  sessionId: string | null;
  /** The current session's title from `session_info_update`; null: none heard of. */
  title: string | null;
  /** The workspace's recent sessions from `session/list` (empty when the agent cannot list). */
  sessions: readonly SessionInfo[];
  configOptions: readonly SessionConfigOption[];
  /** The session's modes: the mode picker when the agent sends no config options. */
  modes: SessionModeState | null;
}

export interface ChoiceView {
  value: string;
  label: string;
  /** A tooltip. */
  description: string;
}

export interface ChoiceGroupView {
  group: string;
  choices: ChoiceView[];
}

export interface PickerView {
  /** The `<select>`'s DOM id. */
  id: string;
  /** What `setOption` names: the config option's id (`mode` for the modes fallback). */
  configId: string;
  label: string;
  description: string;
  value: string;
  choices: (ChoiceView | ChoiceGroupView)[];
}

export interface HeaderView {
  /** The session selected in the picker: NEW_SESSION when none is open. */
  sessionId: string;
  sessions: ChoiceView[];
  pickers: PickerView[];
  /** The pickers work only while a session is open. */
  enabled: boolean;
}

/** The session picker's first choice: starts a new session. */
export const NEW_SESSION = "";
/** The config id the mode picker sends when it stands for the session's modes. */
export const MODES_CONFIG_ID = "mode";

/** DOM ids the webview's HTML has from the start; other options get `option-<id>`. */
const FIXED_PICKER_IDS: Record<string, string> = { mode: "mode-select", model: "model-select" };

export function pickerDomId(configId: string): string {
  return FIXED_PICKER_IDS[configId] ?? `option-${configId}`;
}

/** A session id short enough for a narrow picker. */
export function shortSessionId(sessionId: string): string {
  return sessionId.length > 8 ? `${sessionId.slice(0, 8)}…` : sessionId;
}

export function toHeaderView(state: HeaderState): HeaderView {
  return {
    sessionId: state.sessionId ?? NEW_SESSION,
    sessions: toSessionChoices(state),
    pickers: toPickers(state),
    enabled: state.sessionId !== null,
  };
}

/** "New session", then the current session when the list lacks it, then the listed ones. */
export function toSessionChoices(state: HeaderState): ChoiceView[] {
  const choice = (info: Pick<SessionInfo, "sessionId" | "title">): ChoiceView => {
    const title = info.sessionId === state.sessionId ? (state.title ?? info.title) : info.title;
    return { value: info.sessionId, label: title || shortSessionId(info.sessionId), description: info.sessionId };
  };
  const choices: ChoiceView[] = [{ value: NEW_SESSION, label: "New session", description: "Start a new session" }];
  const current = state.sessionId;
  if (current !== null && !state.sessions.some((s) => s.sessionId === current)) {
    choices.push(choice({ sessionId: current, title: null }));
  }
  for (const info of state.sessions) choices.push(choice(info));
  return choices;
}

/** A picker per `select` config option, in the agent's order; the modes without any. */
export function toPickers(state: HeaderState): PickerView[] {
  if (state.configOptions.length === 0) return state.modes ? [modesPicker(state.modes)] : [];
  return state.configOptions.flatMap((option) => (option.type === "select" ? [selectPicker(option)] : []));
}

function selectPicker(option: SessionConfigOption & { type: "select" }): PickerView {
  const choices = option.options.map((entry) =>
    isGroup(entry) ? { group: entry.name, choices: entry.options.map(toChoice) } : toChoice(entry),
  );
  const known = choices.some((c) => ("group" in c ? c.choices.some((g) => g.value === option.currentValue) : c.value === option.currentValue));
  // A current value the agent did not list is still what the session uses: show it.
  if (!known) choices.unshift({ value: option.currentValue, label: option.currentValue, description: "" });
  return {
    id: pickerDomId(option.id),
    configId: option.id,
    label: option.name,
    description: option.description ?? "",
    value: option.currentValue,
    choices,
  };
}

function modesPicker(modes: SessionModeState): PickerView {
  const choices = modes.availableModes.map((m) => ({ value: m.id, label: m.name, description: m.description ?? "" }));
  return {
    id: pickerDomId(MODES_CONFIG_ID),
    configId: MODES_CONFIG_ID,
    label: "Approval mode",
    description: "",
    value: modes.currentModeId,
    choices,
  };
}

function isGroup(entry: SessionConfigSelectOption | SessionConfigSelectGroup): entry is SessionConfigSelectGroup {
  return "group" in entry;
}

function toChoice(option: SessionConfigSelectOption): ChoiceView {
  return { value: option.value, label: option.name, description: option.description ?? "" };
}
