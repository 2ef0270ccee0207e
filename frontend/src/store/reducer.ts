// The one reducer from a run's event log to what the UI shows of it. It is
// pure (no clock, no I/O, inputs never mutated) so that the live view and
// replay build the same state from the same events. Events with a seq at or
// below the last one applied to their run are ignored.

import type {
  AgentRef,
  ApprovalDecidedData,
  ApprovalRequestedData,
  Decision,
  Event,
  GrantScope,
  InteractionKind,
  LLMAttemptData,
  LLMDeltaData,
  Message,
  Next,
  NodeFinishedData,
  NodeRef,
  NodeStartedData,
  NodeStatus,
  PlanStep,
  PolicyDecidedData,
  Question,
  RunCreatedData,
  RunForkedData,
  RunPlanData,
  RunStatus,
  RunStatusData,
  ToolCall,
  Usage,
} from "../api/types";
import { foldFileChanged, noFiles, type FileTouch, type RunFiles } from "./fileFold";

// ApprovalState is the interaction opened on a tool node: an approval, or
// the question of an ask_user call.
export type ApprovalState = {
  interactionId: string;
  kind: InteractionKind;
  tool: string;
  arguments: unknown;
  risk: string;
  reason: string;
  group?: string;
  groupSize?: number;
  expiresAt?: number;
  defaultDecision?: "deny" | "approve";
  question?: Question;
  // Set once approval.decided arrives.
  decision?: Decision;
  feedback?: string;
  source?: string;
  scope?: GrantScope;
  grantId?: string;
  // The person's edit of the arguments (edit, then approve): what ran.
  editedArguments?: unknown;
  // A question's answer.
  text?: string;
  choices?: string[];
};

// DecisionRecord is one row of a run's audit: the automatic decision on a
// tool call (policy.decided), or how its interaction was answered
// (approval.decided: a person, a timeout, or policy for an unattended run).
export type DecisionRecord =
  | { kind: "policy"; seq: number; ts: number; nodeId: string; tool: string; effect: PolicyDecidedData["effect"]; reason: string }
  | {
      kind: "answer";
      seq: number;
      ts: number;
      nodeId: string;
      tool: string;
      interaction: InteractionKind;
      decision: Decision;
      source: string;
      scope?: GrantScope;
      grantId?: string;
      feedback?: string;
      edited: boolean;
    };

// Plan is the run's plan: the steps of its latest run.plan.
export type Plan = { nodeId?: string; seq: number; ts: number; steps: PlanStep[] };

type NodeBase = {
  id: string;
  status: NodeStatus;
  label: string;
  parent?: string;
  // The nodes this one ran after (the graph's after edges).
  after?: string[];
  startedAt: number;
  finishedAt?: number;
  durationMs?: number;
  error?: string;
};

// A user node's label says where its message came from: "instructions", or
// "steer" for a message sent to the running agent.
// answerTo is set on the answer to a question: the ask_user tool node.
export type UserNode = NodeBase & { kind: "user"; text: string; answerTo?: string };
export type LlmNode = NodeBase & {
  kind: "llm";
  model?: string;
  // The text of the current attempt: a failed attempt's text is void.
  text: string;
  // The failed attempts that were retried, in order.
  attempts?: LLMAttemptData[];
  toolCalls?: ToolCall[];
  stopReason?: string;
  usage?: Usage;
};
export type ToolNode = NodeBase & {
  kind: "tool";
  tool: string;
  risk: string;
  arguments: unknown;
  callId?: string;
  output?: string;
  isError: boolean;
  code?: string;
  policy?: PolicyDecidedData;
  approval?: ApprovalState;
  // Set by tool.executing: the call's side effect started.
  executing?: boolean;
  // The interrupted node this retried call replaces.
  retryOf?: string;
  // What this call did to workspace files (file.changed), in order.
  files?: FileTouch[];
};
export type AgentNode = NodeBase & { kind: "agent" };
export type TranscriptNode = UserNode | LlmNode | ToolNode | AgentNode;

export type RunTranscript = {
  runId: string;
  lastSeq: number;
  agent?: AgentRef;
  instructions?: string;
  workspace?: string;
  demo: boolean;
  // The permission mode the run started with, and whether nobody is asked.
  mode?: string;
  unattended?: boolean;
  status?: RunStatus;
  reason?: string;
  error?: string;
  // What a paused run does next (from its last run.status).
  next?: Next;
  // A fork: where it branched from and the conversation it carries over.
  forkedFrom?: NodeRef;
  history?: Message[];
  // The runs forked from this one, in the order they were made.
  forks: RunForkedData[];
  // Node ids in the order their node.started arrived.
  nodeOrder: string[];
  nodes: Record<string, TranscriptNode>;
  plan?: Plan;
  // The audit of tool call decisions, in log order.
  decisions: DecisionRecord[];
  files: RunFiles;
};

export type StreamState = { runs: Record<string, RunTranscript> };

export const emptyStream: StreamState = { runs: {} };

export function emptyTranscript(runId: string): RunTranscript {
  return { runId, lastSeq: 0, demo: false, forks: [], nodeOrder: [], nodes: {}, decisions: [], files: noFiles };
}

// reduce applies one event to the state of all runs.
export function reduce(state: StreamState, e: Event): StreamState {
  const prev = state.runs[e.run_id] ?? emptyTranscript(e.run_id);
  const next = reduceRun(prev, e);
  if (next === prev) return state;
  return { runs: { ...state.runs, [e.run_id]: next } };
}

// reduceRun applies one event of a run to its transcript.
export function reduceRun(t: RunTranscript, e: Event): RunTranscript {
  if (e.seq <= t.lastSeq) return t;
  return { ...apply(t, e), lastSeq: e.seq };
}

function apply(t: RunTranscript, e: Event): RunTranscript {
  const data = (e.data ?? {}) as object;
  switch (e.type) {
    case "run.created": {
      const d = data as RunCreatedData;
      return {
        ...t,
        agent: d.agent,
        instructions: d.instructions,
        workspace: d.workspace,
        demo: !!d.agent?.demo,
        mode: d.mode,
        unattended: !!d.unattended,
        forkedFrom: d.forked_from,
        history: d.history,
      };
    }
    case "run.status": {
      const d = data as RunStatusData;
      return { ...t, status: d.status, reason: d.reason, error: d.error, next: d.next };
    }
    case "run.forked": {
      const d = data as RunForkedData;
      if (!d.fork || t.forks.some((f) => f.fork === d.fork)) return t;
      return { ...t, forks: [...t.forks, { node_id: d.node_id, fork: d.fork }] };
    }
    case "node.started":
      return e.node_id ? startNode(t, e.node_id, e.ts, data as NodeStartedData) : t;
    case "llm.delta": {
      const d = data as LLMDeltaData;
      return updateNode(t, e.node_id, (n) => (n.kind === "llm" ? { ...n, text: n.text + (d.text ?? "") } : n));
    }
    case "llm.attempt": {
      // The attempt failed and is retried: its streamed text is void.
      const d = data as LLMAttemptData;
      return updateNode(t, e.node_id, (n) =>
        n.kind === "llm" ? { ...n, text: "", attempts: [...(n.attempts ?? []), d] } : n,
      );
    }
    case "tool.executing":
      return updateNode(t, e.node_id, (n) =>
        n.kind === "tool" ? { ...n, executing: true, status: isOpen(n.status) ? "running" : n.status } : n,
      );
    case "node.finished":
      return updateNode(t, e.node_id, (n) => finishNode(n, e.ts, data as NodeFinishedData));
    case "policy.decided": {
      const d = data as PolicyDecidedData;
      const next = updateNode(t, e.node_id, (n) => (n.kind === "tool" ? { ...n, policy: d } : n));
      return recordPolicy(next, e, d);
    }
    case "approval.requested":
      return requestApproval(t, e, data as ApprovalRequestedData);
    case "approval.decided": {
      const d = data as ApprovalDecidedData;
      return recordAnswer(updateNode(t, e.node_id, (n) => decideApproval(n, d)), e, d);
    }
    case "run.plan": {
      const d = data as RunPlanData;
      return { ...t, plan: { nodeId: e.node_id, seq: e.seq, ts: e.ts, steps: Array.isArray(d.steps) ? d.steps : [] } };
    }
    case "file.changed":
      return foldFileChanged(t, e);
    default:
      // A type this UI does not know: the log stays readable, the view unchanged.
      return t;
  }
}

function startNode(t: RunTranscript, id: string, ts: number, d: NodeStartedData): RunTranscript {
  if (t.nodes[id]) return t;
  const base: NodeBase = { id, status: "running", label: d.label ?? "", parent: d.parent, after: d.after, startedAt: ts };
  let node: TranscriptNode;
  switch (d.kind) {
    case "user":
      node = { ...base, kind: "user", status: "succeeded", text: d.text ?? "", answerTo: d.answer_to };
      break;
    case "llm":
      node = { ...base, kind: "llm", model: d.model, text: "" };
      break;
    case "tool":
      node = {
        ...base,
        kind: "tool",
        tool: d.tool ?? d.label ?? "",
        risk: d.risk ?? "",
        arguments: d.arguments,
        callId: d.call_id,
        isError: false,
        retryOf: d.retry_of,
      };
      break;
    default:
      node = { ...base, kind: "agent" };
  }
  return { ...t, nodeOrder: [...t.nodeOrder, id], nodes: { ...t.nodes, [id]: node } };
}

function finishNode(n: TranscriptNode, ts: number, d: NodeFinishedData): TranscriptNode {
  const closed = { status: d.status, error: d.error, durationMs: d.duration_ms, finishedAt: ts };
  switch (n.kind) {
    case "llm":
      return {
        ...n,
        ...closed,
        // The full response replaces the streamed text; an empty one is omitted on the wire.
        text: d.text ?? n.text,
        toolCalls: d.tool_calls,
        stopReason: d.stop_reason,
        usage: d.usage,
      };
    case "tool":
      return { ...n, ...closed, output: d.output, isError: !!d.is_error, code: d.code };
    default:
      return { ...n, ...closed };
  }
}

function requestApproval(t: RunTranscript, e: Event, d: ApprovalRequestedData): RunTranscript {
  if (!e.node_id) return t;
  const approval: ApprovalState = {
    interactionId: d.interaction_id,
    kind: d.kind ?? "approval",
    tool: d.tool,
    arguments: d.arguments,
    risk: d.risk,
    reason: d.reason,
    group: d.group,
    groupSize: d.group_size,
    // 0 on the wire means the interaction never expires.
    expiresAt: d.expires_at || undefined,
    defaultDecision: d.default_decision,
    question: d.question,
  };
  // The tool node normally exists; start one from the request if not.
  const started = t.nodes[e.node_id]
    ? t
    : startNode(t, e.node_id, e.ts, { kind: "tool", label: d.tool, tool: d.tool, arguments: d.arguments, risk: d.risk });
  return updateNode(started, e.node_id, (n) =>
    n.kind === "tool" ? { ...n, status: isOpen(n.status) ? "waiting" : n.status, approval } : n,
  );
}

function decideApproval(n: TranscriptNode, d: ApprovalDecidedData): TranscriptNode {
  if (n.kind !== "tool" || !n.approval) return n;
  const approval: ApprovalState = {
    ...n.approval,
    decision: d.decision,
    feedback: d.feedback,
    source: d.source,
    scope: d.scope,
    grantId: d.grant_id,
    editedArguments: d.arguments,
    text: d.text,
    choices: d.choices,
  };
  let status = n.status;
  // An approved call or an answered question goes on; a denied one is over.
  if (status === "waiting") status = d.decision === "deny" ? "denied" : "running";
  return { ...n, status, approval };
}

// recordPolicy and recordAnswer append a run's audit rows.
function recordPolicy(t: RunTranscript, e: Event, d: PolicyDecidedData): RunTranscript {
  if (!e.node_id) return t;
  const record: DecisionRecord = {
    kind: "policy",
    seq: e.seq,
    ts: e.ts,
    nodeId: e.node_id,
    tool: toolOf(t, e.node_id),
    effect: d.effect,
    reason: d.reason ?? "",
  };
  return { ...t, decisions: [...t.decisions, record] };
}

function recordAnswer(t: RunTranscript, e: Event, d: ApprovalDecidedData): RunTranscript {
  if (!e.node_id) return t;
  const n = t.nodes[e.node_id];
  const record: DecisionRecord = {
    kind: "answer",
    seq: e.seq,
    ts: e.ts,
    nodeId: e.node_id,
    tool: toolOf(t, e.node_id),
    interaction: n?.kind === "tool" ? (n.approval?.kind ?? "approval") : "approval",
    decision: d.decision,
    source: d.source ?? "",
    scope: d.scope,
    grantId: d.grant_id,
    feedback: d.feedback,
    edited: d.arguments !== undefined && d.arguments !== null,
  };
  return { ...t, decisions: [...t.decisions, record] };
}

// toolOf names the tool of a tool node, for an audit row.
function toolOf(t: RunTranscript, nodeId: string): string {
  const n = t.nodes[nodeId];
  return n?.kind === "tool" ? n.tool : "";
}

function isOpen(s: NodeStatus): boolean {
  return s === "pending" || s === "running" || s === "waiting";
}

function updateNode(
  t: RunTranscript,
  id: string | undefined,
  fn: (n: TranscriptNode) => TranscriptNode,
): RunTranscript {
  const n = id === undefined ? undefined : t.nodes[id];
  if (!n || id === undefined) return t;
  const next = fn(n);
  return next === n ? t : { ...t, nodes: { ...t.nodes, [id]: next } };
}

// A run is over once its status is one of these.
export const terminalStatuses: ReadonlySet<string> = new Set(["completed", "failed", "cancelled"]);
