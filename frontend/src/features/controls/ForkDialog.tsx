import { useId, useState, type FormEvent } from "react";
import type { ForkFilesChoice } from "../../api/types";
import { useApp } from "../../store/context";
import { selectRun } from "../../store/store";
import { Dialog } from "../../ui/Dialog";
import { AgentSelect } from "../agents/AgentSelect";
import { foreignNote } from "../exchange/origin";
import { WorkspaceField } from "../runs/WorkspaceField";

// ForkChoice is what the dialog sends with fork: the files choice and, for
// a foreign run, one of this machine's agents and a folder.
export type ForkChoice = { files: ForkFilesChoice; agent?: string; workspace?: string };

type Props = {
  runId: string;
  nodeId: string;
  // foreign: the run's settings were not chosen here (imported: someone
  // else's content; or its agent is gone): the fork needs an agent and a
  // folder, and its files cannot be put back (they are not this run's).
  foreign: boolean;
  // why is the server's reason, when it refused a fork without a choice.
  why?: string;
  busy: boolean;
  error?: string;
  onFork: (choice: ForkChoice) => void;
  onClose: () => void;
};

// The files choices, in the order shown; restore only for a run of this
// machine, in its own folder.
const fileChoices: { value: ForkFilesChoice; label: string; hint: (node: string) => string; own?: true }[] = [
  { value: "keep", label: "Keep the files as they are", hint: () => "The fork works in the same folder, on the files as they are now." },
  {
    value: "restore",
    label: "Put the files back as they were",
    hint: (node) =>
      `Every change this run recorded after ${node} is taken back, in this folder. If a file was changed since by someone else, nothing is changed and the files are listed. The restore shows in this run's Files and can be undone there.`,
    own: true,
  },
  { value: "copy", label: "Fork into a copy of the folder", hint: () => "The folder (up to 1 GiB and 100,000 entries) is copied next to it, named <folder>-fork-<run id>, and the fork works there." },
];

// ForkDialog asks what a fork does with the workspace's files and, for a
// foreign run, which of this machine's agents and which folder it goes on
// with: nothing the run recorded is used as a setting.
export function ForkDialog({ runId, nodeId, foreign, why, busy, error, onFork, onClose }: Props) {
  const run = useApp((s) => selectRun(s, runId));
  const agents = useApp((s) => s.agents);
  const info = useApp((s) => s.info);
  const [agent, setAgent] = useState("");
  const [workspace, setWorkspace] = useState(info?.default_workspace ?? "");
  const [files, setFiles] = useState<ForkFilesChoice>("keep");
  const [local, setLocal] = useState<string>();
  const uid = useId();

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!foreign) return onFork({ files });
    if (!agent) return setLocal("Choose one of your agents.");
    if (!workspace.trim()) return setLocal("Choose a workspace folder.");
    setLocal(undefined);
    onFork({ files, agent, workspace: workspace.trim() });
  }

  const shown = local ?? error;
  const choices = fileChoices.filter((c) => !foreign || !c.own);
  return (
    <Dialog title={foreign ? "Fork with one of your agents" : "Fork from here"} onClose={onClose} data-testid="fork-dialog">
      <form className="replay-form" onSubmit={submit} noValidate>
        {foreign ? (
          <p className="muted replay-intro" data-testid="fork-foreign">
            {why ?? foreignNote(run)} Choose one of your agents and a folder: the fork continues the conversation up to{" "}
            <code>{nodeId}</code> with that agent's provider, mode and rules, in that folder, and starts paused.
          </p>
        ) : (
          <p className="muted replay-intro">
            The fork continues the conversation up to <code>{nodeId}</code> and starts paused.
          </p>
        )}
        {foreign && (
          <>
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
          </>
        )}
        <fieldset className="replay-tools fork-files-choice" data-testid="fork-files-choice">
          <legend>Files</legend>
          {choices.map((c) => (
            <label key={c.value}>
              <input type="radio" name={`${uid}-files`} value={c.value} checked={files === c.value} onChange={() => setFiles(c.value)} />
              {c.label}
              <span className="muted hint"> {c.hint(nodeId)}</span>
            </label>
          ))}
        </fieldset>
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
