package run

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/llm"
	"steward/backend/tool"
	"steward/backend/tools/interact"
)

// runState is what the engine knows of a run. It is a fold of the run's
// events (apply), so the live engine and a run resumed after a restart
// compute the next step from the same facts. The fields below the line are
// the fold; the ones above come from outside the log.
type runState struct {
	id         string
	model      Model
	env        tool.Env
	unattended bool
	// registry and approver serve this run: the Service's own, or a
	// replay's (StartParams.Runtime). They do not change while it runs.
	registry Tools
	approver Approver
	noGrants bool // a replay: saved grants are not looked up
	// pictures are the images each tool node produced (images.go), and
	// resultNode the node that answered each tool call: a model that takes
	// images is sent the latest ones with their results.
	pictures   map[string][]picture
	resultNode map[string]string

	// ---- folded from events ----
	agent       agent.Agent
	breakBefore []string
	status      Status
	root        string
	nodes       int // highest node number used: "n<nodes>"
	step        int // model calls started
	messages    []llm.Message
	// queued holds user messages (instructions, steers) that the next model
	// call will see first, with their nodes for its "after" edges.
	queued      []llm.Message
	queuedNodes []string
	// lastLLM is the last model call that succeeded; turnNodes the tool
	// nodes that answered its calls. The next model call follows them.
	lastLLM   string
	turnNodes []string
	// llmOpen is the node of a model call that started and did not finish.
	llmOpen string
	// final is set when the last model answer asked for no tool calls.
	final bool
	// calls are the tool calls of the last model answer without a result
	// yet, in order; tools follows each call's node.
	calls []llm.ToolCall
	tools map[string]*toolState // by call id
	// llmAfter is what the open model call followed: a redo follows it too.
	llmAfter []string
	// Budgets and what was spent against them.
	limits event.Limits
	tokens int64   // input + output tokens
	cost   float64 // US dollars
	workMS int64   // time spent in model and tool calls
	// files holds what the journal last recorded of each file the run
	// changed or saw changed (the sum of its content, "" when deleted).
	files map[string]string
}

// toolState is what the fold knows of one tool call's node.
type toolState struct {
	node      string
	executing bool // tool.executing recorded: its side effect may have happened
	// effect and reason are the policy's decision (allow, ask, deny), once
	// recorded; a call is decided once, even across a restart. risk is the
	// risk it weighed when not the tool's (exec), touches the paths it was
	// decided on.
	effect, reason string
	risk           string
	touched        bool
	touches        []event.Touch
	interaction    string // its approval or question, if one was opened
	decision       string // approve, deny or answer, once answered
	feedback       string
	source         string
	// edited are the arguments a person approved instead of the model's.
	edited json.RawMessage
	// answer is a question's answer as the model reads it.
	answer      string
	finished    bool
	interrupted bool
	// retry marks the node of a person's retry (or skip) of an interrupted
	// call: it runs without checks or approval, being a decision already.
	retry bool
}

func newRunState(id string) *runState {
	return &runState{id: id, status: Queued, tools: map[string]*toolState{}, files: map[string]string{}}
}

// apply folds one event into the state.
func (r *runState) apply(ev event.Event) {
	if n, ok := nodeNumber(ev.NodeID); ok && n > r.nodes {
		r.nodes = n
	}
	switch ev.Type {
	case event.RunCreated:
		var d event.RunCreatedData
		_ = ev.Decode(&d) // the store refuses undecodable payloads
		if len(d.Spec) > 0 {
			_ = json.Unmarshal(d.Spec, &r.agent)
		}
		r.breakBefore = d.BreakBefore
		r.messages = fromEventMessages(d.History)
		if d.Limits != nil {
			r.limits = *d.Limits
		} else {
			r.limits = limitsOf(r.agent)
			r.limits.MaxSteps = d.MaxSteps
		}
	case event.ArtifactCreated:
		r.notePicture(ev)
	case event.RunBreakpoints:
		var d event.RunBreakpointsData
		_ = ev.Decode(&d)
		r.breakBefore = d.BreakBefore
	case event.RunLimits:
		var d event.RunLimitsData
		_ = ev.Decode(&d)
		r.limits = raise(r.limits, d.Limits)
	case event.RunStatus:
		var d event.RunStatusData
		_ = ev.Decode(&d)
		r.status = Status(d.Status)
	case event.NodeStarted:
		var d event.NodeStartedData
		_ = ev.Decode(&d)
		switch d.Kind {
		case event.KindAgent:
			r.root = ev.NodeID
		case event.KindUser:
			if d.AnswerTo != "" {
				// The answer to an ask_user call: the model reads it as the
				// call's result; the next model call follows the answer.
				if i := slices.Index(r.turnNodes, d.AnswerTo); i >= 0 {
					r.turnNodes[i] = ev.NodeID
				}
				break
			}
			r.queued = append(r.queued, llm.Message{Role: llm.RoleUser, Text: d.Text})
			r.queuedNodes = append(r.queuedNodes, ev.NodeID)
		case event.KindLLM:
			r.step++
			r.messages = append(r.messages, r.queued...)
			r.llmAfter = d.After
			r.queued, r.queuedNodes, r.turnNodes = nil, nil, nil
			r.llmOpen, r.final = ev.NodeID, false
		case event.KindTool:
			t := &toolState{node: ev.NodeID}
			if prev := r.tools[d.CallID]; prev != nil && d.RetryOf != "" {
				// A retry is the person's decision on a call already decided:
				// it runs what was approved, without asking again.
				t.effect, t.reason, t.decision, t.source, t.edited = prev.effect, prev.reason, prev.decision, prev.source, prev.edited
				t.retry = true
				t.risk, t.touched, t.touches = prev.risk, prev.touched, prev.touches
			}
			r.tools[d.CallID] = t
		}
	case event.PolicyDecided:
		var d event.PolicyDecidedData
		_ = ev.Decode(&d)
		if t := r.toolByNode(ev.NodeID); t != nil {
			t.effect, t.reason, t.risk, t.touched, t.touches = d.Effect, d.Reason, d.Risk, d.Touched, d.Touches
		}
	case event.ToolExecuting:
		if t := r.toolByNode(ev.NodeID); t != nil {
			t.executing = true
		}
	case event.ApprovalRequested:
		var d event.ApprovalRequestedData
		_ = ev.Decode(&d)
		if t := r.toolByNode(ev.NodeID); t != nil {
			t.interaction = d.InteractionID
		}
	case event.ApprovalDecided:
		var d event.ApprovalDecidedData
		_ = ev.Decode(&d)
		if t := r.toolByNode(ev.NodeID); t != nil {
			t.decision, t.feedback, t.source, t.edited = d.Decision, d.Feedback, d.Source, d.Arguments
			t.answer = interact.Answer(d.Text, d.Choices)
		}
	case event.FileChanged:
		var d event.FileChangedData
		_ = ev.Decode(&d)
		r.files[d.Path] = d.After
	case event.NodeFinished:
		var d event.NodeFinishedData
		_ = ev.Decode(&d)
		if u := d.Usage; u != nil {
			r.tokens += u.InputTokens + u.OutputTokens
		}
		r.cost += d.CostUSD
		if ev.NodeID != r.root {
			r.workMS += d.DurationMS
		}
		r.finishNode(ev.NodeID, d)
	}
}

func (r *runState) finishNode(node string, d event.NodeFinishedData) {
	if node == r.llmOpen {
		r.llmOpen = ""
		if d.Status != event.NodeSucceeded {
			r.turnNodes = r.llmAfter // the next step calls the model again, after the same nodes
			return
		}
		calls := make([]llm.ToolCall, len(d.ToolCalls))
		for i, c := range d.ToolCalls {
			calls[i] = llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
		}
		r.messages = append(r.messages, llm.Message{Role: llm.RoleAssistant, Text: d.Text, ToolCalls: calls})
		r.calls, r.tools = calls, map[string]*toolState{}
		r.final = len(calls) == 0
		r.lastLLM = node
		return
	}
	for i, c := range r.calls {
		t := r.tools[c.ID]
		if t == nil || t.node != node {
			continue
		}
		if d.Status == event.NodeInterrupted {
			t.interrupted = true
			return
		}
		t.finished = true
		if len(r.pictures[node]) > 0 {
			if r.resultNode == nil {
				r.resultNode = map[string]string{}
			}
			r.resultNode[c.ID] = node
		}
		r.messages = append(r.messages, llm.Message{Role: llm.RoleTool, ToolCallID: c.ID,
			Text: modelText(tool.Result{Output: d.Output, IsError: d.IsError, Code: d.Code}), IsError: d.IsError})
		r.calls = append(r.calls[:i:i], r.calls[i+1:]...)
		r.turnNodes = append(r.turnNodes, node)
		return
	}
}

// nextAfter lists the nodes the next model call follows: the tool calls that
// answered the last model call (or that call itself), then the user messages
// queued since.
func (r *runState) nextAfter() []string {
	var a []string
	if len(r.turnNodes) > 0 {
		a = append(a, r.turnNodes...)
	} else if r.lastLLM != "" {
		a = append(a, r.lastLLM)
	}
	return append(a, r.queuedNodes...)
}

func (r *runState) toolByNode(node string) *toolState {
	for _, t := range r.tools {
		if t.node == node {
			return t
		}
	}
	return nil
}

func (r *runState) newNode() string {
	r.nodes++
	return "n" + strconv.Itoa(r.nodes)
}

func nodeNumber(id string) (int, bool) {
	if !strings.HasPrefix(id, "n") {
		return 0, false
	}
	n, err := strconv.Atoi(id[1:])
	return n, err == nil
}

// Action kinds.
const (
	actModel = "model"
	actTool  = "tool"
	actDone  = "done"
)

// action is what the run does next.
type action struct {
	kind string
	call llm.ToolCall
	tool *toolState // nil when the call has no node yet
}

// next computes the next action from the state.
func (r *runState) next() action {
	if len(r.calls) > 0 {
		c := r.calls[0]
		return action{kind: actTool, call: c, tool: r.tools[c.ID]}
	}
	if r.final && len(r.queued) == 0 {
		return action{kind: actDone}
	}
	return action{kind: actModel}
}

// same reports whether a and b are one action: the same kind, call and node.
func (a action) same(b action) bool {
	return a.kind == b.kind && a.call.ID == b.call.ID && a.tool == b.tool
}

// describe is the Next of a run paused before a.
func (a action) describe() *event.Next {
	switch a.kind {
	case actTool:
		n := &event.Next{Kind: actTool, Tool: a.call.Name, Arguments: validJSON(a.call.Arguments)}
		if a.tool != nil {
			n.NodeID, n.Interrupted = a.tool.node, a.tool.interrupted
		}
		return n
	case actModel:
		return &event.Next{Kind: actModel}
	}
	return nil
}

// request returns the conversation for the next model call, repaired: every
// tool call has a result right after its assistant message (a synthesized
// one where none was recorded, as after a crash or a fork), so a provider
// never rejects the transcript. The log is not rewritten.
func (r *runState) request() []llm.Message {
	msgs := append(append([]llm.Message(nil), r.messages...), r.queued...)
	return repair(msgs)
}

func repair(msgs []llm.Message) []llm.Message {
	results := map[string]llm.Message{}
	for _, m := range msgs {
		if m.Role == llm.RoleTool {
			results[m.ToolCallID] = m
		}
	}
	return Repair(msgs, results)
}

// Repair returns the conversation as the engine sends it: msgs without
// their tool messages, each assistant message followed by the results of
// its calls in call order, a synthesized "interrupted" one where results
// has none. A replay folds a recorded request with it.
func Repair(msgs []llm.Message, results map[string]llm.Message) []llm.Message {
	out := make([]llm.Message, 0, len(msgs))
	for _, m := range msgs {
		if m.Role == llm.RoleTool {
			continue // placed right after its call below
		}
		out = append(out, m)
		for _, c := range m.ToolCalls {
			res, ok := results[c.ID]
			if !ok {
				res = llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, IsError: true,
					Text: "error interrupted: no result was recorded for this call; its outcome is unknown"}
			}
			out = append(out, res)
		}
	}
	return out
}

func fromEventMessages(ms []event.Message) []llm.Message {
	out := make([]llm.Message, len(ms))
	for i, m := range ms {
		calls := make([]llm.ToolCall, len(m.ToolCalls))
		for j, c := range m.ToolCalls {
			calls[j] = llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
		}
		out[i] = llm.Message{Role: llm.Role(m.Role), Text: m.Text, ToolCalls: calls, ToolCallID: m.ToolCallID, IsError: m.IsError}
	}
	return out
}

func toEventMessages(ms []llm.Message) []event.Message {
	out := make([]event.Message, len(ms))
	for i, m := range ms {
		calls := make([]event.ToolCall, len(m.ToolCalls))
		for j, c := range m.ToolCalls {
			calls[j] = event.ToolCall{ID: c.ID, Name: c.Name, Arguments: validJSON(c.Arguments)}
		}
		out[i] = event.Message{Role: string(m.Role), Text: m.Text, ToolCalls: calls, ToolCallID: m.ToolCallID, IsError: m.IsError}
	}
	return out
}
