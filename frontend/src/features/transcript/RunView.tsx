import "./transcript.css";
import { useState } from "react";
import { newId } from "../../api/client";
import type { Run } from "../../api/types";
import { useApp, useServices } from "../../store/context";
import { terminalStatuses, type RunTranscript } from "../../store/reducer";
import { selectRun } from "../../store/store";
import { errorMessage } from "../../ui/format";
import { DemoLabel, StatusBadge } from "../../ui/StatusBadge";
import { Transcript } from "./Transcript";

// RunView is the selected run: its header and its live transcript.
export function RunView() {
  const runId = useApp((s) => s.selectedRunId);
  if (!runId) {
    return (
      <div className="run-view empty-state">
        <p>Select a run on the left, or start a new one.</p>
      </div>
    );
  }
  return (
    <div className="run-view">
      <RunHeader runId={runId} />
      <Transcript runId={runId} />
    </div>
  );
}

// runStatus is the newest status known: the event stream's, unless the
// REST copy of the run has seen later events than the stream has applied.
export function runStatus(run: Run | undefined, t: RunTranscript | undefined): string {
  if (t?.status && t.lastSeq >= (run?.last_seq ?? 0)) return t.status;
  return run?.status ?? t?.status ?? "queued";
}

function RunHeader({ runId }: { runId: string }) {
  const { api, refreshRun } = useServices();
  const run = useApp((s) => selectRun(s, runId));
  const t = useApp((s) => s.stream.runs[runId]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  const status = runStatus(run, t);
  const canCancel = !!run?.capabilities?.includes("cancel") && !terminalStatuses.has(status);
  const demo = run?.demo ?? t?.demo ?? false;

  async function cancel() {
    setBusy(true);
    setError(undefined);
    try {
      const res = await api.command(runId, { command_id: newId(), type: "cancel" });
      if (res.status === "rejected") setError(res.message ?? `cancel rejected (${res.code ?? "unknown"})`);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
      void refreshRun(runId);
    }
  }

  return (
    <header className="run-header">
      <div className="run-header-main">
        <StatusBadge status={status} data-testid="run-status" className="large" />
        <h1>{run?.agent_name ?? t?.agent?.name ?? "Run"}</h1>
        {demo && <DemoLabel />}
        <code className="run-id">{runId}</code>
        <span className="spacer" />
        <button type="button" className="danger" disabled={!canCancel || busy} onClick={() => void cancel()}>
          Cancel run
        </button>
      </div>
      <dl className="run-facts">
        <dt>Workspace</dt>
        <dd>
          <code>{run?.workspace ?? t?.workspace ?? ""}</code>
        </dd>
        {run && (
          <>
            <dt>Model</dt>
            <dd>{demo ? "none (demo script)" : `${run.provider}/${run.model}`}</dd>
            <dt>Steps</dt>
            <dd>{run.steps}</dd>
            <dt>Tokens</dt>
            <dd>
              {run.usage.input_tokens} in / {run.usage.output_tokens} out
            </dd>
          </>
        )}
      </dl>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </header>
  );
}
