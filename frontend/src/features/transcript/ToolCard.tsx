import { memo } from "react";
import { useApp } from "../../store/context";
import type { ToolNode } from "../../store/reducer";
import { duration, pretty } from "../../ui/format";
import { ForkButton } from "../controls/Fork";
import { ApprovalCard } from "../inbox/ApprovalCard";

const statusText: Record<string, string> = {
  waiting: "waiting for approval",
  interrupted: "interrupted: outcome unknown",
};

// ToolCard is one tool call: what was asked, whether a person let it run, what came back.
export const ToolCard = memo(function ToolCard({ runId, nodeId }: { runId: string; nodeId: string }) {
  const n = useApp((s) => s.stream.runs[runId]?.nodes[nodeId]);
  if (n?.kind !== "tool") return null;
  const waiting = n.status === "waiting" && n.approval && !n.approval.decision;
  return (
    <article
      className={`tool-card tool-${n.status}${n.isError ? " is-error" : ""}`}
      data-testid="tool-card"
      data-tool={n.tool}
      data-status={n.status}
      data-node-id={nodeId}
    >
      <header className="tool-head">
        <span className="tool-name">{n.tool}</span>
        {n.risk && <span className={`risk risk-${n.risk}`}>{n.risk}</span>}
        <span className={`tool-status status-${n.status}`}>{statusText[n.status] ?? n.status}</span>
        {n.retryOf && <span className="retry-of">retry of {n.retryOf}</span>}
        <span className="spacer" />
        <span className="muted">{duration(n.durationMs)}</span>
        <ForkButton runId={runId} nodeId={nodeId} />
      </header>
      <pre className="json">
        {pretty(n.arguments)}
      </pre>
      {n.policy && n.policy.effect !== "allow" && !n.approval && <p className="muted">Policy: {n.policy.reason}</p>}
      {waiting && n.approval && (
        <ApprovalCard
          interactionId={n.approval.interactionId}
          tool={n.tool}
          risk={n.approval.risk}
          arguments={n.approval.arguments}
          reason={n.approval.reason}
          details={false}
        />
      )}
      <Decision node={n} />
      {n.output !== undefined && n.output !== "" && (
        <pre className={`tool-output${n.isError ? " is-error" : ""}`}>
          {n.code && <span className="tool-code">{n.code}: </span>}
          {n.output}
        </pre>
      )}
      {n.error && <p className="node-error">{n.error}</p>}
    </article>
  );
});

function Decision({ node }: { node: ToolNode }) {
  const a = node.approval;
  if (!a?.decision) return null;
  return (
    <p className={`decision decision-${a.decision}`}>
      {a.decision === "approve" ? "Approved" : "Denied"}
      {a.source ? ` (${a.source})` : ""}
      {a.feedback ? `: ${a.feedback}` : ""}
    </p>
  );
}
