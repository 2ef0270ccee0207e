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
  LLMAttemptData,
  LLMDeltaData,
  Message,
  Next,
  NodeFinishedData,
  NodeRef,
  NodeStartedData,
  NodeStatus,
  PolicyDecidedData,
  RunCreatedData,
  RunForkedData,
  RunStatus,
  RunStatusData,
  ToolCall,
  Usage,
} from "../api/types";

export type ApprovalState = {
  interactionId: string;
  tool: string;
  arguments: unknown;
  risk: string;
  reason: string;
  // Set once approval.decided arrives.
  decision?: Decision;
  feedback?: string;
  source?: string;
};

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
export type UserNode = NodeBase & { kind: "user"; text: string };
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
};

export type StreamState = { runs: Record<string, RunTranscript> };

export const emptyStream: StreamState = { runs: {} };

export function emptyTranscript(runId: string): RunTranscript {
  return { runId, lastSeq: 0, demo: false, forks: [], nodeOrder: [], nodes: {} };
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
      return updateNode(t, e.node_id, (n) => (n.kind === "tool" ? { ...n, policy: d } : n));
    }
    case "approval.requested":
      return requestApproval(t, e, data as ApprovalRequestedData);
    case "approval.decided":
      return updateNode(t, e.node_id, (n) => decideApproval(n, data as ApprovalDecidedData));
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
      node = { ...base, kind: "user", status: "succeeded", text: d.text ?? "" };
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
    tool: d.tool,
    arguments: d.arguments,
    risk: d.risk,
    reason: d.reason,
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
  const approval = { ...n.approval, decision: d.decision, feedback: d.feedback, source: d.source };
  let status = n.status;
  if (status === "waiting") status = d.decision === "approve" ? "running" : "denied";
  return { ...n, status, approval };
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
