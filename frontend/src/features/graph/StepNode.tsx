import { Handle, Position, type NodeProps } from "@xyflow/react";
import { createContext, memo, useContext } from "react";
import { foldSummary } from "./fold";
import { ForkBadge } from "./ForkLinks";
import type { StepNode as StepNodeType } from "./layout";

// kindNames is the tag each kind of node shows.
const kindNames: Record<string, string> = { user: "user", llm: "model", tool: "tool", agent: "agent" };

// FoldToggle folds or unfolds a model node's turn; GraphPanel provides it.
export const FoldToggle = createContext<(modelId: string, open: boolean) => void>(() => {});

// StepNode draws one node of the execution graph: its kind, label and status
// colour; a tool call's tool, a model call's tokens; on a model node whose
// turn called tools, a badge that folds and unfolds them; on a node runs
// were forked from, a badge that opens them. Memoised: a run's
// stream re-renders the graph often, a node changes rarely.
export const StepNode = memo(function StepNode({ data, selected }: NodeProps<StepNodeType>) {
  const toggle = useContext(FoldToggle);
  const detail =
    data.kind === "tool" && data.tool && data.tool !== data.label
      ? data.tool
      : data.kind === "llm" && data.usage
        ? `${data.usage.input_tokens} in / ${data.usage.output_tokens} out`
        : undefined;
  const fold = data.fold;
  const summary = fold && foldSummary(fold);
  // A folded turn shows the most pressing status of its calls on the badge.
  const hot = fold && !fold.open ? fold.statuses.find(([s]) => s === "running" || s === "waiting")?.[0] : undefined;
  return (
    <div
      className={`step-node step-${data.kind} step-status-${data.status}${selected ? " step-selected" : ""}${fold && !fold.open ? " step-folded" : ""}`}
      data-testid="graph-node"
      data-node-id={data.id}
      data-status={data.status}
      title={`${data.label || data.kind} (${data.status})`}
    >
      <Handle type="target" position={Position.Top} isConnectable={false} className="step-handle" />
      <div className="step-row">
        <span className={`step-kind step-kind-${data.kind}`}>{kindNames[data.kind] ?? data.kind}</span>
        <span className="step-label">{data.label || data.id}</span>
        {!!data.forks?.length && <ForkBadge nodeId={data.id} forks={data.forks} />}
      </div>
      <div className="step-row step-sub">
        <span className="step-status">
          <span className="step-dot" aria-hidden="true" />
          {data.status}
        </span>
        {detail && !fold && <code className="step-detail">{detail}</code>}
        {fold && summary && (
          <button
            type="button"
            className={`fold-badge nodrag nopan${hot ? ` fold-${hot}` : ""}`}
            data-testid="graph-fold"
            data-node-id={data.id}
            aria-expanded={fold.open}
            aria-label={summary.title}
            title={summary.title}
            onClick={(e) => {
              e.stopPropagation();
              toggle(data.id, !fold.open);
            }}
          >
            {summary.text}
            {hot && <span className="fold-hot"> · {hot}</span>}
            <span aria-hidden="true">{fold.open ? " ▴" : " ▾"}</span>
          </button>
        )}
      </div>
      <Handle type="source" position={Position.Bottom} isConnectable={false} className="step-handle" />
    </div>
  );
});
