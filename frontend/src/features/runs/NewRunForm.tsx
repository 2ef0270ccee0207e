import { useId, useState, type FormEvent } from "react";
import { useApp, useServices } from "../../store/context";
import { DemoLabel } from "../../ui/StatusBadge";
import { errorMessage } from "../../ui/format";
import type { PermissionMode as Mode } from "../../api/types";
import { WorkspaceField } from "./WorkspaceField";
import { ProjectReview } from "./ProjectReview";
import { RunOptionsFold, sandboxes } from "./RunOptionsFold";
import { noOptions, overrides, type RunOptions } from "./runOptions";
import { lastWorkspace, rememberWorkspace } from "./workspacePref";

// NewRunForm starts a run of an agent on a workspace, then selects it. The
// workspace of the last run started here is offered again.
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
  const [options, setOptions] = useState<RunOptions>(noOptions);
  // Read once: the folder of the last run this browser started.
  const [remembered] = useState(lastWorkspace);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const wsId = useId();

  const selectedId = agentId ?? agents[0]?.id ?? "";
  const agent = agents.find((a) => a.id === selectedId);
  const ws = workspace ?? (remembered || info?.default_workspace) ?? "";

  async function submit(e: FormEvent) {
    e.preventDefault();
    const extra = overrides(options);
    if (!extra.ok) {
      setError(extra.error);
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const box = sandboxes.find((b) => b.value === sandbox)?.set ?? {};
      const run = await api.startRun({ agent: selectedId, instructions, workspace: ws, ...(mode ? { mode } : {}), ...box, ...extra.value });
      rememberWorkspace(ws);
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
        <select aria-label="Agent" value={selectedId} onChange={(e) => {
            setAgentId(e.target.value);
            // Breakpoints name the agent's tools: another agent has others.
            setOptions((o) => ({ ...o, breakBefore: [] }));
          }}>
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
      <RunOptionsFold
        agent={agent}
        options={options}
        onOptions={setOptions}
        mode={mode}
        onMode={setMode}
        sandbox={sandbox}
        onSandbox={setSandbox}
      />
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
