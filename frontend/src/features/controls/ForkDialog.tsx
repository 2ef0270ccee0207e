import { useId, useState, type FormEvent } from "react";
import { useApp } from "../../store/context";
import { selectRun } from "../../store/store";
import { Dialog } from "../../ui/Dialog";
import { AgentSelect } from "../agents/AgentSelect";
import { foreignNote } from "../exchange/origin";
import { WorkspaceField } from "../runs/WorkspaceField";

type Props = {
  runId: string;
  nodeId: string;
  // why is the server's reason, when it refused a fork without a choice.
  why?: string;
  busy: boolean;
  error?: string;
  onFork: (agent: string, workspace: string) => void;
  onClose: () => void;
};

// ForkDialog asks which of this machine's agents, and which folder, a fork
// of a foreign run (imported: someone else's content; or whose agent is
// gone) goes on with: nothing the run recorded is used as a setting.
export function ForkDialog({ runId, nodeId, why, busy, error, onFork, onClose }: Props) {
  const run = useApp((s) => selectRun(s, runId));
  const agents = useApp((s) => s.agents);
  const info = useApp((s) => s.info);
  const [agent, setAgent] = useState("");
  const [workspace, setWorkspace] = useState(info?.default_workspace ?? "");
  const [local, setLocal] = useState<string>();
  const uid = useId();

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!agent) return setLocal("Choose one of your agents.");
    if (!workspace.trim()) return setLocal("Choose a workspace folder.");
    setLocal(undefined);
    onFork(agent, workspace.trim());
  }

  const shown = local ?? error;
  return (
    <Dialog title="Fork with one of your agents" onClose={onClose} data-testid="fork-dialog">
      <form className="replay-form" onSubmit={submit} noValidate>
        <p className="muted replay-intro" data-testid="fork-foreign">
          {why ?? foreignNote(run)} Choose one of your agents and a folder: the fork continues the conversation up to{" "}
          <code>{nodeId}</code> with that agent's provider, mode and rules, in that folder, and starts paused.
        </p>
        <div className="field">
          <label htmlFor={`${uid}-agent`}>Agent</label>
          <AgentSelect id={`${uid}-agent`} agents={agents} value={agent} onChange={setAgent} />
        </div>
        <WorkspaceField
          id={`${uid}-workspace`}
          value={workspace}
          onChange={setWorkspace}
          hint="The folder the fork works in. The recording's own folder is never used."
          onError={setLocal}
        />
        {shown && (
          <p className="form-error" role="alert" data-testid="fork-error">
            {shown}
          </p>
        )}
        <div className="dialog-actions">
          {busy && <span className="muted">Forking…</span>}
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" data-testid="fork-start" disabled={busy}>
            Fork
          </button>
        </div>
      </form>
    </Dialog>
  );
}
