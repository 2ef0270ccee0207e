package run

import (
	"encoding/json"
	"slices"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/llm"
	"steward/backend/tool"
	"steward/backend/tools/interact"
)

// Fold is a run's state as the fold of its log: the conversation, the graph's
// frontier, the pending calls and what was decided of them, the budgets and
// what was spent, the files the run changed. It is the one Go projection of
// a run's log: the engine keeps one per active run, fed every committed
// event of the run (its own as it emits them, and those others write: the
// inbox's approvals and answers, a replay's divergence; see active.follow);
// replay, fork, recovery and node details fold a log with it too. So they
// all read the same conversation, and a run resumed after a restart goes on
// from the same facts as the live one.
//
// The conversation is built as events arrive, never rebuilt. It is kept
// repaired, as the engine sends it: each assistant message is followed by
// one result per call, in call order, and a call whose result is not in the
// log yet has a synthesized "interrupted" one, which its real result
// replaces in place. Nothing else of a message is ever changed once it is
// in the conversation, and Request hands out the conversation itself, not a
// copy: a later request holds the earlier one's messages unchanged, except
// for such a replaced result (see llm.Request). Replacing a result that a
// request was handed copies the conversation first, so a request, once
// handed out, never changes.
//
// The zero Fold is not ready: use NewFold. A Fold is not safe for
// concurrent use.
type Fold struct {
	agent       agent.Agent
	breakBefore []string
	status      Status
	root        string
	turns       int // the run's turns: its first and one per follow-up, each a root agent node
	nodes       int // highest node number used: "n<nodes>"
	step        int // model calls started
	// conv is the conversation, repaired (see above); slot holds, for each
	// call of the last model answer still without its result, the index in
	// conv of the result that stands in for it; handed is the length of
	// the last conversation Request handed out.
	conv   []llm.Message
	slot   map[string][]int
	handed int
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
	// pictures are the images each tool node produced (images.go),
	// resultNode the node that answered each tool call, and pictured the
	// places in conv of the results whose node has pictures: a model that
	// takes images is sent the latest ones with their results.
	pictures   map[string][]picture
	resultNode map[string]string
	pictured   []int
	// seq is the highest seq of the events folded that had one (read from
	// the log, not emitted).
	seq int64
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
	// askedAt is when its approval or question opened (unix ms, the
	// log's), while it is open; waitedMS the time it waited for a person,
	// which is not the run's work (its wall-time budget).
	askedAt, waitedMS int64
	// eliciting are the call's elicitations still open (its server asks
	// the person while it runs), elicitedAt when the latest opened: a
	// call that ran on after a restart no longer waits for them.
	eliciting  []string
	elicitedAt int64
	decision   string // approve, deny or answer, once answered
	feedback   string
	source     string
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

// NewFold returns the fold of an empty log.
func NewFold() *Fold {
	f := &Fold{}
	f.init()
	return f
}

func (f *Fold) init() {
	f.status, f.tools, f.files, f.slot = Queued, map[string]*toolState{}, map[string]string{}, map[string][]int{}
}

// Apply folds the next event of the log.
func (f *Fold) Apply(ev event.Event) { f.apply(ev) }

// Request returns the conversation the next model call is sent, repaired
// (see Fold). The caller must not change it.
func (f *Fold) Request() []llm.Message { return f.request() }

// Status is the run's last recorded status.
func (f *Fold) Status() Status { return f.status }

// Limits are the run's budgets as they last were.
func (f *Fold) Limits() event.Limits { return f.limits }

// apply folds one event into the state.
func (f *Fold) apply(ev event.Event) {
	f.seq = max(f.seq, ev.Seq)
	if n, ok := nodeNumber(ev.NodeID); ok && n > f.nodes {
		f.nodes = n
	}
	switch ev.Type {
	case event.RunCreated:
		var d event.RunCreatedData
		_ = ev.Decode(&d) // the store refuses undecodable payloads
		if len(d.Spec) > 0 {
			_ = json.Unmarshal(d.Spec, &f.agent)
		}
		f.breakBefore = d.BreakBefore
		f.conv, f.handed = repair(fromEventMessages(d.History)), 0
		if d.Limits != nil {
			f.limits = *d.Limits
		} else {
			f.limits = limitsOf(f.agent)
			f.limits.MaxSteps = d.MaxSteps
		}
	case event.ArtifactCreated:
		f.notePicture(ev)
	case event.RunBreakpoints:
		var d event.RunBreakpointsData
		_ = ev.Decode(&d)
		f.breakBefore = d.BreakBefore
	case event.RunLimits:
		var d event.RunLimitsData
		_ = ev.Decode(&d)
		f.limits = raise(f.limits, d.Limits)
	case event.RunStatus:
		var d event.RunStatusData
		_ = ev.Decode(&d)
		f.status = Status(d.Status)
	case event.NodeStarted:
		var d event.NodeStartedData
		_ = ev.Decode(&d)
		f.startNode(ev.NodeID, d)
	case event.PolicyDecided:
		var d event.PolicyDecidedData
		_ = ev.Decode(&d)
		if t := f.toolByNode(ev.NodeID); t != nil {
			t.effect, t.reason, t.risk, t.touched, t.touches = string(d.Effect), d.Reason, string(d.Risk), d.Touched, d.Touches
		}
	case event.ToolExecuting:
		if t := f.toolByNode(ev.NodeID); t != nil {
			t.executing = true
		}
	case event.ApprovalRequested:
		var d event.ApprovalRequestedData
		_ = ev.Decode(&d)
		if t := f.toolByNode(ev.NodeID); t != nil && d.Kind == event.InteractionElicitation {
			// The server of a running call asks: the call's own decision
			// stands; only the wait for the person counts.
			t.elicitedAt = ev.TS
			t.eliciting = append(t.eliciting, d.InteractionID)
		} else if t != nil {
			t.interaction, t.askedAt = d.InteractionID, ev.TS
		}
	case event.ApprovalDecided:
		var d event.ApprovalDecidedData
		_ = ev.Decode(&d)
		if t := f.toolByNode(ev.NodeID); t != nil && d.Kind == event.InteractionElicitation {
			if t.elicitedAt > 0 && ev.TS > t.elicitedAt {
				t.waitedMS += ev.TS - t.elicitedAt
			}
			t.elicitedAt = 0
			t.eliciting = slices.DeleteFunc(t.eliciting, func(id string) bool { return id == d.InteractionID })
		} else if t != nil {
			t.decision, t.feedback, t.source, t.edited = string(d.Decision), d.Feedback, d.Source, d.Arguments
			t.answer = interact.Answer(d.Text, d.Choices)
			if t.askedAt > 0 && ev.TS > t.askedAt {
				t.waitedMS += ev.TS - t.askedAt
			}
			t.askedAt = 0
		}
	case event.FileChanged:
		var d event.FileChangedData
		_ = ev.Decode(&d)
		f.files[d.Path] = d.After
	case event.NodeFinished:
		var d event.NodeFinishedData
		_ = ev.Decode(&d)
		if u := d.Usage; u != nil {
			f.tokens += u.InputTokens + u.OutputTokens
		}
		f.cost += d.CostUSD
		if ev.NodeID != f.root {
			// A tool node's time includes its wait for a person.
			work := d.DurationMS
			if t := f.toolByNode(ev.NodeID); t != nil {
				work = max(0, work-t.waitedMS)
			}
			f.workMS += work
		}
		f.finishNode(ev.NodeID, d)
	}
}

func (f *Fold) startNode(node string, d event.NodeStartedData) {
	switch d.Kind {
	case event.KindAgent:
		// A turn's root: a follow-up's turn hangs from its own (followup.go).
		f.root = node
		f.turns++
	case event.KindUser:
		if d.AnswerTo != "" {
			// The answer to an ask_user call: the model reads it as the
			// call's result; the next model call follows the answer.
			if i := slices.Index(f.turnNodes, d.AnswerTo); i >= 0 {
				f.turnNodes[i] = node
			}
			return
		}
		f.queued = append(f.queued, llm.Message{Role: llm.RoleUser, Text: d.Text})
		f.queuedNodes = append(f.queuedNodes, node)
	case event.KindLLM:
		f.step++
		f.conv = append(f.conv, f.queued...)
		f.llmAfter = d.After
		f.queued, f.queuedNodes, f.turnNodes = nil, nil, nil
		f.llmOpen, f.final = node, false
	case event.KindTool:
		t := &toolState{node: node}
		if prev := f.tools[d.CallID]; prev != nil && d.RetryOf != "" {
			// A retry is the person's decision on a call already decided:
			// it runs what was approved, without asking again.
			t.effect, t.reason, t.decision, t.source, t.edited = prev.effect, prev.reason, prev.decision, prev.source, prev.edited
			t.retry = true
			t.risk, t.touched, t.touches = prev.risk, prev.touched, prev.touches
		}
		f.tools[d.CallID] = t
	}
}

func (f *Fold) finishNode(node string, d event.NodeFinishedData) {
	if node == f.llmOpen {
		f.llmOpen = ""
		if d.Status != event.NodeSucceeded {
			f.turnNodes = f.llmAfter // the next step calls the model again, after the same nodes
			return
		}
		calls := make([]llm.ToolCall, len(d.ToolCalls))
		for i, c := range d.ToolCalls {
			calls[i] = llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
		}
		f.answered(llm.Message{Role: llm.RoleAssistant, Text: d.Text, ToolCalls: calls})
		f.calls, f.tools = calls, map[string]*toolState{}
		f.final = len(calls) == 0
		f.lastLLM = node
		return
	}
	for i, c := range f.calls {
		t := f.tools[c.ID]
		if t == nil || t.node != node {
			continue
		}
		if d.Status == event.NodeInterrupted {
			t.interrupted = true
			return
		}
		t.finished = true
		pictured := len(f.pictures[node]) > 0
		if pictured {
			if f.resultNode == nil {
				f.resultNode = map[string]string{}
			}
			f.resultNode[c.ID] = node
		}
		at := f.result(llm.Message{Role: llm.RoleTool, ToolCallID: c.ID,
			Text: modelText(tool.Result{Output: d.Output, IsError: d.IsError, Code: d.Code}), IsError: d.IsError})
		if pictured {
			f.pictured = append(f.pictured, at...)
		}
		f.calls = append(f.calls[:i:i], f.calls[i+1:]...)
		f.turnNodes = append(f.turnNodes, node)
		return
	}
}

// answered adds a model answer to the conversation, each of its calls
// followed by the result that stands in for it until its own is recorded.
func (f *Fold) answered(m llm.Message) {
	f.conv = append(f.conv, m)
	clear(f.slot)
	for _, c := range m.ToolCalls {
		f.slot[c.ID] = append(f.slot[c.ID], len(f.conv))
		f.conv = append(f.conv, interruptedResult(c.ID))
	}
}

// result puts a call's result where its stand-in is, and returns where. A
// conversation that a request was handed is copied first: what a request
// holds never changes.
func (f *Fold) result(m llm.Message) []int {
	at := f.slot[m.ToolCallID]
	delete(f.slot, m.ToolCallID)
	for _, i := range at {
		if i < f.handed {
			f.conv, f.handed = slices.Clone(f.conv), 0
		}
		f.conv[i] = m
	}
	return at
}

// interruptedResult stands in for the result of a call that has none in the
// log: after a crash, or in a fork of a turn half done.
func interruptedResult(callID string) llm.Message {
	return llm.Message{Role: llm.RoleTool, ToolCallID: callID, IsError: true,
		Text: "error interrupted: no result was recorded for this call; its outcome is unknown"}
}

// request returns the conversation for the next model call, repaired: every
// tool call has a result right after its assistant message (a synthesized
// one where none was recorded, as after a crash or a fork), so a provider
// never rejects the transcript. The log is not rewritten. With no user
// message queued (the engine's case: its model call's node.started took
// them in) it is the conversation itself, as the engine keeps it.
func (f *Fold) request() []llm.Message {
	if len(f.queued) == 0 {
		f.handed = len(f.conv)
		return f.conv[:len(f.conv):len(f.conv)]
	}
	out := make([]llm.Message, 0, len(f.conv)+len(f.queued))
	return append(append(out, f.conv...), f.queued...)
}

// repair returns a recorded conversation (a fork's history) as the engine
// sends it: msgs without their tool messages, each assistant message
// followed by the results of its calls in call order, a synthesized
// "interrupted" one where msgs has none.
func repair(msgs []llm.Message) []llm.Message {
	results := map[string]llm.Message{}
	for _, m := range msgs {
		if m.Role == llm.RoleTool {
			results[m.ToolCallID] = m
		}
	}
	out := make([]llm.Message, 0, len(msgs))
	for _, m := range msgs {
		if m.Role == llm.RoleTool {
			continue // placed right after its call below
		}
		out = append(out, m)
		for _, c := range m.ToolCalls {
			res, ok := results[c.ID]
			if !ok {
				res = interruptedResult(c.ID)
			}
			out = append(out, res)
		}
	}
	return out
}

func (f *Fold) toolByNode(node string) *toolState {
	for _, t := range f.tools {
		if t.node == node {
			return t
		}
	}
	return nil
}
