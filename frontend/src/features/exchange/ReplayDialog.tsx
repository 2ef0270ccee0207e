import "./exchange.css";
import { useId, useState, type FormEvent } from "react";
import type { PermissionMode, ReplayRequest, ReplayTools } from "../../api/types";
import { useApp, useServices } from "../../store/context";
import { selectRun } from "../../store/store";
import { Dialog } from "../../ui/Dialog";
import { errorMessage } from "../../ui/format";
import { AgentSelect } from "../agents/AgentSelect";
import { can, liveRun } from "../controls/liveRun";
import { WorkspaceField } from "../runs/WorkspaceField";
import { foreignNote, ownSettings } from "./origin";

// ReplayButton opens the Replay dialog; it shows only while the run's
// capabilities hold replay (it ended, and it is not a fork).
export function ReplayButton({ runId }: { runId: string }) {
  const allowed = useApp((s) => can(liveRun(selectRun(s, runId), s.stream.runs[runId]), "replay"));
  const [open, setOpen] = useState(false);
  if (!allowed) return null;
  return (
    <>
      <button
        type="button"
        aria-haspopup="dialog"
        aria-expanded={open}
        data-testid="replay-button"
        title="Run this run again from its log: the recorded model answers, in a workspace put back to where the run started"
        onClick={() => setOpen(true)}
      >
        Replay
      </button>
      {open && <ReplayDialog runId={runId} onClose={() => setOpen(false)} />}
    </>
  );
}

const toolChoices: { value: ReplayTools; label: string }[] = [
  { value: "recorded", label: "Recorded results (nothing runs)" },
  { value: "live", label: "Run the tools for real, in a workspace put back to where the run started" },
];

const modes: { value: PermissionMode; label: string }[] = [
  { value: "ask", label: "ask: reads run, everything else asks" },
  { value: "edits", label: "edits: reads and workspace writes run" },
  { value: "plan", label: "plan: read-only tools only" },
  { value: "auto", label: "auto: everything runs (still confined)" },
];

// ReplayDialog asks how to replay the run, starts the replay, then opens
// it. A refusal (the server's message) stays in the dialog with what was
// chosen, to change and try again. A run whose settings were not chosen
// here (imported: someone else's content; or its agent gone) replays with
// one of this machine's agents, which the person must choose.
export function ReplayDialog({ runId, onClose }: { runId: string; onClose: () => void }) {
  const { api, refreshLists } = useServices();
  const run = useApp((s) => selectRun(s, runId));
  const agents = useApp((s) => s.agents);
  const own = ownSettings(run, agents);
  const addRun = useApp((s) => s.addRun);
  const select = useApp((s) => s.select);
  const [tools, setTools] = useState<ReplayTools>("recorded");
  const [liveFrom, setLiveFrom] = useState("");
  const [workspace, setWorkspace] = useState("");
  const [nonEmpty, setNonEmpty] = useState(false);
  // "" replays with the run's own settings (only a run of this machine can).
  const [agent, setAgent] = useState("");
  const [mode, setMode] = useState<PermissionMode>("ask");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const uid = useId();
  const id = (name: string) => `${uid}-${name}`;

  async function submit(e: FormEvent) {
    e.preventDefault();
    const n = liveFrom.trim();
    if (n !== "" && !/^\d+$/.test(n)) {
      setError(`"${n}" is not a model call number: a whole number, or empty for never`);
      return;
    }
    if (!own && !agent) {
      setError("Choose one of your agents to replay this run with.");
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const body: ReplayRequest = { tools, live_from: n === "" ? 0 : Number(n), workspace: workspace.trim() };
      if (agent) Object.assign(body, { agent, mode });
      if (nonEmpty) body.allow_nonempty = true;
      const started = await api.replayRun(runId, body);
      addRun(started);
      select(started.id);
      void refreshLists();
      onClose();
    } catch (err) {
      setError(errorMessage(err));
      setBusy(false);
    }
  }

  return (
    <Dialog title="Replay this run" onClose={onClose} data-testid="replay-dialog">
      <form className="replay-form" onSubmit={submit} noValidate>
        <p className="muted replay-intro">
          A new run gets the recorded model answers again, and says where it first sends the model something other than the
          recording did.
        </p>
        {!own && (
          <p className="hint replay-foreign" data-testid="replay-imported">
            {foreignNote(run)} It replays as a run of the agent you choose, in the mode you choose, and starts paused: continue
            it when the agent and folder are right.
          </p>
        )}
        <div className="field">
          <label htmlFor={id("agent")}>Agent</label>
          <AgentSelect
            id={id("agent")}
            agents={agents}
            value={agent}
            onChange={setAgent}
            own={own ? `this run's own settings (${run?.agent_name ?? "its agent"})` : undefined}
          />
        </div>
        {agent && (
          <div className="field">
            <label htmlFor={id("mode")}>Permission mode</label>
            <select id={id("mode")} value={mode} onChange={(e) => setMode(e.target.value as PermissionMode)}>
              {modes.map((m) => (
                <option key={m.value} value={m.value}>
                  {m.label}
                </option>
              ))}
            </select>
          </div>
        )}
        <fieldset className="replay-tools">
          <legend>Tool calls</legend>
          {toolChoices.map((c, i) => (
            <label key={c.value}>
              <input
                type="radio"
                name={id("tools")}
                value={c.value}
                checked={tools === c.value}
                data-autofocus={i === 0 ? true : undefined}
                onChange={() => setTools(c.value)}
              />
              {c.label}
            </label>
          ))}
          {!own && tools === "live" && (
            <p className="hint muted">The recording's answers to approvals are someone else's: here you answer every call.</p>
          )}
        </fieldset>
        <div className="field">
          <label htmlFor={id("live-from")}>Switch to the live model at model call</label>
          <input
            id={id("live-from")}
            type="text"
            inputMode="numeric"
            value={liveFrom}
            placeholder="never"
            onChange={(e) => setLiveFrom(e.target.value)}
          />
          <p className="hint muted">
            From that call on the agent's real model answers (it must be configured){own ? "" : ": the agent you choose, never the recording's"}. Empty or 0: never.
          </p>
        </div>
        <WorkspaceField
          id={id("workspace")}
          value={workspace}
          onChange={setWorkspace}
          placeholder="a fresh folder in Steward's replays folder"
          hint="The files the run changed are put back there as they were before it. Empty: a new folder."
          onError={setError}
        />
        <label className="check">
          <input type="checkbox" checked={nonEmpty} onChange={(e) => setNonEmpty(e.target.checked)} />
          The folder may hold files already (the recorded ones are put back over them)
        </label>
        {error && (
          <p className="form-error" role="alert" data-testid="replay-error">
            {error}
          </p>
        )}
        <div className="dialog-actions">
          {busy && <span className="muted">Starting…</span>}
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" data-testid="replay-start" disabled={busy}>
            Start replay
          </button>
        </div>
      </form>
    </Dialog>
  );
}
