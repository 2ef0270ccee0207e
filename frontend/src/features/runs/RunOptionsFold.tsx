import type { Agent, PermissionMode as Mode, StartRun } from "../../api/types";
import type { RunOptions } from "./runOptions";

// What each permission mode lets run without asking, for the mode picker.
const modes: { value: Mode; label: string }[] = [
  { value: "ask", label: "ask: reads run, everything else asks" },
  { value: "edits", label: "edits: reads and workspace writes run" },
  { value: "plan", label: "plan: read-only tools only" },
  { value: "auto", label: "auto: everything runs (still confined)" },
];

// The sandbox overrides a run can make, for the commands picker; "" keeps
// the agent's settings.
export const sandboxes: { value: string; label: string; set: Pick<StartRun, "sandbox" | "sandbox_network"> }[] = [
  { value: "on", label: "sandboxed, no network", set: { sandbox: "on", sandbox_network: "off" } },
  { value: "on+net", label: "sandboxed, with the network", set: { sandbox: "on", sandbox_network: "on" } },
  { value: "off", label: "not sandboxed (they see your files and keys)", set: { sandbox: "off" } },
];

type Props = {
  agent: Agent | undefined;
  options: RunOptions;
  onOptions: (o: RunOptions) => void;
  mode: Mode | "";
  onMode: (m: Mode | "") => void;
  sandbox: string;
  onSandbox: (s: string) => void;
};

// RunOptionsFold is what a run may override of its agent: model, budgets,
// permission mode, command sandbox and breakpoints. Closed by default, so
// the form stays short; its summary counts what is set, so a person sees an
// override they made before they start.
export function RunOptionsFold({ agent, options, onOptions, mode, onMode, sandbox, onSandbox }: Props) {
  const set = (patch: Partial<RunOptions>) => onOptions({ ...options, ...patch });
  const own = new Set(agent?.break_before ?? []);
  // A script answers as written: the server refuses a model for it.
  const scripted = agent?.effective_provider === "script";
  const count =
    [options.model, options.maxSteps, options.maxTokens, options.maxCostUSD, options.maxWallMinutes, mode, sandbox].filter((v) => v.trim() !== "").length +
    options.breakBefore.length;
  // step="any": the browser's own step check would block the submit without
  // naming the field; overrides() names it.
  const budget = (label: string, key: "maxSteps" | "maxTokens" | "maxCostUSD" | "maxWallMinutes", agentValue: string) => (
    <label className="field">
      <span>{label}</span>
      <input
        aria-label={label}
        type="number"
        min="0"
        step="any"
        inputMode="decimal"
        value={options[key]}
        placeholder={agentValue ? `the agent's: ${agentValue}` : "no limit"}
        onChange={(e) => set({ [key]: e.target.value })}
      />
    </label>
  );
  return (
    <details className="run-options" data-testid="run-options">
      <summary>
        Options{count > 0 && <span className="run-options-count"> ({count} set)</span>}
      </summary>
      <label className="field">
        <span>Model</span>
        <input
          aria-label="Model"
          value={options.model}
          disabled={scripted}
          placeholder={scripted ? "a script takes no model" : agent?.effective_model ? `the agent's: ${agent.effective_model}` : "the agent's"}
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => set({ model: e.target.value })}
        />
      </label>
      <fieldset className="run-budgets">
        <legend>Budgets (the run pauses when one is spent)</legend>
        {budget("Max steps", "maxSteps", agent?.max_steps ? String(agent.max_steps) : "")}
        {budget("Max tokens", "maxTokens", agent?.max_tokens ? String(agent.max_tokens) : "")}
        {budget("Max cost (USD)", "maxCostUSD", agent?.max_cost_usd ? String(agent.max_cost_usd) : "")}
        {budget("Max wall time (minutes)", "maxWallMinutes", agent?.max_wall_time ?? "")}
      </fieldset>
      <label className="field">
        <span>Permissions</span>
        <select aria-label="Permission mode" value={mode} onChange={(e) => onMode(e.target.value as Mode | "")}>
          <option value="">{agent ? `the agent's (${agent.mode})` : "the agent's"}</option>
          {modes.map((m) => (
            <option key={m.value} value={m.value}>
              {m.label}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span>Commands</span>
        <select aria-label="Command sandbox" value={sandbox} onChange={(e) => onSandbox(e.target.value)}>
          <option value="">
            {agent ? `the agent's (${agent.sandbox ?? "auto"}, network ${agent.sandbox_network ?? "off"})` : "the agent's"}
          </option>
          {sandboxes.map((b) => (
            <option key={b.value} value={b.value}>
              {b.label}
            </option>
          ))}
        </select>
      </label>
      <fieldset className="run-breakpoints">
        <legend>Pause before</legend>
        {(agent?.tools ?? []).length === 0 && <span className="muted">The agent has no tools.</span>}
        {(agent?.tools ?? []).map((tool) => (
          <label key={tool} className="run-breakpoint" title={own.has(tool) ? "The agent pauses before it already" : undefined}>
            <input
              type="checkbox"
              aria-label={`Pause before ${tool}`}
              checked={own.has(tool) || options.breakBefore.includes(tool)}
              disabled={own.has(tool)}
              onChange={(e) =>
                set({ breakBefore: e.target.checked ? [...options.breakBefore, tool] : options.breakBefore.filter((t) => t !== tool) })
              }
            />
            <code>{tool}</code>
          </label>
        ))}
      </fieldset>
    </details>
  );
}
