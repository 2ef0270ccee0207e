package api

import (
	"encoding/json"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/llm"
	"steward/backend/policy"
	"steward/backend/run"
	"steward/backend/store"
	"steward/backend/tool"
)

// Wire types: the JSON of the API, mirrored one to one by frontend/src/api.

// Info describes the server.
type Info struct {
	Version          string `json:"version"`
	DefaultWorkspace string `json:"default_workspace"`
	Provider         string `json:"provider"`
	Demo             bool   `json:"demo"`
	Note             string `json:"note"`
	// Desktop is set when the server runs for the desktop window, which
	// offers native dialogs (POST /api/v1/desktop/folder).
	Desktop bool `json:"desktop,omitempty"`
	// Sandbox says whether commands can be sandboxed on this machine.
	Sandbox SandboxInfo `json:"sandbox"`
}

// SandboxInfo says whether the command sandbox works on this machine, and
// why not when it does not: then agents in sandbox mode auto ask about
// every command, and those in mode on refuse them.
type SandboxInfo struct {
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"`
}

// Agent is an agent with what "auto" resolves to here.
type Agent struct {
	agent.Agent
	EffectiveProvider string `json:"effective_provider"`
	EffectiveModel    string `json:"effective_model"`
	Demo              bool   `json:"demo"`
}

// AgentInput creates or replaces an agent.
type AgentInput struct {
	Name         string         `json:"name"`
	Description  string         `json:"description,omitempty"`
	Provider     agent.Provider `json:"provider,omitempty"`
	Model        string         `json:"model,omitempty"`
	BaseURL      string         `json:"base_url,omitempty"`
	SystemPrompt string         `json:"system_prompt,omitempty"`
	Tools        []string       `json:"tools,omitempty"`
	Mode         policy.Mode    `json:"mode,omitempty"`
	MaxSteps     int            `json:"max_steps,omitempty"`
	MaxTokens    int64          `json:"max_tokens,omitempty"`
	MaxCostUSD   float64        `json:"max_cost_usd,omitempty"`
	MaxWallTime  string         `json:"max_wall_time,omitempty"`
	BreakBefore  []string       `json:"break_before,omitempty"`
	Rules        []policy.Rule  `json:"rules,omitempty"`
	Script       string         `json:"script,omitempty"`
	// BrowserDomains are the only hosts the agent's browser may visit.
	BrowserDomains []string `json:"browser_domains,omitempty"`
	// SendImages sends the screenshots the agent's tools take to the model
	// as images; only for a model that accepts them.
	SendImages bool `json:"send_images,omitempty"`
	// ProjectServers offers the agent the MCP servers of its workspace's
	// .mcp.json, once the person approved the file there.
	ProjectServers bool `json:"project_servers,omitempty"`
	// ApprovalTimeout (a Go duration) and ApprovalDefault (deny, approve):
	// what an unanswered approval becomes, and when.
	ApprovalTimeout string                `json:"approval_timeout,omitempty"`
	ApprovalDefault event.DefaultDecision `json:"approval_default,omitempty"`
	// Sandbox (auto, on, off) and SandboxNetwork (off, on): how the
	// agent's commands are confined.
	Sandbox        event.SandboxMode    `json:"sandbox,omitempty"`
	SandboxNetwork event.SandboxNetwork `json:"sandbox_network,omitempty"`
}

func (in AgentInput) agent() agent.Agent {
	return agent.Agent{Name: in.Name, Description: in.Description, Provider: in.Provider, Model: in.Model,
		BaseURL: in.BaseURL, SystemPrompt: in.SystemPrompt, Tools: in.Tools, Mode: in.Mode, MaxSteps: in.MaxSteps,
		MaxTokens: in.MaxTokens, MaxCostUSD: in.MaxCostUSD, MaxWallTime: in.MaxWallTime,
		BreakBefore: in.BreakBefore, Rules: in.Rules, Script: in.Script, Domains: in.BrowserDomains, SendImages: in.SendImages, ProjectServers: in.ProjectServers,
		ApprovalTimeout: in.ApprovalTimeout, ApprovalDefault: in.ApprovalDefault, Sandbox: in.Sandbox, SandboxNetwork: in.SandboxNetwork}
}

// Usage is a token account.
type Usage struct {
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CachedTokens int64   `json:"cached_tokens"`
	CostUSD      float64 `json:"cost_usd"`
}

// Run is a run's summary.
type Run struct {
	ID               string      `json:"id"`
	AgentID          string      `json:"agent_id"`
	AgentName        string      `json:"agent_name"`
	Status           run.Status  `json:"status"`
	Reason           string      `json:"reason,omitempty"`
	Error            string      `json:"error,omitempty"`
	Instructions     string      `json:"instructions"`
	Workspace        string      `json:"workspace"`
	Mode             policy.Mode `json:"mode"`
	Provider         string      `json:"provider"`
	Model            string      `json:"model"`
	Demo             bool        `json:"demo"`
	Unattended       bool        `json:"unattended"`
	CreatedAt        int64       `json:"created_at"`
	UpdatedAt        int64       `json:"updated_at"`
	LastSeq          int64       `json:"last_seq"`
	Steps            int         `json:"steps"`
	PendingApprovals int         `json:"pending_approvals"`
	Usage            Usage       `json:"usage"`
	// Capabilities are what the run can do now (commands, and replay);
	// Refusals say, for each command it cannot, why not: the rejection
	// that command would get.
	Capabilities []string               `json:"capabilities"`
	Refusals     map[string]run.Refusal `json:"refusals,omitempty"`
	// Next says what a paused run does next; ForkedFrom names the run a fork
	// came from.
	Next       *event.Next `json:"next,omitempty"`
	ForkedFrom string      `json:"forked_from,omitempty"`
	// ImportedFrom is set on a run imported from a recording: the id it had
	// where it was recorded. Such a run is read-only (it can be forked).
	ImportedFrom string `json:"imported_from,omitempty"`
	// ReplayOf is set on a replay: the id of the run it replays.
	ReplayOf string `json:"replay_of,omitempty"`
}

// CapReplay is in a run's capabilities when it can be replayed (POST
// /api/v1/runs/{id}/replay); it is not a command.
const CapReplay = "replay"

// capabilities are what a run in situation s can do: the commands the
// engine would accept, and replay. A run that has ended can be replayed,
// unless it is a fork: a fork's first model call continues a conversation
// a new run cannot start with.
func capabilities(s run.Situation, fork bool) []string {
	caps := s.Capabilities()
	if s.Status.Terminal() && !fork {
		caps = append(caps, CapReplay)
	}
	if caps == nil {
		caps = []string{}
	}
	return caps
}

func wireRun(r store.Run) Run {
	sit := run.SituationOf(r)
	return Run{Next: sit.Next, ForkedFrom: r.ForkedFrom, ImportedFrom: r.ImportedFrom, ReplayOf: r.ReplayOf, ID: r.ID, AgentID: r.AgentID, AgentName: r.AgentName, Status: run.Status(r.Status), Reason: r.Reason, Error: r.Error,
		Instructions: r.Instructions, Workspace: r.Workspace, Mode: policy.Mode(r.Mode), Provider: r.Provider, Model: r.Model,
		Demo: r.Demo, Unattended: r.Unattended, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, LastSeq: r.LastSeq,
		Steps: r.Steps, PendingApprovals: r.PendingApprovals,
		Usage:        Usage{InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, CachedTokens: r.CachedTokens, CostUSD: r.CostUSD},
		Capabilities: capabilities(sit, r.ForkedFrom != ""), Refusals: sit.Refusals(),
	}
}

// Event is an event as the API sends it, in pages and on the WebSocket. A
// run.status carries, beside the log's record, what the run can do after
// it and why it cannot do the rest, as the run's own Capabilities and
// Refusals would say then: a client follows them from the stream without
// fetching the run again. They are derived here, never recorded, so a
// recording cannot claim any.
type Event struct {
	event.Event
	Capabilities []string               `json:"capabilities,omitempty"`
	Refusals     map[string]run.Refusal `json:"refusals,omitempty"`
}

// runFacts are what a run's capabilities take beside its status, fixed
// when the run is created.
type runFacts struct {
	id                     string
	imported, fork, replay bool
}

func factsOf(r store.Run) runFacts {
	return runFacts{id: r.ID, imported: r.ImportedFrom != "", fork: r.ForkedFrom != "", replay: r.ReplayOf != ""}
}

// wire is ev of the run f describes, as the API sends it.
func (f runFacts) wire(ev event.Event) Event {
	out := Event{Event: ev}
	if ev.Type != event.RunStatus {
		return out
	}
	var d event.RunStatusData
	if ev.Decode(&d) != nil {
		return out // the store refuses such a payload: not reached
	}
	sit := run.Situation{RunID: f.id, Status: run.Status(d.Status), Next: d.Next, Imported: f.imported, Replay: f.replay}
	out.Capabilities, out.Refusals = capabilities(sit, f.fork), sit.Refusals()
	return out
}

// StartRun starts a run.
type StartRun struct {
	Agent        string        `json:"agent"`
	Instructions string        `json:"instructions"`
	Workspace    string        `json:"workspace"`
	Unattended   bool          `json:"unattended,omitempty"`
	BreakBefore  []string      `json:"break_before,omitempty"`
	Limits       *event.Limits `json:"limits,omitempty"`
	// Model overrides the agent's model (of its provider); a restart or a
	// fork of the run keeps it.
	Model string `json:"model,omitempty"`
	// Mode overrides the agent's permission mode; Rules add to its rules.
	Mode  policy.Mode   `json:"mode,omitempty"`
	Rules []policy.Rule `json:"rules,omitempty"`
	// Sandbox (auto, on, off) and SandboxNetwork (off, on) override the
	// agent's sandbox settings.
	Sandbox        event.SandboxMode    `json:"sandbox,omitempty"`
	SandboxNetwork event.SandboxNetwork `json:"sandbox_network,omitempty"`
}

// Interaction is an approval request.
type Interaction struct {
	ID         string                  `json:"id"`
	RunID      string                  `json:"run_id"`
	NodeID     string                  `json:"node_id"`
	Kind       event.InteractionKind   `json:"kind"` // approval or question
	Status     event.InteractionStatus `json:"status"`
	Tool       string                  `json:"tool"`
	Arguments  json.RawMessage         `json:"arguments"`
	Risk       event.Risk              `json:"risk"`
	Reason     string                  `json:"reason"`
	CreatedAt  int64                   `json:"created_at"`
	AnsweredAt *int64                  `json:"answered_at,omitempty"`
	// Group is the model node whose turn asked for the call; GroupSize
	// approvals were opened together for it (more than one: parallel calls).
	Group     string `json:"group,omitempty"`
	GroupSize int    `json:"group_size,omitempty"`
	// ExpiresAt (unix ms) is when DefaultDecision is taken for a person who
	// did not answer.
	ExpiresAt       int64                 `json:"expires_at,omitempty"`
	DefaultDecision event.DefaultDecision `json:"default_decision,omitempty"`
	Question        *event.Question       `json:"question,omitempty"`
	// Preview is what the call would change as its files were when it was
	// asked about (a write tool's diff), when its tool could tell.
	Preview *event.Preview `json:"preview,omitempty"`
	// Schema is the JSON schema of the tool's arguments when the call was
	// asked about (an edit form is built from it), when known.
	Schema json.RawMessage `json:"schema,omitempty"`
	Answer *AnswerGiven    `json:"answer,omitempty"`
}

// AnswerGiven is the recorded answer of an interaction.
type AnswerGiven struct {
	Decision  event.Decision  `json:"decision"`
	Feedback  string          `json:"feedback,omitempty"`
	Source    string          `json:"source"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Text      string          `json:"text,omitempty"`
	Choices   []string        `json:"choices,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
}

func wireInteraction(i store.Interaction) Interaction {
	out := Interaction{ID: i.ID, RunID: i.RunID, NodeID: i.NodeID, Kind: event.InteractionKind(i.Kind), Status: event.InteractionStatus(i.Status), Tool: i.Tool,
		Arguments: json.RawMessage(i.Arguments), Risk: event.Risk(i.Risk), Reason: i.Reason, CreatedAt: i.CreatedAt, AnsweredAt: i.AnsweredAt,
		Group: i.Group, GroupSize: i.GroupSize, ExpiresAt: i.ExpiresAt, DefaultDecision: event.DefaultDecision(i.DefaultDecision)}
	if !json.Valid(out.Arguments) {
		out.Arguments = json.RawMessage("{}")
	}
	if i.Preview != "" {
		var p event.Preview
		if json.Unmarshal([]byte(i.Preview), &p) == nil {
			out.Preview = &p
		}
	}
	if i.Schema != "" && json.Valid([]byte(i.Schema)) {
		out.Schema = json.RawMessage(i.Schema)
	}
	if i.Question != "" {
		var q event.Question
		if json.Unmarshal([]byte(i.Question), &q) == nil {
			out.Question = &q
		}
	}
	if i.Decision != "" {
		out.Answer = &AnswerGiven{Decision: event.Decision(i.Decision), Feedback: i.Feedback, Source: i.Source}
		var d store.AnswerDetail
		if i.Answer != "" && json.Unmarshal([]byte(i.Answer), &d) == nil {
			out.Answer.Arguments, out.Answer.Text, out.Answer.Choices, out.Answer.Content = d.Arguments, d.Text, d.Choices, d.Content
		}
	}
	return out
}

// Answer answers an interaction: approve or deny an approval (scope also
// saves it as a grant: approve always, or deny always, in the run, for the
// run's agent, or everywhere; arguments approve an edit of the call), or
// answer a question (text, choices) or an elicitation (content; a url
// elicitation's answer is empty: the person did what the page asked), or
// decline either (deny).
type Answer struct {
	Decision    event.Decision   `json:"decision"`
	Feedback    string           `json:"feedback,omitempty"`
	Source      string           `json:"source,omitempty"`
	Scope       event.GrantScope `json:"scope,omitempty"`
	AnyArgument bool             `json:"any_argument,omitempty"`
	// Folder widens an "always" grant from the file to its folder.
	Folder    bool            `json:"folder,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Text      string          `json:"text,omitempty"`
	Choices   []string        `json:"choices,omitempty"`
	// Content answers a form elicitation: an object that meets its schema.
	Content json.RawMessage `json:"content,omitempty"`
}

// AnswerOf is one answer of a batch: an Answer and the interaction's id.
type AnswerOf struct {
	ID string `json:"id"`
	Answer
}

// Answers decides several interactions together, such as the approvals of
// a turn's parallel calls.
type Answers struct {
	Answers []AnswerOf `json:"answers"`
}

// AnswerResult is the outcome of one answer of a batch: the interaction as
// answered, or the error that refused the answer.
type AnswerResult struct {
	ID          string       `json:"id"`
	Interaction *Interaction `json:"interaction,omitempty"`
	Error       *ErrorInfo   `json:"error,omitempty"`
}

// ErrorInfo is an error as the API reports it.
type ErrorInfo struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type answersBody struct {
	Results []AnswerResult `json:"results"`
}

// GraphNode is a node of the execution graph.
type GraphNode struct {
	ID         string           `json:"id"`
	Kind       event.NodeKind   `json:"kind"`
	Status     event.NodeStatus `json:"status"`
	Label      string           `json:"label"`
	Parent     string           `json:"parent,omitempty"`
	After      []string         `json:"after"`
	StartedAt  int64            `json:"started_at"`
	FinishedAt *int64           `json:"finished_at,omitempty"`
	Tool       string           `json:"tool,omitempty"`
	DurationMS int64            `json:"duration_ms"`
	Error      string           `json:"error,omitempty"`
	Attempts   int              `json:"attempts,omitempty"`
	Usage      *Usage           `json:"usage,omitempty"`
}

// NodeDetail is one node with everything recorded about it: its events in
// order (start, streamed text, attempts, policy, approval, end) and, for a
// model call, the conversation it was given.
type NodeDetail struct {
	Node   GraphNode     `json:"node"`
	Events []event.Event `json:"events"`
	Input  []llm.Message `json:"input,omitempty"`
}

// GraphEdge links two nodes.
type GraphEdge struct {
	From string `json:"from"`
	To   string `json:"to"`
	Kind string `json:"kind"`
}

// Graph is the DAG projection of a run.
type Graph struct {
	Nodes []GraphNode `json:"nodes"`
	Edges []GraphEdge `json:"edges"`
}

func wireGraph(nodes []store.Node, edges []store.Edge) Graph {
	g := Graph{Nodes: make([]GraphNode, 0, len(nodes)), Edges: make([]GraphEdge, 0, len(edges))}
	after := map[string][]string{}
	for _, e := range edges {
		g.Edges = append(g.Edges, GraphEdge{From: e.From, To: e.To, Kind: e.Kind})
		if e.Kind == "after" {
			after[e.To] = append(after[e.To], e.From)
		}
	}
	for _, n := range nodes {
		a := after[n.ID]
		if a == nil {
			a = []string{}
		}
		g.Nodes = append(g.Nodes, wireNode(n, a))
	}
	return g
}

func wireNode(n store.Node, after []string) GraphNode {
	g := GraphNode{ID: n.ID, Kind: event.NodeKind(n.Kind), Status: event.NodeStatus(n.Status), Label: n.Label, Parent: n.Parent, After: after,
		StartedAt: n.StartedAt, FinishedAt: n.FinishedAt, Tool: n.Tool, DurationMS: n.DurationMS, Error: n.Error, Attempts: n.Attempts}
	if n.Kind == event.KindLLM && n.FinishedAt != nil {
		g.Usage = &Usage{InputTokens: n.InputTokens, OutputTokens: n.OutputTokens, CachedTokens: n.CachedTokens, CostUSD: n.CostUSD}
	}
	return g
}

// ToolSpec is a tool of the catalog.
type ToolSpec = tool.Spec

// Command and CommandResult are the engine's own types.
type (
	Command       = run.Command
	CommandResult = run.CommandResult
)
