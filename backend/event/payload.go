package event

import "encoding/json"

// RunCreatedData is the first event of every run.
type RunCreatedData struct {
	Agent        AgentRef `json:"agent"`
	Instructions string   `json:"instructions"`
	Workspace    string   `json:"workspace"`
	Mode         Mode     `json:"mode"`
	MaxSteps     int      `json:"max_steps"`
	Unattended   bool     `json:"unattended,omitempty"`
	// Rules are the run's permission rules, from the agent, the run and the
	// global config, each with its source; the same as Spec's.
	Rules []Rule `json:"rules,omitempty"`
	// Spec is the whole agent definition the run was started with, so that a
	// run can be resumed after a restart whatever became of the agent.
	Spec json.RawMessage `json:"spec,omitempty"`
	// BreakBefore lists tool names the run pauses before, like breakpoints.
	BreakBefore []string `json:"break_before,omitempty"`
	// Limits are the run's budgets at its start (a continue may raise them).
	Limits *Limits `json:"limits,omitempty"`
	// ForkedFrom and History describe a fork: the run and node it branched
	// from, and the conversation up to that node, which its first model call
	// continues.
	ForkedFrom *NodeRef  `json:"forked_from,omitempty"`
	History    []Message `json:"history,omitempty"`
	// ForkFiles is what a fork did with the workspace's files.
	ForkFiles *ForkFiles `json:"fork_files,omitempty"`
	// ReplayOf is the id of the recorded run this run replays (steward
	// replay): a new run linked to its source.
	ReplayOf string `json:"replay_of,omitempty"`
	// Sandbox is what became of the run's commands on the machine that
	// started it, so that every surface can say when they are not
	// sandboxed.
	Sandbox *Sandbox `json:"sandbox,omitempty"`
	// Project is what the run was offered of its workspace's .mcp.json,
	// when its agent uses project servers: which servers, or why none.
	Project *ProjectServers `json:"project_servers,omitempty"`
}

// ForkFiles is a fork's choice of files, as it was carried out.
type ForkFiles struct {
	Choice ForkFilesChoice `json:"choice"`
	// Op is the restore (choice restore) as the source run's journal
	// records it: one op, undone like any other there. It is empty when no
	// file had changed after the node.
	Op string `json:"op,omitempty"`
	// Restored counts the files the restore put back.
	Restored int `json:"restored,omitempty"`
	// From is the folder that was copied (choice copy); the fork's
	// workspace is the copy.
	From string `json:"from,omitempty"`
	// Copied counts the files and links copied (choice copy); Skipped the
	// entries that are neither (sockets, devices, pipes), not copied.
	Copied  int `json:"copied,omitempty"`
	Skipped int `json:"skipped,omitempty"`
}

// ProjectServers is what a run was offered of the MCP servers its
// workspace's .mcp.json declares: only those of a file the person approved
// as it is now, and never one named as a server of the person's.
type ProjectServers struct {
	File  string       `json:"file"`
	State ProjectState `json:"state"`
	// SHA256 is the digest of the file's bytes (hex), what an approval is
	// of; empty when there is no file.
	SHA256 string `json:"sha256,omitempty"`
	// Servers are the servers offered (state approved).
	Servers []string `json:"servers,omitempty"`
	// Refused are the servers of an approved file that were not offered.
	Refused []ProjectRefusal `json:"refused,omitempty"`
	// Error says what is wrong with a file of state invalid.
	Error string `json:"error,omitempty"`
}

// ProjectRefusal is a project server that was not offered, and why.
type ProjectRefusal struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// Sandbox is a run's command sandbox: its settings, and whether it confines
// the run's commands on this machine.
type Sandbox struct {
	Mode    SandboxMode    `json:"mode"`
	Network SandboxNetwork `json:"network"`
	// Confined means commands run in the sandbox. When they do not, Reason
	// says why, and with mode auto every command asks; with mode on every
	// command is refused.
	Confined bool   `json:"confined"`
	Reason   string `json:"reason,omitempty"`
}

// Rule is a permission rule as recorded (policy.Rule on the wire).
type Rule struct {
	Effect Effect `json:"effect"`
	Tool   string `json:"tool"`
	Match  string `json:"match,omitempty"`
	Source string `json:"source,omitempty"`
}

// Limits are a run's budgets; zero means no limit.
type Limits struct {
	MaxSteps      int     `json:"max_steps,omitempty"`
	MaxTokens     int64   `json:"max_tokens,omitempty"`
	MaxCostUSD    float64 `json:"max_cost_usd,omitempty"`
	MaxWallTimeMS int64   `json:"max_wall_time_ms,omitempty"`
}

// RunLimitsData raises (or lowers) a run's budgets; it is recorded when a
// person continues a run that a budget paused.
type RunLimitsData struct {
	Limits Limits `json:"limits"`
}

// NodeRef names a node of a run.
type NodeRef struct {
	RunID  string `json:"run_id"`
	NodeID string `json:"node_id"`
}

// Role is who a message of a conversation is from (llm.Role is this type).
type Role string

// Roles.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Roles lists the roles.
var Roles = []Role{RoleUser, RoleAssistant, RoleTool}

// Message is one message of a conversation carried by a fork.
type Message struct {
	Role       Role       `json:"role"`
	Text       string     `json:"text,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	IsError    bool       `json:"is_error,omitempty"`
}

// RunForkedData is recorded in a run when another run was forked from it.
type RunForkedData struct {
	NodeID string `json:"node_id"`
	Fork   string `json:"fork"` // the new run's id
}

// AgentRef is the snapshot of the agent a run was started with.
type AgentRef struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Provider string `json:"provider"`
	Model    string `json:"model"`
	// Demo is true when the run plays the built-in demo script rather than
	// calling a model, so every surface can say so plainly.
	Demo bool `json:"demo,omitempty"`
}

// RunStatusData records a change of the run's status.
type RunStatusData struct {
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	Error  string `json:"error,omitempty"`
	// Next says what the run does when it goes on; set when it pauses.
	Next *Next `json:"next,omitempty"`
}

// Next is the action a paused run takes next.
type Next struct {
	Kind      NextKind        `json:"kind"`
	NodeID    string          `json:"node_id,omitempty"`
	Tool      string          `json:"tool,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Interrupted is set when the tool call started before a crash and its
	// outcome is unknown: the person decides retry, skip or cancel.
	Interrupted bool `json:"interrupted,omitempty"`
	// Limits are the run's budgets when one of them ran out (the pause's
	// reason names it): continue with higher limits to go on.
	Limits *Limits `json:"limits,omitempty"`
}

// NodeKind is the kind of a node of the execution graph.
type NodeKind string

// NodeKinds lists the node kinds.
var NodeKinds = []NodeKind{KindUser, KindLLM, KindTool, KindAgent}

// Node kinds.
const (
	KindUser  = "user"
	KindLLM   = "llm"
	KindTool  = "tool"
	KindAgent = "agent"
)

// NodeStartedData opens a node of the execution graph. Parent is containment
// (who called it); After lists the nodes that had to finish before it.
type NodeStartedData struct {
	Kind   NodeKind `json:"kind"`
	Parent string   `json:"parent,omitempty"`
	After  []string `json:"after,omitempty"`
	Label  string   `json:"label"`
	Step   int      `json:"step,omitempty"`
	// Text is the message of a user node.
	Text string `json:"text,omitempty"`
	// Model is the model of an llm node.
	Model string `json:"model,omitempty"`
	// Tool, CallID, Arguments and Risk describe a tool node.
	Tool      string          `json:"tool,omitempty"`
	CallID    string          `json:"call_id,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Risk      Risk            `json:"risk,omitempty"`
	// RetryOf is the interrupted node a retried tool call replaces.
	RetryOf string `json:"retry_of,omitempty"`
	// AnswerTo is the ask_user tool node a user node answers. The model
	// reads the answer as that call's result, not as a new message.
	AnswerTo string `json:"answer_to,omitempty"`
}

// ToolExecutingData marks the moment a tool call starts its side effect. It
// commits before the call runs: after a crash, a tool node with this mark and
// no end is interrupted (its outcome is unknown), one without it never ran.
type ToolExecutingData struct{}

// LLMAttemptData records a failed attempt of a model call that will be
// retried; the text streamed by that attempt is void.
type LLMAttemptData struct {
	Attempt   int    `json:"attempt"`
	Kind      string `json:"kind"`
	Error     string `json:"error"`
	RetryInMS int64  `json:"retry_in_ms"`
}

// LLMDeltaData is a piece of streamed model text.
type LLMDeltaData struct {
	Text string `json:"text"`
}

// NodeStatus is the status of a node of the execution graph.
type NodeStatus string

// Node statuses: a node starts running (a user node has succeeded as it
// starts), waits while a person decides on it, and ends in one of the last
// five (NodeFinishedData.Status). Interrupted is a tool call whose outcome
// is unknown after a crash.
const (
	NodePending     = "pending"
	NodeWaiting     = "waiting"
	NodeRunning     = "running"
	NodeSucceeded   = "succeeded"
	NodeFailed      = "failed"
	NodeDenied      = "denied"
	NodeCancelled   = "cancelled"
	NodeInterrupted = "interrupted"
)

// NodeStatuses lists every node status, in the order above.
var NodeStatuses = []NodeStatus{NodePending, NodeWaiting, NodeRunning, NodeSucceeded, NodeFailed, NodeDenied, NodeCancelled, NodeInterrupted}

// NodeFinishedData closes a node. Exactly one is appended per node.
type NodeFinishedData struct {
	Status NodeStatus `json:"status"`
	Error  string     `json:"error,omitempty"`
	// For llm nodes: the whole response.
	Text       string     `json:"text,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	StopReason string     `json:"stop_reason,omitempty"`
	Usage      *Usage     `json:"usage,omitempty"`
	// Model is the model that answered, as the server named it (it may be
	// more precise than the one asked for: gpt-4o-2024-08-06).
	Model string `json:"model,omitempty"`
	// For tool nodes: what the model receives.
	Output  string `json:"output,omitempty"`
	IsError bool   `json:"is_error,omitempty"`
	// Code classifies a tool's failure: invalid_arguments, unknown_tool,
	// denied, not_found...
	Code string `json:"code,omitempty"`
	// DurationMS is the wall time of the node.
	DurationMS int64 `json:"duration_ms"`
	// CostUSD is what a model call cost, from the price table (0 when the
	// model has no price).
	CostUSD float64 `json:"cost_usd,omitempty"`
}

// ToolCall is one tool call requested by the model.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Usage counts tokens of one model call.
type Usage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	CachedTokens int64 `json:"cached_tokens,omitempty"`
}

// PolicyDecidedData is the automatic decision on a tool call: the audit entry
// that says why it ran, waited or was refused.
type PolicyDecidedData struct {
	Effect Effect `json:"effect"`
	Reason string `json:"reason"`
	// Risk is the risk the decision weighed when it is not the tool's: exec
	// for a write of a file whose content programs run.
	Risk Risk `json:"risk,omitempty"`
	// Touched says the call's tool declared the workspace paths it opens,
	// and Touches are those the call was decided on (none: it opens none
	// the tool can resolve). The call runs only while it still opens these.
	Touched bool    `json:"touched,omitempty"`
	Touches []Touch `json:"touches,omitempty"`
}

// Touch is a workspace path a call opens: its real path, the name the call
// gave it when that is another (a symlink), and read or write.
type Touch struct {
	Path   string `json:"path"`
	Via    string `json:"via,omitempty"`
	Access Access `json:"access"`
}

// InteractionKind says what an interaction asks: an approval, a question
// of the agent's (ask_user), or an elicitation: a question a tool's MCP
// server asks while the call runs.
type InteractionKind string

// InteractionKinds lists the interaction kinds.
var InteractionKinds = []InteractionKind{InteractionApproval, InteractionQuestion, InteractionElicitation}

// Interaction kinds.
const (
	InteractionApproval    = "approval"
	InteractionQuestion    = "question"
	InteractionElicitation = "elicitation"
)

// Decision is how an interaction was decided.
type Decision string

// Decisions lists the decisions.
var Decisions = []Decision{DecisionApprove, DecisionDeny, DecisionAnswer}

// DefaultDecision is what an interaction nobody answered in time becomes:
// deny or approve (a question is declined either way).
type DefaultDecision string

// DefaultDecisions lists the default decisions.
var DefaultDecisions = []DefaultDecision{DecisionDeny, DecisionApprove}

// InteractionStatus is where an interaction is in its life.
type InteractionStatus string

// Interaction statuses: an interaction opens pending (approval.requested)
// and leaves it once, answered (approval.decided: by a person, a timeout's
// default or policy) or cancelled with its run. Expired is in the
// vocabulary for an interaction that lapses with no decision; today a
// timeout answers with the default decision instead, so none is expired.
const (
	InteractionPending   = "pending"
	InteractionAnswered  = "answered"
	InteractionCancelled = "cancelled"
	InteractionExpired   = "expired"
)

// InteractionStatuses lists every interaction status, in the order above.
var InteractionStatuses = []InteractionStatus{InteractionPending, InteractionAnswered, InteractionCancelled, InteractionExpired}

// Decisions on an interaction. An approval is approved or denied; a
// question or an elicitation is answered, or declined (deny).
const (
	DecisionApprove = "approve"
	DecisionDeny    = "deny"
	DecisionAnswer  = "answer"
)

// ApprovalRequestedData opens an interaction in the inbox (an approval, or
// the question of an ask_user call); NodeID is the tool node.
type ApprovalRequestedData struct {
	InteractionID string          `json:"interaction_id"`
	Kind          InteractionKind `json:"kind,omitempty"` // approval when empty
	Tool          string          `json:"tool"`
	Arguments     json.RawMessage `json:"arguments"`
	Risk          Risk            `json:"risk"`
	Reason        string          `json:"reason"`
	// Group is the model node whose turn asked for the call; approvals
	// opened together for parallel calls share it, and GroupSize says how
	// many there are, so a surface can offer to decide them together.
	Group     string `json:"group,omitempty"`
	GroupSize int    `json:"group_size,omitempty"`
	// ExpiresAt (unix ms) is when DefaultDecision is taken for a person
	// who did not answer; zero means the interaction waits for ever.
	ExpiresAt       int64           `json:"expires_at,omitempty"`
	DefaultDecision DefaultDecision `json:"default_decision,omitempty"`
	// Question is what an ask_user call, or an elicitation, asks.
	Question *Question `json:"question,omitempty"`
	// Key is the key the tool gave its call (a browser tool: the host of
	// the page it acts on), when the tool gives one: the grant an "always"
	// answer saves holds for it.
	Key *string `json:"key,omitempty"`
	// Preview is what the call would change as the files are when it is
	// asked about (a write tool's diff), when its tool can tell.
	Preview *Preview `json:"preview,omitempty"`
	// Schema is the JSON schema of the tool's arguments as the run knew it
	// (an MCP server's tool included), so that a person can edit the call
	// in a form built from it; absent when unknown.
	Schema json.RawMessage `json:"schema,omitempty"`
}

// Preview is what a tool call would change: Diff, the unified diff of the
// files it writes against their content now (git style, three lines of
// context); Note, what the diff does not show (a binary file, a cut).
type Preview struct {
	Diff string `json:"diff,omitempty"`
	Note string `json:"note,omitempty"`
}

// Question is what an agent asks a person: free text, or options with one
// or several choices, and perhaps an answer of their own ("other"). An
// elicitation's question is its server's message with Server set, and
// either Schema (form mode: the answer is an object that meets it) or URL
// (url mode: a page for the person to open, never the model).
type Question struct {
	Text       string   `json:"text"`
	Options    []Option `json:"options,omitempty"`
	Multiple   bool     `json:"multiple,omitempty"`
	AllowOther bool     `json:"allow_other,omitempty"`
	// Server is the MCP server that asks (the tool's server).
	Server string `json:"server,omitempty"`
	// Schema is the flat object schema of a form elicitation: properties
	// of type string, number, integer or boolean, or arrays of enumerated
	// strings, as MCP's requestedSchema allows (mcp.CheckElicitSchema).
	Schema json.RawMessage `json:"schema,omitempty"`
	// URL is the page of a url elicitation (https, or http on loopback).
	URL string `json:"url,omitempty"`
}

// Option is one choice of a question.
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// PlanStep is one step of a run's plan.
type PlanStep struct {
	Title  string     `json:"title"`
	Status PlanStatus `json:"status"`
}

// RunPlanData is the run's plan as an update_plan call left it; the latest
// one is the plan. NodeID is that call's node.
type RunPlanData struct {
	Steps []PlanStep `json:"steps"`
}

// ApprovalDecidedData closes an interaction: an approval, a question, an
// elicitation.
type ApprovalDecidedData struct {
	InteractionID string `json:"interaction_id"`
	// Kind is the interaction's, for an elicitation (approval and question
	// leave it empty): its answer says nothing of the call's approval, and
	// its node goes on running.
	Kind     InteractionKind `json:"kind,omitempty"`
	Decision Decision        `json:"decision"` // approve, deny, answer
	Feedback string          `json:"feedback,omitempty"`
	// Source is the surface that answered: web, desktop, cli, api, or policy.
	Source string `json:"source"`
	// Scope and GrantID are set when the answer saved a grant ("approve
	// always", "deny always"): its scope (run, agent, everywhere) and id.
	Scope   GrantScope `json:"scope,omitempty"`
	GrantID string     `json:"grant_id,omitempty"`
	// Arguments are the person's edit of the call's arguments (edit, then
	// approve): what runs instead of what the model asked for.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Text and Choices are a question's answer: free text (or the "other"
	// answer) and the labels of the options chosen.
	Text    string   `json:"text,omitempty"`
	Choices []string `json:"choices,omitempty"`
	// Content is an accepted form elicitation's answer: an object that
	// meets the question's schema.
	Content json.RawMessage `json:"content,omitempty"`
}

// FileSource says who made a file change.
type FileSource string

// FileSources lists the sources of a file change.
var FileSources = []FileSource{FileByTool, FileByCommand, FileByExternal, FileByUndo}

// Sources of a file change.
const (
	FileByTool     = "tool"     // a file tool of the run (write_file, edit_file...)
	FileByCommand  = "command"  // seen while a command of the run ran (run_command, git_commit)
	FileByExternal = "external" // seen while no tool of the run ran: a person, another program
	FileByUndo     = "undo"     // an undo, revert or rewind
)

// FileChangedData records one change of one workspace file: the journal.
// Contents are named by their SHA-256 (hex), kept as blobs in the data
// directory; an empty Before means the file did not exist, an empty After
// that it was deleted.
type FileChangedData struct {
	Path   string `json:"path"` // relative to the workspace, slash-separated
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// BeforeUnknown is set when the content before is not known (a file
	// the run had never seen, changed by a command or outside): such a
	// change cannot be undone.
	BeforeUnknown bool       `json:"before_unknown,omitempty"`
	Size          int64      `json:"size"` // bytes after
	Source        FileSource `json:"source"`
	// Op groups the changes undone together: the tool node that made them,
	// or the id of an undo, revert or rewind.
	Op string `json:"op"`
	// Undoes names what an undo, revert or rewind took back: an op, "run",
	// "from:<node>", or "after:<node>" (a fork's restore, see ForkFiles).
	Undoes string `json:"undoes,omitempty"`
}

// ArtifactCreatedData announces a file a run produced, kept in the run's
// artifacts folder: a screenshot (its node is the tool call that took it)
// or the browser recording (no node: the run made it as it ended).
type ArtifactCreatedData struct {
	Name        string       `json:"name"` // relative to the run's artifacts folder, slash-separated
	Kind        ArtifactKind `json:"kind"`
	Mime        string       `json:"mime"`
	Size        int64        `json:"size"`
	Description string       `json:"description,omitempty"`
}

// RunBreakpointsData is the run's whole list of tools to pause before,
// after a person added or removed one.
type RunBreakpointsData struct {
	BreakBefore []string `json:"break_before"`
}

// ReplayDivergedData is the first difference between what a replay sent the
// model and what its recorded run sent at the same model call. It informs;
// the replay goes on.
type ReplayDivergedData struct {
	Step     int    `json:"step"`  // the model call, from 1
	Field    string `json:"field"` // messages[4].content (tool result of call_2)
	Recorded string `json:"recorded"`
	Got      string `json:"got"`
}

// MCPServerData records what became of an MCP server during a run: it
// connected, crashed, is started again, or could not be started. NodeID is
// the tool call that met it. The server's own words (Reason, Stderr) are
// outside text, redacted like a tool's output; no header, token or
// environment value of the server's configuration is ever written.
type MCPServerData struct {
	Server string         `json:"server"` // its name in mcpServers
	State  MCPServerState `json:"state"`
	// Era is the protocol version of a connected session: 2026-07-28, or
	// 2025-11-25 for a server that knows initialize only.
	Era string `json:"era,omitempty"`
	// Transport is how a connected server is reached: stdio, http or sse.
	Transport string `json:"transport,omitempty"`
	// Attempt counts the starts since the server last answered a call: 2
	// is the first restart after a crash (restarted, failed, connected).
	Attempt int `json:"attempt,omitempty"`
	// Reason says why it crashed or failed: a stdio server's exit status
	// ("exit status 1", "signal: killed") or what the transport said.
	Reason string `json:"reason,omitempty"`
	// Stderr is the end of a stdio server's stderr, when it said anything:
	// its last lines, a few hundred bytes at most.
	Stderr string `json:"stderr,omitempty"`
	// RetryInMS is how long after a crash or failure the next call of the
	// run waits before the server is started again (the backoff).
	RetryInMS int64 `json:"retry_in_ms,omitempty"`
}

// ToolProgressData is how far a running call has got, as its tool reports
// it (an MCP server's notifications/progress): NodeID is the call. A call
// has any number of them, between its tool.executing and its
// node.finished, each saying where the call stands now, so a reader keeps
// the last. The engine writes at most a few a second of a call (it keeps
// the latest of a burst and writes it when the interval is over, or when
// the call ends). Message is the server's text, capped and redacted like a
// tool's output.
type ToolProgressData struct {
	// Progress is how much is done, in the server's units; it grows with
	// each report, even when Total is unknown.
	Progress float64 `json:"progress"`
	// Total is how much there is to do, in the same units; 0 when the
	// server does not know.
	Total float64 `json:"total,omitempty"`
	// Message is what the server says of where the call stands.
	Message string `json:"message,omitempty"`
	// Skipped counts the reports since the previous event that the
	// engine did not write, the throttle's.
	Skipped int `json:"skipped,omitempty"`
}
