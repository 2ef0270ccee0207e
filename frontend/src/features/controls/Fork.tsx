import { useState } from "react";
import { useApp, useServices } from "../../store/context";
import { selectRun } from "../../store/store";
import type { ForkFiles } from "../../api/types";
import { NotHere, useRunHere } from "../exchange/here";
import { ownSettings } from "../exchange/origin";
import { ForkDialog, type ForkChoice } from "./ForkDialog";
import { can, liveRun } from "./liveRun";
import { useCommand } from "./useCommand";

// Statuses of a node that a fork can start after: it finished, and its
// outcome is known (an interrupted node's is not).
const forkable: ReadonlySet<string> = new Set(["succeeded", "failed", "denied", "cancelled"]);

// canForkFrom says whether a node of that status can be forked from.
export function canForkFrom(status: string | undefined): boolean {
  return !!status && forkable.has(status);
}

// useFork forks a run from a node, then selects the new run. fork opens the
// fork dialog (render chooser), which asks what becomes of the workspace's
// files and, for a run whose settings were not chosen here (imported, or
// its agent gone), which of this machine's agents and which folder the fork
// goes on with; it opens again with the server's reason when the server
// refuses a fork for want of that choice.
export function useFork(runId: string) {
  const select = useApp((s) => s.select);
  const own = useApp((s) => ownSettings(selectRun(s, runId), s.agents));
  const { refreshLists } = useServices();
  const { send, busy, error } = useCommand(runId);
  const [choosing, setChoosing] = useState<{ nodeId: string; foreign: boolean; why?: string }>();

  async function go(nodeId: string, choice: ForkChoice) {
    const res = await send("fork", { node_id: nodeId, ...choice });
    if (res?.status === "accepted" && res.fork) {
      setChoosing(undefined);
      void refreshLists();
      select(res.fork);
    } else if (res?.code === "needs_choice" && !choice.agent) {
      setChoosing({ nodeId, foreign: true, why: res.message });
    }
  }
  async function fork(nodeId: string) {
    setChoosing({ nodeId, foreign: !own });
  }
  const chooser = choosing ? (
    <ForkDialog
      runId={runId}
      nodeId={choosing.nodeId}
      foreign={choosing.foreign}
      why={choosing.why}
      busy={busy}
      error={error}
      onFork={(choice) => void go(choosing.nodeId, choice)}
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

// Lineage links a fork to the run it came from, and a run to its forks, and
// says what the fork did with the files. A run that is not on this machine
// (an imported recording's source or forks) is named, not linked.
export function Lineage({ runId }: { runId: string }) {
  const from = useApp((s) => s.stream.runs[runId]?.forkedFrom);
  const fromRun = useApp((s) => selectRun(s, runId)?.forked_from);
  const forks = useApp((s) => s.stream.runs[runId]?.forks);
  const files = useApp((s) => s.stream.runs[runId]?.forkFiles);
  const workspace = useApp((s) => s.stream.runs[runId]?.workspace);
  const srcRun = from?.run_id ?? fromRun;
  const srcLabel = useApp((s) => (from ? s.stream.runs[from.run_id]?.nodes[from.node_id]?.label : undefined));
  if (!srcRun && !forks?.length) return null;
  return (
    <div className="lineage">
      {srcRun && (
        <span className="fork-of">
          Fork of <RunLink id={srcRun} />
          {from && (
            <>
              {" "}
              at <code>{from.node_id}</code>
              {srcLabel && <span className="muted"> ({srcLabel})</span>}
            </>
          )}
          {files && (
            <span className="fork-files muted" data-testid="fork-files">
              {" "}
              · {forkFilesText(files, from?.node_id, srcRun, workspace)}
            </span>
          )}
        </span>
      )}
      {!!forks?.length && (
        <span className="forks">
          Forks:{" "}
          {forks.map((f) => (
            <span key={f.fork} className="fork-item">
              <RunLink id={f.fork} />
              <span className="muted"> at {f.node_id}</span>
            </span>
          ))}
        </span>
      )}
    </div>
  );
}

// RunLink opens run id, or says it is not on this machine.
function RunLink({ id }: { id: string }) {
  const select = useApp((s) => s.select);
  if (useRunHere(id) === false) return <NotHere id={id} />;
  return (
    <button type="button" className="link run-link" aria-label={`Open run ${id}`} onClick={() => select(id)}>
      {id}
    </button>
  );
}

// forkFilesText says what a fork did with the workspace's files.
export function forkFilesText(f: ForkFiles, node: string | undefined, src: string, workspace: string | undefined): string {
  const at = node ? ` at ${node}` : "";
  switch (f.choice) {
    case "restore":
      return f.op
        ? `files put back as they were${at} (${f.restored ?? 0} ${f.restored === 1 ? "file" : "files"}; undo ${f.op} in the files of ${src} to take that back)`
        : `files restored${at}: none had changed since`;
    case "copy":
      return `works in a copy of ${f.from ?? "the folder"}${workspace ? `: ${workspace}` : ""}${f.skipped ? ` (${f.skipped} special files not copied)` : ""}`;
    default:
      return "files kept as they were";
  }
}
