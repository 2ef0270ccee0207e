import { useState } from "react";
import { useApp } from "../../store/context";
import { ForkButton } from "../controls/Fork";
import { can, title } from "../controls/liveRun";
import { useLiveRun } from "../controls/useLiveRun";
import { useCommand } from "../controls/useCommand";
import { useAnswer } from "../inbox/useAnswer";

// NodeActions are what a person can do from a node selected in the graph,
// only those legal now: approve or deny its pending approval; retry or skip
// it when it is the interrupted call a paused run waits on; fork from it
// once it finished; pause the run while it runs (it stops at the next safe
// point). "Pause before every call of this tool" is the node detail's
// breakpoint toggle (features/controls/BreakToggle).
export function NodeActions({ runId, nodeId }: { runId: string; nodeId: string }) {
  const n = useApp((s) => s.stream.runs[runId]?.nodes[nodeId]);
  const live = useLiveRun(runId);
  const { send, busy, error } = useCommand(runId);

  const approval = n?.kind === "tool" && n.status === "waiting" && n.approval && !n.approval.decision ? n.approval : undefined;
  const interruptedHere = n?.kind === "tool" && n.status === "interrupted";
  const isNext = live.status === "paused" && !!live.next?.interrupted && live.next.node_id === nodeId;
  const canPause = can(live, "pause") && (n?.status === "running" || n?.status === "waiting" || n?.status === "pending");

  return (
    <div className="node-actions" role="group" aria-label="Node actions">
      {approval?.kind === "approval" && <ApproveDeny interactionId={approval.interactionId} />}
      {approval?.kind === "question" && <p className="muted">Answer the question on its card in the transcript, or in the inbox.</p>}
      {interruptedHere && (
        <>
          <button
            type="button"
            className="primary"
            data-testid="node-action-retry"
            disabled={busy || !isNext || !can(live, "retry")}
            title={isNext ? title("retry", live) : "Only the interrupted call the paused run waits on can be retried"}
            onClick={() => void send("retry", { node_id: nodeId })}
          >
            Retry call
          </button>
          <button
            type="button"
            data-testid="node-action-skip"
            disabled={busy || !isNext || !can(live, "skip")}
            title={isNext ? title("skip", live) : "Only the interrupted call the paused run waits on can be skipped"}
            onClick={() => void send("skip", { node_id: nodeId })}
          >
            Skip call
          </button>
        </>
      )}
      <ForkButton runId={runId} nodeId={nodeId} testId="node-action-fork" />
      {canPause && (
        <button
          type="button"
          data-testid="node-action-pause"
          disabled={busy}
          title="Pause the run before its next model or tool call. There is no pause before one given call: to stop before a tool every time, add it to the agent's break-before tools."
          onClick={() => void send("pause")}
        >
          Pause at next safe point
        </button>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

// ApproveDeny answers the node's approval, as the inbox does: deny asks for
// an optional reason, which the model receives.
function ApproveDeny({ interactionId }: { interactionId: string }) {
  const { busy, error, sent, send } = useAnswer(interactionId);
  const [denying, setDenying] = useState(false);
  const [reason, setReason] = useState("");
  if (sent) {
    return <p className="muted">{sent.decision === "deny" ? "Denied" : "Approved"}: waiting for the run to go on…</p>;
  }
  return (
    <div className="node-approval">
      <div className="node-actions-row">
        <button
          type="button"
          className="approve"
          data-testid="node-action-approve"
          disabled={busy}
          onClick={() => void send({ decision: "approve" })}
        >
          Approve
        </button>
        <button
          type="button"
          className="deny"
          data-testid="node-action-deny"
          aria-expanded={denying}
          disabled={busy || denying}
          onClick={() => setDenying(true)}
        >
          Deny
        </button>
      </div>
      {denying && (
        <div className="deny-form">
          <textarea
            aria-label="Reason for denying"
            rows={2}
            value={reason}
            placeholder="Why? The agent receives this as feedback (optional)."
            onChange={(e) => setReason(e.target.value)}
          />
          <div className="node-actions-row">
            <button
              type="button"
              className="deny"
              data-testid="node-action-deny-confirm"
              disabled={busy}
              onClick={() => void send({ decision: "deny", ...(reason.trim() ? { feedback: reason.trim() } : {}) })}
            >
              Deny call
            </button>
            <button type="button" disabled={busy} onClick={() => setDenying(false)}>
              Back
            </button>
          </div>
        </div>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
