// The shapes the reducer (reducer.ts) builds from a run's event log: a
// run's transcript, its nodes and what the UI shows of their decisions.

import type {
  ForkFiles,
  AgentRef,
  ArtifactCreatedData,
  Capability,
  Decision,
  GrantScope,
  InteractionKind,
  LLMAttemptData,
  Message,
  Next,
  NodeFinishedData,
  NodeRef,
  NodeStatus,
  PlanStep,
  PolicyDecidedData,
  Question,
  RunForkedData,
  ReplayDivergedData,
  RunStatus,
  RunSandbox,
  CallPreview,
  RunProjectServers,
  Refusals,
  ToolCall,
} from "../api/types";
import type { Elicitation } from "./elicitationFold";
import type { FileTouch, RunFiles } from "./fileFold";
import type { ToolProgress } from "./progressFold";
import type { ServerNote } from "./serverFold";
import type { Turn } from "./turnFold";

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
  // What the call would change, when its tool could tell (a write's diff).
  preview?: CallPreview;
  // The JSON schema of the tool's arguments, when known (the edit form's).
  schema?: unknown;
  // When it was asked (approval.requested's ts) and, once decided, when
  // the answer came: the span the call waited on a person.
  requestedAt: number;
  decidedAt?: number;
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

// ArtifactRecord is a file the run produced (artifact.created): a tool
// call's screenshot, or the browser's recording; nodeId is the call's node,
// absent for what the run produced as it ended. kind is "" when a
// recording left it out.
export type ArtifactRecord = Omit<ArtifactCreatedData, "kind"> & { kind: ArtifactCreatedData["kind"] | ""; seq: number; ts: number; nodeId?: string };

// Divergence is where a replay first sent the model something other than
// its recording did (replay.diverged); afterNode is the node that started
// last before it, which places it in the transcript.
export type Divergence = ReplayDivergedData & { seq: number; ts: number; afterNode?: string };

// Plan is the run's plan: the steps of its latest run.plan.
export type Plan = { nodeId?: string; seq: number; ts: number; steps: PlanStep[] };

export type NodeBase = {
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
  // The files this node produced (screenshots), in order.
  artifacts?: ArtifactRecord[];
};

// A user node's label says where its message came from: "instructions",
// "steer" for a message sent to the running agent, or "follow-up" for one
// that continued the run after it ended (a new turn, see turnFold.ts).
// answerTo is set on the answer to a question: the ask_user tool node.
export type UserNode = NodeBase & { kind: "user"; text: string; answerTo?: string };
export type LlmNode = NodeBase & {
  kind: "llm";
  model?: string;
  // The text of the current attempt: a failed attempt's text is void.
  text: string;
  // While it streams: the same text as its deltas came (see Streamed);
  // gone once node.finished gives the whole response.
  streamed?: Streamed;
  // The failed attempts that were retried, in order.
  attempts?: LLMAttemptData[];
  toolCalls?: ToolCall[];
  stopReason?: string;
  // The call's tokens and cost as node.finished gives them; no cost when
  // its model has no price.
  usage?: NodeFinishedData["usage"];
  costUsd?: number;
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
  // How far the call has got, as its tool last reported (tool.progress).
  progress?: ToolProgress;
  // The interrupted node this retried call replaces.
  retryOf?: string;
  // What this call did to workspace files (file.changed), in order.
  files?: FileTouch[];
  // What its MCP server asked the person while it ran, in order
  // (elicitationFold.ts); they leave status and approval as they were.
  elicitations?: Elicitation[];
};
export type AgentNode = NodeBase & { kind: "agent" };

// Streamed is a model call's streamed text as it came: the newest delta,
// where the text so far ends, and the deltas before it. A delta is added
// without copying those before (each Streamed shares the list it grew
// from), so a view can render only what a delta added and leave the rest
// as it drew it (transcript/StreamedText), where reading the whole text
// again would flatten and parse all of it on every token.
export type Streamed = { readonly text: string; readonly end: number; readonly prev?: Streamed };

// appendStreamed is s with text added.
export function appendStreamed(s: Streamed | undefined, text: string): Streamed {
  return { text, end: (s?.end ?? 0) + text.length, prev: s };
}
export type TranscriptNode = UserNode | LlmNode | ToolNode | AgentNode;

export type RunTranscript = {
  runId: string;
  lastSeq: number;
  // Set on a long run's end, folded from the event after this seq while
  // its whole history is read (sync.ts): what happened before is not in
  // it, so its nodes, turns and counts are the end's only. The whole
  // transcript replaces it.
  tailFrom?: number;
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
  // Every run.status, in log order: when the run was paused, waiting or
  // running (the timeline's paused spans).
  statusLog: StatusChange[];
  // What a paused run does next (from its last run.status).
  next?: Next;
  // What the run can do, and why not the rest, as its last run.status
  // from the server said; unset when that event did not say (a recording).
  capabilities?: Capability[];
  refusals?: Refusals;
  // A fork: where it branched from and the conversation it carries over.
  forkedFrom?: NodeRef;
  forkFiles?: ForkFiles;
  history?: Message[];
  // A replay: the run it replays (run.created), and the first difference
  // from its recording, once there is one.
  replayOf?: string;
  diverged?: Divergence;
  // The runs forked from this one, in the order they were made.
  forks: RunForkedData[];
  // The tools the run pauses before (run.created, then run.breakpoints).
  breakBefore: string[];
  // What became of the run's commands: sandboxed or not, and why.
  sandbox?: RunSandbox;
  // What the run was offered of its workspace's .mcp.json, when its agent
  // uses project servers.
  project?: RunProjectServers;
  // Node ids in the order their node.started arrived.
  nodeOrder: string[];
  nodes: Record<string, TranscriptNode>;
  plan?: Plan;
  // The audit of tool call decisions, in log order.
  decisions: DecisionRecord[];
  files: RunFiles;
  // Every file the run produced, in log order.
  artifacts: ArtifactRecord[];
  // What became of the MCP servers its calls reached (mcp.server), in log order.
  servers: ServerNote[];
  // Its turns: the first, then one per follow-up (turnFold.ts).
  turns: readonly Turn[];
};

// StatusChange is one run.status: the status the run went to, and when.
export type StatusChange = { status: RunStatus; ts: number };

export type StreamState = { runs: Record<string, RunTranscript> };
