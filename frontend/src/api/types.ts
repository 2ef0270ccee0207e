// Wire types of the Steward HTTP and WebSocket API (v1), mirroring
// docs/api.md and the Go structs one to one. Times are Unix milliseconds.

import type { FileConflict } from "./fileTypes";

// The file journal's types live in their own file; they are part of this one.
export type * from "./fileTypes";
// So are the settings' and the whole agent definition's.
export type * from "./settingsTypes";

export type Info = {
  version: string;
  default_workspace: string;
  provider: string;
  demo: boolean;
  note: string;
  // desktop: served for the desktop window, which offers native dialogs.
  desktop?: boolean;
  // Whether commands can be sandboxed on this machine, and why not.
  sandbox?: { available: boolean; reason?: string };
};

// How an agent's commands are confined: auto (sandboxed where the sandbox
// works; elsewhere every command asks), on (sandboxed or refused), off
// (commands see what Steward's user sees: a risk).
export type SandboxMode = "auto" | "on" | "off";
// Whether sandboxed commands have the network, loopback included.
export type SandboxNetwork = "off" | "on";

// run.created's sandbox: what became of the run's commands on the machine
// that started it; when not confined, reason says why.
export type RunSandbox = { mode: SandboxMode; network: SandboxNetwork; confined: boolean; reason?: string };

export type Agent = {
  id: string;
  name: string;
  description: string;
  provider: "auto" | "openai" | "script";
  model: string;
  base_url?: string;
  system_prompt: string;
  tools: string[];
  mode: PermissionMode;
  max_steps: number;
  // Tool names the agent's runs pause before, like breakpoints.
  break_before?: string[];
  script?: string;
  // How long an approval or question waits before approval_default is
  // taken (a Go duration such as "5m"; a question is declined); empty waits
  // for ever.
  approval_timeout?: string;
  approval_default?: "deny" | "approve";
  // How the agent's commands are confined; absent reads auto and off.
  sandbox?: SandboxMode;
  sandbox_network?: SandboxNetwork;
  created_at: number;
  updated_at: number;
  // What "auto" resolved to on this machine, and whether that is the demo script.
  effective_provider: string;
  effective_model: string;
  demo: boolean;
};

// What runs without asking: ask (read tools only), edits (workspace writes
// too), plan (only read tools are offered), auto (everything, confined).
export type PermissionMode = "ask" | "edits" | "plan" | "auto";

export type AgentInput = Omit<
  Agent,
  "id" | "created_at" | "updated_at" | "effective_provider" | "effective_model" | "demo"
>;

// pausing: a pause was asked and the run stops at its next safe point;
// paused: stopped at a safe point, `next` says what comes next.
export type RunStatus =
  | "queued"
  | "running"
  | "pausing"
  | "paused"
  | "waiting"
  | "completed"
  | "failed"
  | "cancelled";

// Next is the action a paused run takes when it goes on.
export type Next = {
  kind: "model" | "tool";
  node_id?: string;
  tool?: string;
  arguments?: unknown;
  // The tool call started before a crash and its outcome is unknown: the
  // person decides retry, skip or cancel.
  interrupted?: boolean;
  // A budget ran out: the run's limits; continue with higher ones to go on.
  limits?: Limits;
};

// A run's budgets; 0 or absent means no limit.
export type Limits = { max_steps?: number; max_tokens?: number; max_cost_usd?: number; max_wall_time_ms?: number };

export type Usage = { input_tokens: number; output_tokens: number; cached_tokens: number; cost_usd?: number };

export type Run = {
  id: string;
  agent_id: string;
  agent_name: string;
  status: RunStatus;
  reason?: string;
  error?: string;
  instructions: string;
  workspace: string;
  mode: string;
  provider: string;
  model: string;
  demo: boolean;
  unattended: boolean;
  created_at: number;
  updated_at: number;
  last_seq: number;
  steps: number;
  pending_approvals: number;
  usage: Usage;
  capabilities: Capability[]; // what is possible now, e.g. ["pause", "steer", "cancel", "fork"]
  refusals?: Refusals; // why each other command is not
  next?: Next; // set while the run is paused
  forked_from?: string; // the run this one was forked from
  // A run imported from a recording (read-only): the id it had where it was
  // recorded.
  imported_from?: string;
  // A replay: the run it replays. From the Replay button, a run of this
  // Steward; from `steward replay FILE`, the recorded id, which may not
  // exist here.
  replay_of?: string;
};

// Capability is what a run can do now: a command, or "replay" (POST
// /runs/{id}/replay), which an ended run that is not a fork can.
export type Capability = CommandType | "replay";

// Refusals say, for each command a run cannot take now, why not: the code
// and message the command would be rejected with.
export type Refusal = { code: string; message: string };
export type Refusals = Partial<Record<CommandType, Refusal>>;

// POST /runs/{id}/replay; every field is optional. tools "recorded" (the
// default) takes tool results from the recording, "live" runs the tools for
// real; live_from N > 0 sends model call N onward to the agent's real model;
// workspace "" is a fresh folder under Steward's home.
// agent names one of this machine's agents to replay with: a run imported
// from a recording (someone else's content), or whose agent is gone, needs
// one, and then replays with that agent's settings, in ask mode unless mode
// says otherwise, starting paused. allow_nonempty lets workspace hold files.
export type ReplayRequest = {
  tools?: ReplayTools;
  live_from?: number;
  workspace?: string;
  allow_nonempty?: boolean;
  agent?: string;
  mode?: PermissionMode;
};
export type ReplayTools = "recorded" | "live";

export type StartRun = {
  agent: string;
  instructions: string;
  workspace: string;
  unattended?: boolean;
  break_before?: string[];
  mode?: PermissionMode; // overrides the agent's permission mode for this run
  // override the agent's sandbox settings for this run
  sandbox?: SandboxMode;
  sandbox_network?: SandboxNetwork;
};

export type CommandType = "pause" | "continue" | "step" | "steer" | "cancel" | "fork" | "retry" | "skip" | "break" | "unbreak";
// text is the message of steer; node_id the node of fork (required) and of
// retry and skip (optional: the interrupted call).
// tool goes with break and unbreak: the tool to pause before (or no longer).
// agent and workspace go with fork: the new run's agent (one of this
// machine's) and folder; a fork of a foreign run needs both, and is
// rejected with code needs_choice without them.
export type Command = {
  command_id: string;
  type: CommandType;
  text?: string;
  node_id?: string;
  limits?: Limits;
  tool?: string;
  agent?: string;
  workspace?: string;
};
export type CommandResult = {
  command_id: string;
  status: "accepted" | "rejected";
  code?: "terminal" | "invalid_state" | "unsupported" | "needs_choice";
  message?: string;
  fork?: string; // an accepted fork: the new run's id
};

// approve and deny decide an approval; answer answers a question, and deny
// declines it.
export type Decision = "approve" | "deny" | "answer";

export type InteractionKind = "approval" | "question";

export type QuestionOption = { label: string; description?: string };

// Question is what an ask_user call asks: free text when it has no options;
// one option, or several with multiple; allow_other adds a free-text answer.
export type Question = { text: string; options?: QuestionOption[]; multiple?: boolean; allow_other?: boolean };

// InteractionAnswer is how an interaction was answered. source is the
// surface (web, desktop, cli, api), "timeout" when default_decision was
// taken, or "policy".
export type InteractionAnswer = {
  decision: Decision;
  feedback?: string;
  source: string;
  arguments?: unknown; // an approval's edited arguments, which are what ran
  text?: string;
  choices?: string[];
};

export type Interaction = {
  id: string;
  run_id: string;
  node_id: string;
  kind: InteractionKind;
  status: "pending" | "answered" | "cancelled" | "expired";
  tool: string;
  arguments: unknown;
  risk: string;
  reason: string;
  // The model node whose turn asked for the call; group_size > 1 means
  // parallel calls of that turn, which can be decided together.
  group?: string;
  group_size?: number;
  // When default_decision is taken if nobody answers; absent or 0: never.
  expires_at?: number;
  default_decision?: "deny" | "approve";
  question?: Question;
  created_at: number;
  answered_at?: number;
  answer?: InteractionAnswer;
};

// scope also saves the answer as a grant ("approve always"): for this run, its
// agent, or everywhere; it matches the same tool and key argument, or any
// argument with any_argument.
export type GrantScope = "run" | "agent" | "everywhere";
export type Answer = {
  decision: Decision;
  feedback?: string;
  source?: string;
  scope?: GrantScope;
  any_argument?: boolean;
  // approve only: the person's edit of the arguments, validated against
  // the tool's schema (400 invalid with the reason).
  arguments?: Record<string, unknown>;
  // answer only: a question's free text (or "other") and chosen labels.
  text?: string;
  choices?: string[];
};

// POST /interactions/answers decides several interactions, each on its own.
export type BatchAnswer = Answer & { id: string };
export type BatchResult = { id: string; interaction?: Interaction; error?: { code: string; message: string } };

// A saved "approve always" (allow) or "deny always" (deny).
export type Grant = {
  id: string;
  effect: "allow" | "deny";
  tool: string;
  match: string; // the key argument, glob characters escaped; "" for any call of tool
  scope: GrantScope;
  run_id?: string;
  agent_id?: string;
  created_at: number;
};

export type ToolSpec = {
  name: string;
  description: string;
  risk: "read" | "write" | "exec" | "network" | "destructive";
  schema: object;
  // Its program runs in the command sandbox (run_command).
  sandboxed?: boolean;
};

export type GraphNode = {
  id: string;
  kind: "user" | "llm" | "tool" | "agent";
  status: string;
  label: string;
  parent?: string;
  after: string[];
  started_at: number;
  finished_at?: number;
  tool?: string;
  duration_ms: number;
  error?: string;
  attempts?: number;
  usage?: Usage;
};
export type GraphEdge = { from: string; to: string; kind: "parent" | "after" | "fork" };
export type Graph = { nodes: GraphNode[]; edges: GraphEdge[] };

// GET /api/v1/runs/{id}/nodes/{node}: one node with its events in order and,
// for a model call, the conversation it was given.
export type NodeDetail = { node: GraphNode; events: Event[]; input?: Message[] };

// GET /api/v1/fs/dirs: the subfolders of a folder on the server's machine,
// sorted case-insensitively with dot folders last, at most 1000.
export type DirEntry = { name: string; path: string; link?: boolean };
export type DirList = {
  path: string; // absolute and cleaned
  parent?: string; // absent at the root
  dirs: DirEntry[];
  truncated: boolean;
  home: string; // "" when unknown
};

export type EventPage = { events: Event[]; next_after: number; more: boolean };

// Events (schema version 1). Event is the envelope; the payload types below
// are what `data` holds for each `type`.

export type EventType =
  | "run.created"
  | "run.status"
  | "node.started"
  | "llm.delta"
  | "node.finished"
  | "policy.decided"
  | "approval.requested"
  | "approval.decided"
  | "tool.executing"
  | "llm.attempt"
  | "run.forked"
  | "run.plan"
  | "file.changed"
  | "artifact.created"
  | "run.breakpoints"
  | "replay.diverged";

export type Event = {
  run_id: string;
  seq: number;
  ts: number;
  type: EventType | (string & {});
  node_id?: string;
  data: unknown;
  // On a run.status from the server: what the run can do after it, and
  // why not the rest (never in a recording).
  capabilities?: Capability[];
  refusals?: Refusals;
};

export type AgentRef = { id: string; name: string; provider: string; model: string; demo?: boolean };

export type NodeRef = { run_id: string; node_id: string };

// Message is one message of the conversation a fork carries over.
export type Message = {
  role: string; // user, assistant, tool
  text?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  is_error?: boolean;
};

// run.breakpoints: the run's whole list of tools to pause before, after a
// break or unbreak command.
export type RunBreakpointsData = { break_before: string[] };

export type RunCreatedData = {
  agent: AgentRef;
  instructions: string;
  workspace: string;
  mode: string;
  max_steps: number;
  unattended?: boolean;
  spec?: unknown; // the whole agent definition the run started with
  break_before?: string[];
  // A fork: the run and node it branched from, and the conversation up to
  // that node, which its first model call continues.
  forked_from?: NodeRef;
  history?: Message[];
  replay_of?: string; // the recorded run this one replays (steward replay)
  sandbox?: RunSandbox;
};

// replay.diverged (node_id ""): the first difference between what a replay
// sent the model at model call step and what its recording sent there;
// field says where in the request. Information, not a failure: the run
// goes on.
export type ReplayDivergedData = { step: number; field: string; recorded: string; got: string };

export type RunStatusData = { status: RunStatus; reason?: string; error?: string; next?: Next };

// run.forked: another run was forked from this one at node_id.
export type RunForkedData = { node_id: string; fork: string };

// llm.attempt: a failed attempt of a model call that will be retried; the
// text streamed by that attempt is void.
export type LLMAttemptData = { attempt: number; kind: string; error: string; retry_in_ms: number };

// tool.executing (data {}): the tool call starts its side effect now.
export type ToolExecutingData = Record<string, never>;

export type NodeKind = "user" | "llm" | "tool" | "agent";

export type NodeStatus =
  | "pending"
  | "waiting"
  | "running"
  | "succeeded"
  | "failed"
  | "denied"
  | "cancelled"
  | "interrupted";

export type NodeStartedData = {
  kind: NodeKind;
  parent?: string;
  after?: string[];
  label: string;
  step?: number;
  text?: string; // user
  model?: string; // llm
  tool?: string; // tool
  call_id?: string;
  arguments?: unknown;
  risk?: string;
  retry_of?: string; // tool: the interrupted node this retried call replaces
  answer_to?: string; // user: the ask_user tool node this message answers
};

export type LLMDeltaData = { text: string };

export type ToolCall = { id: string; name: string; arguments: unknown };

export type NodeFinishedData = {
  status: NodeStatus;
  error?: string;
  duration_ms: number;
  // llm nodes: the whole response
  text?: string;
  tool_calls?: ToolCall[];
  stop_reason?: string;
  usage?: Usage;
  // tool nodes: what the model receives
  output?: string;
  is_error?: boolean;
  code?: string; // why a tool call failed: invalid_arguments, unknown_tool, denied, ...
};

// touches: the workspace paths the call was decided on (its real path, and
// via when the call named it otherwise); risk: exec for a write of a file
// that runs programs.
export type PolicyDecidedData = {
  effect: "allow" | "ask" | "deny";
  reason: string;
  risk?: string;
  touched?: boolean;
  touches?: { path: string; via?: string; access: "read" | "write" }[];
};

// approval.requested opens an approval or, with kind question, the question
// of an ask_user call; node_id is the tool node.
export type ApprovalRequestedData = {
  interaction_id: string;
  kind?: InteractionKind; // absent means approval
  tool: string;
  arguments: unknown;
  risk: string;
  reason: string;
  group?: string;
  group_size?: number;
  expires_at?: number;
  default_decision?: "deny" | "approve";
  question?: Question;
};

export type ApprovalDecidedData = {
  interaction_id: string;
  decision: Decision;
  feedback?: string;
  source: string; // web, desktop, cli, api, timeout, or policy
  // Set when the answer saved a grant.
  scope?: GrantScope;
  grant_id?: string;
  arguments?: unknown; // edit-then-approve: the edited arguments, which are what runs
  text?: string;
  choices?: string[];
};

export type PlanStepStatus = "pending" | "in_progress" | "done";
export type PlanStep = { title: string; status: PlanStepStatus };
// run.plan (node_id: the update_plan call): the latest one is the run's plan.
export type RunPlanData = { steps: PlanStep[] };

// ArtifactKind: a screenshot, a recording's video, or a recording's frames
// left unencoded (no ffmpeg: its description says what to install).
export type ArtifactKind = "screenshot" | "video" | "frames" | (string & {});

// Artifact is a file a tool call or a run produced (tool.Artifact), served
// by GET /runs/{id}/artifacts/{name}. name is relative to the run's
// artifacts, slash-separated ("shots/n_12.png").
export type Artifact = {
  name: string;
  kind: ArtifactKind;
  mime: string; // image/png, image/jpeg, video/mp4, video/webm
  size: number;
  description?: string;
};

// artifact.created: node_id is the tool call that produced the file; absent
// for what the run produced as it ended (the browser's recording).
export type ArtifactCreatedData = Artifact;

// Run-level event types: these also reach the all-runs subscription.
export const runLevelTypes: ReadonlySet<string> = new Set([
  "run.created",
  "run.status",
  "approval.requested",
  "approval.decided",
  "run.forked",
]);

// WebSocket messages.

export type ClientMessage =
  | { type: "subscribe"; id: string; run_id?: string; after?: number }
  | { type: "unsubscribe"; id: string; run_id: string }
  | { type: "command"; id: string; run_id: string; command: Command }
  | { type: "answer"; id: string; interaction_id: string; answer: Answer };

export type ServerMessage =
  | { type: "event"; event: Event }
  | { type: "caught_up"; run_id: string; seq: number }
  | { type: "ack"; id: string; result: unknown }
  | { type: "error"; id?: string; code: string; message: string };

// conflicts: a 409 of an undo, revert or rewind, the files that stopped it.
export type ErrorBody = { error: { code: string; message: string; conflicts?: FileConflict[] } };
