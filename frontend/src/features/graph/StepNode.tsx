import { Handle, Position, type NodeProps } from "@xyflow/react";
import { createContext, memo, useContext } from "react";
import { duration } from "../../ui/format";
import { foldSummary } from "./fold";
import { ForkBadge } from "./ForkLinks";
import type { StepData, StepNode as StepNodeType } from "./layout";

// kindNames is the tag each kind of node shows.
const kindNames: Record<string, string> = { user: "user", llm: "model", tool: "tool", agent: "agent" };

// statusIcons mark a status by shape as well as by colour: a denied or
// failed call reads as one in grey scale too. Running has the pulsing dot.
const statusIcons: Record<string, string> = {
  succeeded: "✓",
  failed: "✕",
  denied: "⊘",
  interrupted: "!",
  waiting: "?",
  cancelled: "–",
  pending: "○",
};

// FoldToggle folds or unfolds a model node's turn; GraphPanel provides it.
export const FoldToggle = createContext<(modelId: string, open: boolean) => void>(() => {});

// StepNode draws one node of the execution graph in three lines: its kind,
// label (a tool call's tool) and status; what it did (a tool call's key
// argument, a model's or a person's first words); and its figures (a model
// call's tokens, a call's time, why a call failed), with a badge that
// folds and unfolds a model node's turn and one that opens the runs forked
// from the node. Memoised: a run's stream re-renders the graph often, a
// node changes rarely.
export const StepNode = memo(function StepNode({ data, selected }: NodeProps<StepNodeType>) {
  const toggle = useContext(FoldToggle);
  const status = statusWord(data);
  const figures = figuresOf(data, status);
  const fold = data.fold;
  const summary = fold && foldSummary(fold);
  // A folded turn shows the most pressing status of its calls on the badge.
  const hot = fold && !fold.open ? fold.statuses.find(([s]) => s === "running" || s === "waiting")?.[0] : undefined;
  const label = data.label || data.id;
  return (
    <div
      className={`step-node step-${data.kind} step-status-${data.status}${selected ? " step-selected" : ""}${fold && !fold.open ? " step-folded" : ""}`}
      data-testid="graph-node"
      data-node-id={data.id}
      data-status={data.status}
      title={`${label}${data.what ? ` ${data.what}` : ""} (${status})`}
    >
      <Handle type="target" position={Position.Top} isConnectable={false} className="step-handle" />
      <div className="step-row">
        <span className={`step-kind step-kind-${data.kind}`}>{kindNames[data.kind] ?? data.kind}</span>
        <span className="step-label">{label}</span>
        <span className="step-status">
          {data.status === "running" ? <span className="step-dot" aria-hidden="true" /> : <span className="step-icon" aria-hidden="true">{statusIcons[data.status]}</span>}
          {/* Success, the common case, is its tick alone: the label has the room. */}
          {status === "succeeded" ? <span className="visually-hidden">{status}</span> : status}
        </span>
      </div>
      <div className={`step-what${data.kind === "tool" ? " step-what-arg" : ""}`} data-testid="graph-node-what">
        {data.what}
      </div>
      <div className="step-row step-sub">
        {figures && <span className="step-figures">{figures}</span>}
        <span className="step-badges">
          {!!data.forks?.length && <ForkBadge nodeId={data.id} forks={data.forks} />}
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
        </span>
      </div>
      <Handle type="source" position={Position.Bottom} isConnectable={false} className="step-handle" />
    </div>
  );
});

// statusWord is the status a node shows: a question the person declined is
// no failure of the call (as its transcript card says).
export function statusWord(d: StepData): string {
  if (d.kind === "tool" && d.tool === "ask_user" && d.status === "failed" && d.code === "declined") return "declined";
  return d.status;
}

// figuresOf is a node's third line: a model call's tokens; a tool call's
// time, and why it failed or that it never ran.
export function figuresOf(d: StepData, status: string): string {
  if (d.kind === "llm") return d.usage ? `${tokens(d.usage.input_tokens)} in · ${tokens(d.usage.output_tokens)} out tokens` : "";
  if (d.kind !== "tool") return "";
  if (d.status === "denied") return "not run";
  const parts = [duration(d.durationMs)];
  if (d.code && status !== "declined" && (d.status === "failed" || d.status === "interrupted")) parts.push(d.code.replaceAll("_", " "));
  return parts.filter(Boolean).join(" · ");
}

// tokens is a token count as a node has room for: 1,234 or 12.3k.
export function tokens(n: number): string {
  if (!Number.isFinite(n) || n < 0) return "?";
  if (n < 10_000) return n.toLocaleString("en-US");
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 100_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}
