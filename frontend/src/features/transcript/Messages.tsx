import { memo } from "react";
import { useApp } from "../../store/context";
import { duration } from "../../ui/format";
import { StatusBadge } from "../../ui/StatusBadge";

export function UserMessage({ text }: { text: string }) {
  return (
    <div className="msg msg-user">
      <div className="msg-meta">Instructions</div>
      <div className="msg-text">{text}</div>
    </div>
  );
}

type NodeProps = { runId: string; nodeId: string };

// LlmMessage is one model response, streamed in as plain text.
export const LlmMessage = memo(function LlmMessage({ runId, nodeId }: NodeProps) {
  const n = useApp((s) => s.stream.runs[runId]?.nodes[nodeId]);
  if (n?.kind !== "llm") return null;
  const streaming = n.status === "running";
  return (
    <div className={`msg msg-llm${streaming ? " streaming" : ""}`} data-status={n.status}>
      <div className="msg-meta">
        <span>{n.label || "Model"}</span>
        {n.model && <span className="muted">{n.model}</span>}
        {n.status !== "succeeded" && <StatusBadge status={n.status} />}
        {n.usage && (
          <span className="muted">
            {n.usage.input_tokens} in / {n.usage.output_tokens} out
          </span>
        )}
        <span className="muted">{duration(n.durationMs)}</span>
      </div>
      <div data-testid="llm-text" className="msg-text">
        {n.text}
      </div>
      {n.error && <p className="node-error">{n.error}</p>}
    </div>
  );
});

// AgentLine is a node of a kind without a view of its own yet (sub-agents).
export const AgentLine = memo(function AgentLine({ runId, nodeId }: NodeProps) {
  const n = useApp((s) => s.stream.runs[runId]?.nodes[nodeId]);
  if (!n) return null;
  return (
    <div className="msg msg-agent">
      <div className="msg-meta">
        <span>{n.label || n.kind}</span>
        <StatusBadge status={n.status} />
      </div>
      {n.error && <p className="node-error">{n.error}</p>}
    </div>
  );
});
