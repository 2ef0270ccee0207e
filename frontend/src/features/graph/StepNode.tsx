import { Handle, Position, type NodeProps } from "@xyflow/react";
import { memo } from "react";
import type { StepNode as StepNodeType } from "./layout";

// kindNames is the tag each kind of node shows.
const kindNames: Record<string, string> = { user: "user", llm: "model", tool: "tool", agent: "agent" };

// StepNode draws one node of the execution graph: its kind, label and status
// colour; a tool call's tool, a model call's tokens. Memoised: a run's stream
// re-renders the graph often, a node changes rarely.
export const StepNode = memo(function StepNode({ data, selected }: NodeProps<StepNodeType>) {
  const detail =
    data.kind === "tool" && data.tool && data.tool !== data.label
      ? data.tool
      : data.kind === "llm" && data.usage
        ? `${data.usage.input_tokens} in / ${data.usage.output_tokens} out`
        : undefined;
  return (
    <div
      className={`step-node step-${data.kind} step-status-${data.status}${selected ? " step-selected" : ""}`}
      data-testid="graph-node"
      data-node-id={data.id}
      data-status={data.status}
      title={`${data.label || data.kind} (${data.status})`}
    >
      <Handle type="target" position={Position.Top} isConnectable={false} className="step-handle" />
      <div className="step-row">
        <span className={`step-kind step-kind-${data.kind}`}>{kindNames[data.kind] ?? data.kind}</span>
        <span className="step-label">{data.label || data.id}</span>
      </div>
      <div className="step-row step-sub">
        <span className="step-status">
          <span className="step-dot" aria-hidden="true" />
          {data.status}
        </span>
        {detail && <code className="step-detail">{detail}</code>}
      </div>
      <Handle type="source" position={Position.Bottom} isConnectable={false} className="step-handle" />
    </div>
  );
});
