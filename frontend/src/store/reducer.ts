// The one reducer from a run's event log to what the UI shows of it. It is
// pure (no clock, no I/O, inputs never mutated) so that the live view and
// replay build the same state from the same events. Events with a seq at or
// below the last one applied to their run are ignored.

import type {
  ApprovalDecidedData,
  ApprovalRequestedData,
  ArtifactCreatedData,
  Event,
  InteractionKind,
  LLMAttemptData,
  LLMDeltaData,
  NodeFinishedData,
  NodeStartedData,
  NodeStatus,
  PolicyDecidedData,
  RunBreakpointsData,
  RunCreatedData,
  RunForkedData,
  RunPlanData,
  ReplayDivergedData,
  RunStatus,
  RunStatusData,
} from "../api/types";
import { foldElicitationDecided, foldElicitationRequested, isElicitationDecision, isElicitationRequest } from "./elicitationFold";
import { foldFileChanged, noFiles } from "./fileFold";
import { foldProgress } from "./progressFold";
import { foldServer } from "./serverFold";
import { foldTurnNode, foldTurnStatus } from "./turnFold";

export type {
  AgentNode,
  ApprovalState,
  ArtifactRecord,
  DecisionRecord,
  Divergence,
  LlmNode,
  Plan,
  RunTranscript,
  StatusChange,
  StreamState,
  Streamed,
  ToolNode,
  TranscriptNode,
  UserNode,
} from "./transcript";
export { appendStreamed } from "./transcript";
export type { Turn } from "./turnFold";
import type { ApprovalState, ArtifactRecord, DecisionRecord, Divergence, NodeBase, RunTranscript, StreamState, TranscriptNode } from "./transcript";
import { appendStreamed } from "./transcript";

export const emptyStream: StreamState = { runs: {} };

export function emptyTranscript(runId: string): RunTranscript {
  return { runId, lastSeq: 0, demo: false, forks: [], breakBefore: [], nodeOrder: [], nodes: {}, decisions: [], files: noFiles, artifacts: [], servers: [], turns: [], statusLog: [] };
}

// reduce applies one event to the state of all runs.
export function reduce(state: StreamState, e: Event): StreamState {
  return reduceBatch(state, [e]);
}

// reduceBatch applies events in order, as reduce one at a time would, but
// copies each run's containers (its nodes, their order, its decisions) once
// per batch rather than once per event: a run of 10,000 events replays in
// one batch in milliseconds, where one event at a time copies 2,000 nodes
// 10,000 times. Events of different runs are independent, so each run's
// events are applied together.
export function reduceBatch(state: StreamState, events: readonly Event[]): StreamState {
  if (events.length === 0) return state;
  const byRun = new Map<string, Event[]>();
  for (const e of events) {
    const list = byRun.get(e.run_id);
    if (list) list.push(e);
    else byRun.set(e.run_id, [e]);
  }
  let runs: Record<string, RunTranscript> | undefined;
  for (const [runId, list] of byRun) {
    const prev = state.runs[runId] ?? emptyTranscript(runId);
    const next = reduceRunBatch(prev, list);
    if (next === prev) continue;
    runs ??= { ...state.runs };
    runs[runId] = next;
  }
  return runs ? { runs } : state;
}

// reduceRun applies one event of a run to its transcript.
export function reduceRun(t: RunTranscript, e: Event): RunTranscript {
  return reduceRunBatch(t, [e]);
}

// reduceRunBatch applies events of one run in order to its transcript; it
// returns t itself when every event was applied before.
export function reduceRunBatch(t: RunTranscript, events: readonly Event[]): RunTranscript {
  return new RunFold(t).add(events).transcript;
}

// RunFold folds batches of a run's events into its transcript, for a reader
// no one watches between batches (sync.ts readHistory, which folds a long
// run's history page by page): the batches share one draft, so the nodes
// and the order are copied once until the transcript is read, not once a
// batch (20 copies of 20,000 nodes for a 100,000-event run). The input
// transcript, and each one read from it, are never changed.
export class RunFold {
  private d?: Draft;
  constructor(private t: RunTranscript) {}

  add(events: readonly Event[]): this {
    for (const e of events) {
      if (e.seq <= this.lastSeq) continue;
      this.d ??= draft(this.t);
      apply(this.d, e);
      this.d.t.lastSeq = e.seq;
    }
    return this;
  }

  // lastSeq is the last event folded.
  get lastSeq(): number {
    return this.d ? this.d.t.lastSeq : this.t.lastSeq;
  }

  // transcript is the run's state after the batches added: the next batch
  // is folded into a copy of it.
  get transcript(): RunTranscript {
    if (this.d) {
      this.t = this.d.t;
      this.d = undefined;
    }
    return this.t;
  }
}

// grownFrom records the node order each new one was copied from, before
// nodes were appended to it: a run's order only grows, so what is read of
// it node by node (the graph's steps, the nodes' kinds, the browser's
// calls) can be extended to a longer one rather than read again. At
// 20,000 nodes, reading it all again for each update of a long run's
// history cost tens of milliseconds an update. Side-table, not a field:
// transcripts stay plain data, equal when their contents are.
const grownFrom = new WeakMap<readonly string[], readonly string[]>();

// orderGrows says whether after is the order before with nodes appended
// (the reducer made it from before, in one or more batches): the same
// nodes first, in the same order, of the same run.
export function orderGrows(before: readonly string[], after: readonly string[]): boolean {
  if (before.length === 0) return true;
  // A reader that looked at none of many batches reads the order again.
  let o: readonly string[] | undefined = after;
  for (let i = 0; o !== undefined && i < 64; i++, o = grownFrom.get(o)) if (o === before) return true;
  return false;
}

// Draft is a transcript being changed by one batch: a shallow copy of the
// input whose containers are copied on their first write (own* then says
// the draft holds the only reference), so the input is never changed.
type Draft = { t: RunTranscript; ownNodes: boolean; ownOrder: boolean; ownDecisions: boolean };

function draft(t: RunTranscript): Draft {
  return { t: { ...t }, ownNodes: false, ownOrder: false, ownDecisions: false };
}

function setNode(d: Draft, id: string, n: TranscriptNode): void {
  if (!d.ownNodes) {
    d.t.nodes = { ...d.t.nodes };
    d.ownNodes = true;
  }
  d.t.nodes[id] = n;
}

function appendOrder(d: Draft, id: string): void {
  if (!d.ownOrder) {
    const before = d.t.nodeOrder;
    d.t.nodeOrder = [...before];
    grownFrom.set(d.t.nodeOrder, before);
    d.ownOrder = true;
  }
  d.t.nodeOrder.push(id);
}

function appendDecision(d: Draft, r: DecisionRecord): void {
  if (!d.ownDecisions) {
    d.t.decisions = [...d.t.decisions];
    d.ownDecisions = true;
  }
  d.t.decisions.push(r);
}

function updateNode(d: Draft, id: string | undefined, fn: (n: TranscriptNode) => TranscriptNode): void {
  const n = id === undefined ? undefined : d.t.nodes[id];
  if (!n || id === undefined) return;
  const next = fn(n);
  if (next !== n) setNode(d, id, next);
}

function apply(d: Draft, e: Event): void {
  const data = (e.data ?? {}) as object;
  const t = d.t;
  switch (e.type) {
    case "run.created": {
      const c = data as RunCreatedData;
      t.agent = c.agent;
      t.instructions = c.instructions;
      t.workspace = c.workspace;
      t.demo = !!c.agent?.demo;
      t.mode = c.mode;
      t.unattended = !!c.unattended;
      t.forkedFrom = c.forked_from;
      t.forkFiles = c.fork_files;
      t.history = c.history;
      t.replayOf = c.replay_of || undefined;
      t.breakBefore = c.break_before ?? [];
      t.sandbox = c.sandbox;
      t.project = c.project_servers;
      return;
    }
    case "run.breakpoints":
      t.breakBefore = (data as RunBreakpointsData).break_before ?? [];
      return;
    case "run.status": {
      const c = data as RunStatusData;
      // run.status's status is a plain string in Go (event.RunStatusData) until it names run.Status.
      t.status = c.status as RunStatus;
      // An end closes the turn; a follow-up's running opens none (its
      // root node does) and, as any status, clears the last one's error.
      t.turns = foldTurnStatus(t.turns, c);
      t.reason = c.reason;
      t.error = c.error;
      t.next = c.next;
      // A few a run (pauses, approvals): copied, not drafted.
      t.statusLog = [...t.statusLog, { status: t.status, ts: e.ts }];
      t.capabilities = Array.isArray(e.capabilities) ? e.capabilities : undefined;
      t.refusals = e.capabilities && e.refusals && typeof e.refusals === "object" ? e.refusals : undefined;
      return;
    }
    case "run.forked": {
      const c = data as RunForkedData;
      if (!c.fork || t.forks.some((f) => f.fork === c.fork)) return;
      t.forks = [...t.forks, { node_id: c.node_id, fork: c.fork }];
      return;
    }
    case "node.started":
      if (e.node_id) startNode(d, e.node_id, e.ts, data as NodeStartedData);
      t.turns = foldTurnNode(t.turns, e, data as NodeStartedData);
      return;
    case "llm.delta": {
      const c = data as LLMDeltaData;
      // As the text was concatenated before: whatever a recording holds, as a string.
      const text = String(c.text ?? "");
      updateNode(d, e.node_id, (n) =>
        n.kind === "llm" && text !== "" ? { ...n, text: n.text + text, streamed: appendStreamed(n.streamed, text) } : n,
      );
      return;
    }
    case "llm.attempt": {
      // The attempt failed and is retried: its streamed text is void.
      const c = data as LLMAttemptData;
      updateNode(d, e.node_id, (n) =>
        n.kind === "llm" ? { ...n, text: "", streamed: undefined, attempts: [...(n.attempts ?? []), c] } : n,
      );
      return;
    }
    case "tool.executing":
      updateNode(d, e.node_id, (n) =>
        n.kind === "tool" ? { ...n, executing: true, status: isOpen(n.status) ? "running" : n.status } : n,
      );
      return;
    case "node.finished":
      updateNode(d, e.node_id, (n) => finishNode(n, e.ts, data as NodeFinishedData));
      return;
    case "policy.decided": {
      const c = data as PolicyDecidedData;
      updateNode(d, e.node_id, (n) => (n.kind === "tool" ? { ...n, policy: c } : n));
      recordPolicy(d, e, c);
      return;
    }
    case "approval.requested": {
      const c = data as ApprovalRequestedData;
      if (isElicitationRequest(c)) requestElicitation(d, e, c);
      else requestApproval(d, e, c);
      return;
    }
    case "approval.decided": {
      const c = data as ApprovalDecidedData;
      const elicitation = isElicitationDecision(e.node_id ? t.nodes[e.node_id] : undefined, c);
      updateNode(d, e.node_id, (n) => (elicitation ? foldElicitationDecided(n, c, e.ts) : decideApproval(n, c, e.ts)));
      recordAnswer(d, e, c, elicitation);
      return;
    }
    case "run.plan": {
      const c = data as RunPlanData;
      t.plan = { nodeId: e.node_id, seq: e.seq, ts: e.ts, steps: Array.isArray(c.steps) ? c.steps : [] };
      return;
    }
    case "file.changed": {
      // Rare, and folded in its own file: it copies what it changes.
      const before = t.nodes;
      d.t = foldFileChanged(t, e);
      d.ownNodes ||= d.t.nodes !== before;
      return;
    }
    case "artifact.created":
      addArtifact(d, e, data as Partial<ArtifactCreatedData>);
      return;
    case "mcp.server":
      // Rare, and folded in its own file: it copies the list it adds to.
      d.t = foldServer(t, e);
      return;
    case "tool.progress":
      // Each says where the call stands now: the latest is kept (progressFold.ts).
      updateNode(d, e.node_id, (n) => foldProgress(n, e));
      return;
    case "replay.diverged":
      // Recorded once; should another come, the first difference is the one that explains the rest.
      if (!t.diverged) t.diverged = divergence(e, data as Partial<ReplayDivergedData>, t.nodeOrder);
      return;
    default:
      // A type this UI does not know: the log stays readable, the view unchanged.
      return;
  }
}

// addArtifact records a file on the run and, when the event names one, on
// its node. Rare (a screenshot per call at most): the list is copied.
function addArtifact(d: Draft, e: Event, c: Partial<ArtifactCreatedData>): void {
  if (typeof c.name !== "string" || c.name === "") return;
  const a: ArtifactRecord = {
    name: c.name,
    kind: c.kind ?? "",
    mime: c.mime ?? "",
    size: c.size ?? 0,
    description: c.description,
    seq: e.seq,
    ts: e.ts,
    nodeId: e.node_id || undefined,
  };
  d.t.artifacts = [...d.t.artifacts, a];
  updateNode(d, a.nodeId, (n) => ({ ...n, artifacts: [...(n.artifacts ?? []), a] }));
}

function divergence(e: Event, c: Partial<ReplayDivergedData>, order: readonly string[]): Divergence {
  const text = (v: unknown) => (typeof v === "string" ? v : v === undefined || v === null ? "" : JSON.stringify(v));
  return {
    step: typeof c.step === "number" ? c.step : 0,
    field: text(c.field),
    recorded: text(c.recorded),
    got: text(c.got),
    seq: e.seq,
    ts: e.ts,
    afterNode: order[order.length - 1],
  };
}

function startNode(d: Draft, id: string, ts: number, c: NodeStartedData): void {
  if (d.t.nodes[id]) return;
  const base: NodeBase = { id, status: "running", label: c.label ?? "", parent: c.parent, after: c.after, startedAt: ts };
  let node: TranscriptNode;
  switch (c.kind) {
    case "user":
      node = { ...base, kind: "user", status: "succeeded", text: c.text ?? "", answerTo: c.answer_to };
      break;
    case "llm":
      node = { ...base, kind: "llm", model: c.model, text: "" };
      break;
    case "tool":
      node = {
        ...base,
        kind: "tool",
        tool: c.tool ?? c.label ?? "",
        risk: c.risk ?? "",
        arguments: c.arguments,
        callId: c.call_id,
        isError: false,
        retryOf: c.retry_of,
      };
      break;
    default:
      node = { ...base, kind: "agent" };
  }
  setNode(d, id, node);
  appendOrder(d, id);
}

function finishNode(n: TranscriptNode, ts: number, c: NodeFinishedData): TranscriptNode {
  const closed = { status: c.status, error: c.error, durationMs: c.duration_ms, finishedAt: ts };
  switch (n.kind) {
    case "llm":
      return {
        ...n,
        ...closed,
        // The full response replaces the streamed text; an empty one is omitted on the wire.
        text: c.text ?? n.text,
        streamed: undefined,
        toolCalls: c.tool_calls,
        stopReason: c.stop_reason,
        usage: c.usage,
        costUsd: c.cost_usd || undefined,
      };
    case "tool":
      return { ...n, ...closed, output: c.output, isError: !!c.is_error, code: c.code };
    default:
      return { ...n, ...closed };
  }
}

function requestApproval(d: Draft, e: Event, c: ApprovalRequestedData): void {
  if (!e.node_id) return;
  const approval: ApprovalState = {
    interactionId: c.interaction_id,
    kind: c.kind ?? "approval",
    tool: c.tool,
    arguments: c.arguments,
    risk: c.risk,
    reason: c.reason,
    group: c.group,
    groupSize: c.group_size,
    // 0 on the wire means the interaction never expires.
    expiresAt: c.expires_at || undefined,
    defaultDecision: c.default_decision,
    question: c.question,
    preview: c.preview,
    schema: c.schema,
    requestedAt: e.ts,
  };
  // The tool node normally exists; start one from the request if not.
  startNode(d, e.node_id, e.ts, { kind: "tool", label: c.tool, tool: c.tool, arguments: c.arguments, risk: c.risk });
  updateNode(d, e.node_id, (n) =>
    n.kind === "tool" ? { ...n, status: isOpen(n.status) ? "waiting" : n.status, approval } : n,
  );
}

// requestElicitation records what an MCP server asks on its running call;
// the call's status and approval stay as they were.
function requestElicitation(d: Draft, e: Event, c: ApprovalRequestedData): void {
  if (!e.node_id) return;
  startNode(d, e.node_id, e.ts, { kind: "tool", label: c.tool, tool: c.tool, arguments: c.arguments, risk: c.risk });
  updateNode(d, e.node_id, (n) => foldElicitationRequested(n, e, c));
}

function decideApproval(n: TranscriptNode, c: ApprovalDecidedData, ts: number): TranscriptNode {
  if (n.kind !== "tool" || !n.approval) return n;
  const approval: ApprovalState = {
    ...n.approval,
    decidedAt: ts,
    decision: c.decision,
    feedback: c.feedback,
    source: c.source,
    scope: c.scope,
    grantId: c.grant_id,
    editedArguments: c.arguments,
    text: c.text,
    choices: c.choices,
  };
  let status = n.status;
  // An approved call or an answered question goes on; a denied one is over.
  if (status === "waiting") status = c.decision === "deny" ? "denied" : "running";
  return { ...n, status, approval };
}

// recordPolicy and recordAnswer append a run's audit rows.
function recordPolicy(d: Draft, e: Event, c: PolicyDecidedData): void {
  if (!e.node_id) return;
  appendDecision(d, {
    kind: "policy",
    seq: e.seq,
    ts: e.ts,
    nodeId: e.node_id,
    tool: toolOf(d.t, e.node_id),
    effect: c.effect,
    reason: c.reason ?? "",
  });
}

function recordAnswer(d: Draft, e: Event, c: ApprovalDecidedData, elicitation: boolean): void {
  if (!e.node_id) return;
  const n = d.t.nodes[e.node_id];
  const interaction: InteractionKind = elicitation
    ? "elicitation"
    : n?.kind === "tool"
      ? (n.approval?.kind ?? "approval")
      : "approval";
  appendDecision(d, {
    kind: "answer",
    seq: e.seq,
    ts: e.ts,
    nodeId: e.node_id,
    tool: toolOf(d.t, e.node_id),
    interaction,
    decision: c.decision,
    source: c.source ?? "",
    scope: c.scope,
    grantId: c.grant_id,
    feedback: c.feedback,
    edited: c.arguments !== undefined && c.arguments !== null,
  });
}

// toolOf names the tool of a tool node, for an audit row.
function toolOf(t: RunTranscript, nodeId: string): string {
  const n = t.nodes[nodeId];
  return n?.kind === "tool" ? n.tool : "";
}

function isOpen(s: NodeStatus): boolean {
  return s === "pending" || s === "running" || s === "waiting";
}
