import { useId, useState, type FormEvent } from "react";
import { useApp, useServices } from "../../store/context";
import { DemoLabel } from "../../ui/StatusBadge";
import { errorMessage } from "../../ui/format";
import type { PermissionMode as Mode, StartRun } from "../../api/types";
import { WorkspaceField } from "./WorkspaceField";
import { ProjectReview } from "./ProjectReview";

// What each permission mode lets run without asking, for the mode picker.
const modes: { value: Mode; label: string }[] = [
  { value: "ask", label: "ask: reads run, everything else asks" },
  { value: "edits", label: "edits: reads and workspace writes run" },
  { value: "plan", label: "plan: read-only tools only" },
  { value: "auto", label: "auto: everything runs (still confined)" },
];

// The sandbox overrides a run can make, for the commands picker; "" keeps
// the agent's settings.
const sandboxes: { value: string; label: string; set: Pick<StartRun, "sandbox" | "sandbox_network"> }[] = [
  { value: "on", label: "sandboxed, no network", set: { sandbox: "on", sandbox_network: "off" } },
  { value: "on+net", label: "sandboxed, with the network", set: { sandbox: "on", sandbox_network: "on" } },
  { value: "off", label: "not sandboxed (they see your files and keys)", set: { sandbox: "off" } },
];

// NewRunForm starts a run of an agent on a workspace, then selects it.
export function NewRunForm() {
  const { api, refreshLists } = useServices();
  const agents = useApp((s) => s.agents);
  const info = useApp((s) => s.info);
  const addRun = useApp((s) => s.addRun);
  const select = useApp((s) => s.select);

  // null until the person picks or types: then the defaults from the server apply.
  const [agentId, setAgentId] = useState<string | null>(null);
  const [workspace, setWorkspace] = useState<string | null>(null);
  const [instructions, setInstructions] = useState("");
  // "" runs in the agent's own mode.
  const [mode, setMode] = useState<Mode | "">("");
  // "" runs with the agent's sandbox settings.
  const [sandbox, setSandbox] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const wsId = useId();

  const selectedId = agentId ?? agents[0]?.id ?? "";
  const agent = agents.find((a) => a.id === selectedId);
  const ws = workspace ?? info?.default_workspace ?? "";

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const override = sandboxes.find((b) => b.value === sandbox)?.set ?? {};
      const run = await api.startRun({ agent: selectedId, instructions, workspace: ws, ...(mode ? { mode } : {}), ...override });
      addRun(run);
      select(run.id);
      setInstructions("");
      void refreshLists();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="new-run" onSubmit={submit}>
      <h2>New run</h2>
      <label className="field">
        <span>Agent</span>
        <select aria-label="Agent" value={selectedId} onChange={(e) => setAgentId(e.target.value)}>
          {agents.length === 0 && <option value="">No agents</option>}
          {agents.map((a) => (
            <option key={a.id} value={a.id}>
              {a.demo ? `${a.name} (Demo script)` : `${a.name} (${a.effective_model || a.effective_provider})`}
            </option>
          ))}
        </select>
      </label>
      {agent?.demo && (
        <p className="demo-note">
          <DemoLabel /> {info?.demo && info.note ? info.note : "No model is configured: this agent plays a built-in script."}
        </p>
      )}
      <label className="field">
        <span>Instructions</span>
        <textarea
          aria-label="Instructions"
          rows={4}
          value={instructions}
          onChange={(e) => setInstructions(e.target.value)}
          placeholder="What should the agent do?"
        />
      </label>
      <WorkspaceField id={wsId} label="Workspace" value={ws} onChange={setWorkspace} onError={setError} />
      {agent?.project_servers && ws && <ProjectReview workspace={ws} />}
      <label className="field">
        <span>Permissions</span>
        <select aria-label="Permission mode" value={mode} onChange={(e) => setMode(e.target.value as Mode | "")}>
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
        <select aria-label="Command sandbox" value={sandbox} onChange={(e) => setSandbox(e.target.value)}>
          <option value="">
            {agent
              ? `the agent's (${agent.sandbox ?? "auto"}, network ${agent.sandbox_network ?? "off"})`
              : "the agent's"}
          </option>
          {sandboxes.map((b) => (
            <option key={b.value} value={b.value}>
              {b.label}
            </option>
          ))}
        </select>
      </label>
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy || !selectedId}>
          Start run
        </button>
        {busy && <span className="muted">Starting…</span>}
      </div>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
