import "./exchange.css";
import { useId, useRef, useState, type FormEvent } from "react";
import type { ReplayTools } from "../../api/types";
import { useApp, useServices } from "../../store/context";
import { selectRun } from "../../store/store";
import { Dialog } from "../../ui/Dialog";
import { errorMessage } from "../../ui/format";
import { FolderPicker } from "../runs/FolderPicker";

// ReplayButton opens the Replay dialog; it shows only while the run's
// capabilities hold replay (it ended, and it is not a fork).
export function ReplayButton({ runId }: { runId: string }) {
  const allowed = useApp((s) => !!selectRun(s, runId)?.capabilities?.includes("replay"));
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

// ReplayDialog asks how to replay the run, starts the replay, then opens
// it. A refusal (the server's message) stays in the dialog with what was
// chosen, to change and try again.
export function ReplayDialog({ runId, onClose }: { runId: string; onClose: () => void }) {
  const { api, refreshLists } = useServices();
  const desktop = useApp((s) => !!s.info?.desktop);
  // A recording made elsewhere replays with its recorded results only: its
  // agent's rules and answers were not set here (the server refuses more).
  const imported = useApp((s) => !!selectRun(s, runId)?.imported_from);
  const addRun = useApp((s) => s.addRun);
  const select = useApp((s) => s.select);
  const [tools, setTools] = useState<ReplayTools>("recorded");
  const [liveFrom, setLiveFrom] = useState("");
  const [workspace, setWorkspace] = useState("");
  const [picking, setPicking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const browse = useRef<HTMLButtonElement>(null);
  const uid = useId();
  const id = (name: string) => `${uid}-${name}`;

  function closePicker() {
    setPicking(false);
    browse.current?.focus();
  }

  async function pickNative() {
    setError(undefined);
    try {
      const res = await api.pickFolder(workspace);
      if (res.path) setWorkspace(res.path);
    } catch (err) {
      setError(errorMessage(err));
    }
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    const n = liveFrom.trim();
    if (n !== "" && !/^\d+$/.test(n)) {
      setError(`"${n}" is not a model call number: a whole number, or empty for never`);
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const run = await api.replayRun(runId, { tools, live_from: n === "" ? 0 : Number(n), workspace: workspace.trim() });
      addRun(run);
      select(run.id);
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
        <fieldset className="replay-tools">
          <legend>Tool calls</legend>
          {toolChoices.map((c, i) => (
            <label key={c.value}>
              <input
                type="radio"
                name={id("tools")}
                value={c.value}
                checked={tools === c.value}
                disabled={imported && c.value !== "recorded"}
                data-autofocus={i === 0 ? true : undefined}
                onChange={() => setTools(c.value)}
              />
              {c.label}
            </label>
          ))}
          {imported && (
            <p className="hint muted" data-testid="replay-imported">
              This run was recorded elsewhere: it replays with its recorded results only. Fork it to go on under this
              machine's rules.
            </p>
          )}
        </fieldset>
        <div className="field" hidden={imported}>
          <label htmlFor={id("live-from")}>Switch to the live model at model call</label>
          <input
            id={id("live-from")}
            type="text"
            inputMode="numeric"
            value={liveFrom}
            placeholder="never"
            onChange={(e) => setLiveFrom(e.target.value)}
          />
          <p className="hint muted">From that call on the agent's real model answers (it must be configured). Empty or 0: never.</p>
        </div>
        <div className="field">
          <label htmlFor={id("workspace")}>Workspace folder</label>
          <div className="workspace-row">
            <input
              id={id("workspace")}
              type="text"
              value={workspace}
              title={workspace}
              placeholder="a fresh folder in Steward's replays folder"
              spellCheck={false}
              onChange={(e) => setWorkspace(e.target.value)}
            />
            <button
              type="button"
              ref={browse}
              aria-label="Browse folders"
              aria-expanded={picking}
              aria-controls={picking ? id("picker") : undefined}
              onClick={() => (desktop ? void pickNative() : picking ? closePicker() : setPicking(true))}
            >
              Browse…
            </button>
          </div>
          {picking && (
            <FolderPicker
              id={id("picker")}
              start={workspace}
              onChoose={(p) => {
                setWorkspace(p);
                closePicker();
              }}
              onClose={closePicker}
            />
          )}
          <p className="hint muted">The files the run changed are put back there as they were before it. Empty: a new folder.</p>
        </div>
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
