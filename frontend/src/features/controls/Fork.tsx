import { useState } from "react";
import { useApp, useServices } from "../../store/context";
import { selectRun } from "../../store/store";
import { ownSettings } from "../exchange/origin";
import { ForkDialog } from "./ForkDialog";
import { can, liveRun } from "./liveRun";
import { useCommand } from "./useCommand";

// Statuses of a node that a fork can start after: it finished, and its
// outcome is known (an interrupted node's is not).
const forkable: ReadonlySet<string> = new Set(["succeeded", "failed", "denied", "cancelled"]);

// canForkFrom says whether a node of that status can be forked from.
export function canForkFrom(status: string | undefined): boolean {
  return !!status && forkable.has(status);
}

// useFork forks a run from a node, then selects the new run. A run whose
// settings were not chosen here (imported, or its agent gone) is forked
// with one of this machine's agents and a folder the person chooses: fork
// then opens the chooser (render it), as it does when the server refuses a
// fork for want of a choice.
export function useFork(runId: string) {
  const select = useApp((s) => s.select);
  const own = useApp((s) => ownSettings(selectRun(s, runId), s.agents));
  const { refreshLists } = useServices();
  const { send, busy, error } = useCommand(runId);
  const [choosing, setChoosing] = useState<{ nodeId: string; why?: string }>();

  async function go(nodeId: string, choice?: { agent: string; workspace: string }) {
    const res = await send("fork", { node_id: nodeId, ...choice });
    if (res?.status === "accepted" && res.fork) {
      setChoosing(undefined);
      void refreshLists();
      select(res.fork);
    } else if (res?.code === "needs_choice" && !choice) {
      setChoosing({ nodeId, why: res.message });
    }
  }
  async function fork(nodeId: string) {
    if (!own) return setChoosing({ nodeId });
    await go(nodeId);
  }
  const chooser = choosing ? (
    <ForkDialog
      runId={runId}
      nodeId={choosing.nodeId}
      why={choosing.why}
      busy={busy}
      error={error}
      onFork={(agent, workspace) => void go(choosing.nodeId, { agent, workspace })}
      onClose={() => setChoosing(undefined)}
    />
  ) : null;
  return { fork, busy, error: choosing ? undefined : error, chooser };
}

// ForkButton starts a new run, paused, whose conversation is this run's up to
// and including the node, then selects it. It shows only on a finished node
// of a run whose capabilities hold fork.
export function ForkButton({ runId, nodeId, testId }: { runId: string; nodeId: string; testId?: string }) {
  const allowed = useApp((s) => can(liveRun(selectRun(s, runId), s.stream.runs[runId]), "fork"));
  const status = useApp((s) => s.stream.runs[runId]?.nodes[nodeId]?.status);
  const { fork, busy, error, chooser } = useFork(runId);
  if (!allowed || !canForkFrom(status)) return null;
  return (
    <>
      <button
        type="button"
        className="fork-button"
        data-testid={testId}
        disabled={busy}
        title={`Start a new run, paused, that continues the conversation from ${nodeId} (f on a node selected in the graph)`}
        onClick={() => void fork(nodeId)}
      >
        Fork from here
      </button>
      {error && (
        <span className="fork-error" role="alert">
          {error}
        </span>
      )}
      {chooser}
    </>
  );
}

// Lineage links a fork to the run it came from, and a run to its forks.
export function Lineage({ runId }: { runId: string }) {
  const select = useApp((s) => s.select);
  const from = useApp((s) => s.stream.runs[runId]?.forkedFrom);
  const fromRun = useApp((s) => selectRun(s, runId)?.forked_from);
  const forks = useApp((s) => s.stream.runs[runId]?.forks);
  const srcRun = from?.run_id ?? fromRun;
  const srcLabel = useApp((s) => (from ? s.stream.runs[from.run_id]?.nodes[from.node_id]?.label : undefined));
  if (!srcRun && !forks?.length) return null;
  return (
    <div className="lineage">
      {srcRun && (
        <span className="fork-of">
          Fork of{" "}
          <button type="button" className="link run-link" aria-label={`Open run ${srcRun}`} onClick={() => select(srcRun)}>
            {srcRun}
          </button>
          {from && (
            <>
              {" "}
              at <code>{from.node_id}</code>
              {srcLabel && <span className="muted"> ({srcLabel})</span>}
            </>
          )}
        </span>
      )}
      {!!forks?.length && (
        <span className="forks">
          Forks:{" "}
          {forks.map((f) => (
            <span key={f.fork} className="fork-item">
              <button type="button" className="link run-link" aria-label={`Open run ${f.fork}`} onClick={() => select(f.fork)}>
                {f.fork}
              </button>
              <span className="muted"> at {f.node_id}</span>
            </span>
          ))}
        </span>
      )}
    </div>
  );
}
