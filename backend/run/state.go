package run

import (
	"strconv"
	"strings"

	"steward/backend/event"
	"steward/backend/llm"
	"steward/backend/tool"
)

// runState is what the engine knows of a run: its Fold (the fold of the
// run's log, so the live engine and a run resumed after a restart compute
// the next step from the same facts) and, above it, what comes from
// outside the log.
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

	Fold
}

func newRunState(id string) *runState {
	r := &runState{id: id}
	r.init()
	return r
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
			// Edit, then approve: what runs is the person's arguments.
			if len(a.tool.edited) > 0 {
				n.Arguments = validJSON(a.tool.edited)
			}
		}
		return n
	case actModel:
		return &event.Next{Kind: actModel}
	}
	return nil
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
		out[i] = event.Message{Role: m.Role, Text: m.Text, ToolCalls: calls, ToolCallID: m.ToolCallID, IsError: m.IsError}
	}
	return out
}
