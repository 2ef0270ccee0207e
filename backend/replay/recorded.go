// Package replay re-executes a recorded run (a .steward recording read by
// package recording) as a new run of the engine, deterministically.
//
// The model side comes from the recording: Provider answers the i-th model
// call of the replay with the i-th recorded model response, and compares
// each request with the one the recorded run sent at that step; the first
// difference is kept as a Divergence, which is reported, never fatal. From
// a chosen step on (LiveFrom) a live provider takes over. The tool side
// either runs for real in a fresh workspace (PrepareWorkspace puts back
// every file the run changed as it was before the run's first change) or
// is also taken from the recording (Tools). Approvals and questions are
// answered as they were recorded (Approver), so a replay needs nobody.
//
// What the engine sent is not in the log as such: the recorded request of
// a step is the conversation the run's own fold (run.Fold, the one the
// engine keeps and sends from) gives at the start of that model call. So
// the recorded request and the replay's are built by the same code, and a
// difference between them is one of the runs, never of two folds.
//
// A recording is untrusted input: a recording read from a file, or a run
// imported from one (or one whose agent is gone), is foreign (run.Origin).
// Its replay is a run of one of this machine's agents, chosen by the person
// (Params.Agent), in ask mode unless the person says otherwise, with this
// machine's global rules and grants; run.Origin lists, field by field, what
// comes from the chosen agent. The recording lends only content: the
// instructions, the system prompt (compared, and read by a live model like
// the conversation), the model's answers, the tools' results and the
// answers to approvals. Those answers decide only what nothing on this
// machine acts on: with the recorded tools, a call of a recorded response
// never runs for real (Tools), so the Approver may answer it as recorded,
// or approve it when the recording was never asked; the calls of a live
// model, and every call with live tools, are answered by a person. A
// replay of the database's foreign run starts paused. Whatever the
// recording says, nothing is written outside the replay's folder, in a
// .git folder, or where it would make the folder a repository, and a folder
// that holds files is used only when the person allows it (PrepareWorkspace).
package replay

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/llm"
	"steward/backend/recording"
	"steward/backend/run"
)

// ErrUnsupported is wrapped by Load for a recording that cannot be
// replayed (no agent definition, a fork).
var ErrUnsupported = errors.New("cannot be replayed")

// Recorded is what a replay needs of a recording, folded once from its
// events. It is not changed after Load and is safe for concurrent use.
type Recorded struct {
	// RunID is the id of the recorded run.
	RunID   string
	Created event.RunCreatedData
	// Agent is the agent definition the run was started with (its spec),
	// with its breakpoints removed: nobody continues a replay.
	Agent agent.Agent
	// Status is the recorded run's last status.
	Status string
	// Limits are the run's budgets as they last were (a continue may have
	// raised them), so the replay is not paused where the run was not.
	Limits event.Limits

	steps     []step
	calls     map[string]toolCall // by tool call id
	order     []string            // ids of the calls that ran, in the order they ended
	approvals []approval          // in the order they were opened
	firsts    []event.FileChangedData
	blobs     map[string][]byte
}

// step is one successful model call: what was sent and what came back.
type step struct {
	node     string
	request  llm.Request // Messages and System only
	response llm.Response
	deltas   []string // the streamed text, as recorded in llm.delta events
}

// toolCall is a tool call's recorded outcome.
type toolCall struct {
	node    string
	tool    string
	args    json.RawMessage // as the model asked
	risk    event.Risk      // as the recorded node said
	ran     json.RawMessage // as a person edited them before approving, if so
	ranAt   bool            // tool.executing was recorded: the tool was called
	status  string
	output  string
	isError bool
	code    string
	changes []event.FileChangedData // the journal's changes made by the call
}

// approval is an approval or a question and its recorded answer.
type approval struct {
	tool      string
	arguments json.RawMessage
	decided   *event.ApprovalDecidedData
}

// Steps is the number of recorded model calls.
func (r *Recorded) Steps() int { return len(r.steps) }

// called reports whether the recorded run called tool name, and the risk
// its first call was recorded with.
func (r *Recorded) called(name string) (event.Risk, bool) {
	for _, id := range r.order {
		if c := r.calls[id]; c.tool == name {
			return c.risk, true
		}
	}
	return "", false
}

// Load folds b's events into what a replay needs. It refuses, with an
// error wrapping ErrUnsupported, a recording without the agent's definition
// or of a forked run (its first model call continues a conversation that a
// new run cannot be started with).
func Load(b *recording.Bundle) (*Recorded, error) {
	if len(b.Events) == 0 || b.Events[0].Type != event.RunCreated {
		return nil, fmt.Errorf("recording: %w: it does not start with run.created", ErrUnsupported)
	}
	r := &Recorded{RunID: b.Events[0].RunID, calls: map[string]toolCall{}, blobs: b.Blobs}
	if err := b.Events[0].Decode(&r.Created); err != nil {
		return nil, fmt.Errorf("recording: run.created: %w", err)
	}
	if len(r.Created.Spec) == 0 {
		return nil, fmt.Errorf("recording of run %s: %w: it holds no agent definition", r.RunID, ErrUnsupported)
	}
	if err := json.Unmarshal(r.Created.Spec, &r.Agent); err != nil {
		return nil, fmt.Errorf("recording of run %s: agent definition: %w", r.RunID, err)
	}
	if r.Created.ForkedFrom != nil || len(r.Created.History) > 0 {
		return nil, fmt.Errorf("recording of run %s: %w: it is a fork of run %s; replay that run instead", r.RunID, ErrUnsupported, forkSource(r.Created))
	}
	r.Agent.BreakBefore = nil
	if err := checkChanges(r.RunID, b); err != nil {
		return nil, err
	}
	r.fold(b.Events)
	return r, nil
}

// checkChanges refuses, before anything is written, a recording whose file
// changes a replay must not write (checkPath): both PrepareWorkspace and the
// recorded tools write them.
func checkChanges(runID string, b *recording.Bundle) error {
	for _, ev := range b.Events {
		if ev.Type != event.FileChanged {
			continue
		}
		var d event.FileChangedData
		if err := ev.Decode(&d); err != nil {
			return fmt.Errorf("recording of run %s: event %d: %w", runID, ev.Seq, err)
		}
		for _, sum := range []string{d.Before, d.After} {
			if err := checkPath(d.Path, b.Blobs[sum]); err != nil {
				return fmt.Errorf("recording of run %s: event %d: %w", runID, ev.Seq, err)
			}
		}
	}
	return nil
}

func forkSource(c event.RunCreatedData) string {
	if c.ForkedFrom == nil {
		return "(unknown)"
	}
	return c.ForkedFrom.RunID
}

// fold walks the log once, feeding every event to the run's fold (the
// conversation of each model call, the status, the budgets), and keeps each
// successful model call with the request it was sent, each tool call's
// result, the approvals and the files' first changes.
func (r *Recorded) fold(evs []event.Event) {
	var (
		f     = run.NewFold()
		open  = map[string]*step{}  // model calls started, by node
		tools = map[string]string{} // call id by tool node
		byID  = map[string]int{}    // approvals by interaction id
		seen  = map[string]bool{}   // paths with a change already
		model = map[string]string{} // model asked for, by llm node
	)
	for _, ev := range evs {
		f.Apply(ev)
		switch ev.Type {
		case event.NodeStarted:
			var d event.NodeStartedData
			_ = ev.Decode(&d) // recording.Read checked every payload decodes
			switch d.Kind {
			case event.KindLLM:
				open[ev.NodeID] = &step{node: ev.NodeID, request: llm.Request{System: r.Agent.SystemPrompt, Messages: f.Request()}}
				model[ev.NodeID] = d.Model
			case event.KindTool:
				tools[ev.NodeID] = d.CallID
				c := r.calls[d.CallID]
				c.tool, c.args, c.risk = d.Tool, d.Arguments, d.Risk
				r.calls[d.CallID] = c
			}
		case event.LLMDelta:
			if s := open[ev.NodeID]; s != nil {
				var d event.LLMDeltaData
				_ = ev.Decode(&d)
				s.deltas = append(s.deltas, d.Text)
			}
		case event.ToolExecuting:
			if id, ok := tools[ev.NodeID]; ok {
				c := r.calls[id]
				c.ranAt = true
				r.calls[id] = c
			}
		case event.LLMAttempt:
			if s := open[ev.NodeID]; s != nil {
				s.deltas = nil // the text of a failed attempt is void
			}
		case event.ApprovalRequested:
			var d event.ApprovalRequestedData
			_ = ev.Decode(&d)
			if d.Kind == event.InteractionElicitation {
				break // a server's question during the call: no decision on it
			}
			byID[d.InteractionID] = len(r.approvals)
			r.approvals = append(r.approvals, approval{tool: d.Tool, arguments: d.Arguments})
		case event.ApprovalDecided:
			var d event.ApprovalDecidedData
			_ = ev.Decode(&d)
			if i, ok := byID[d.InteractionID]; ok {
				r.approvals[i].decided = &d
			}
			if id, ok := tools[ev.NodeID]; ok && len(d.Arguments) > 0 {
				c := r.calls[id]
				c.ran = d.Arguments
				r.calls[id] = c
			}
		case event.FileChanged:
			var d event.FileChangedData
			_ = ev.Decode(&d)
			if !seen[d.Path] {
				seen[d.Path] = true
				r.firsts = append(r.firsts, d)
			}
			if id, ok := tools[ev.NodeID]; ok && ev.NodeID != "" {
				c := r.calls[id]
				c.changes = append(c.changes, d)
				r.calls[id] = c
			}
		case event.NodeFinished:
			var d event.NodeFinishedData
			_ = ev.Decode(&d)
			if s := open[ev.NodeID]; s != nil {
				delete(open, ev.NodeID)
				if d.Status != event.NodeSucceeded {
					continue // a failed call ends the run; an interrupted one is made again
				}
				calls := make([]llm.ToolCall, len(d.ToolCalls))
				for i, c := range d.ToolCalls {
					calls[i] = llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
				}
				s.response = llm.Response{Text: d.Text, ToolCalls: calls, StopReason: d.StopReason, Model: cmp.Or(d.Model, model[ev.NodeID])}
				if u := d.Usage; u != nil {
					s.response.Usage = llm.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CachedTokens: u.CachedTokens}
				}
				r.steps = append(r.steps, *s)
				continue
			}
			id, ok := tools[ev.NodeID]
			if !ok || d.Status == event.NodeInterrupted {
				continue // an interrupted call has no result: it is retried or skipped
			}
			c := r.calls[id]
			if c.node == "" && c.ranAt {
				// Only calls that reached the tool are answered by Tools:
				// the engine itself ends denied, invalid and unknown ones.
				r.order = append(r.order, id)
			}
			c.node, c.status, c.output, c.isError, c.code = ev.NodeID, string(d.Status), d.Output, d.IsError, d.Code
			r.calls[id] = c
		}
	}
	r.Status, r.Limits = string(f.Status()), f.Limits()
	for id, c := range r.calls {
		if c.node == "" {
			delete(r.calls, id) // changes of a call that never finished
		}
	}
}

// Models resolves every agent to p, named as the recorded run's model was,
// so the replayed run says the same provider and model as its source.
func Models(r *Recorded, p llm.Provider) run.Models {
	a := r.Created.Agent
	return models{run.Model{Provider: p, Name: a.Provider, Model: a.Model, Demo: a.Demo}}
}

type models struct{ m run.Model }

func (m models) Resolve(context.Context, agent.Agent) (run.Model, error) {
	return m.m, nil
}

// StartParams are the inputs of the replayed run: the recorded agent,
// instructions, attendance and budgets, in workspace, linked to the
// recorded run.
func (r *Recorded) StartParams(workspace string) run.StartParams {
	limits := r.Limits
	return run.StartParams{Agent: r.Agent, Instructions: r.Created.Instructions, Workspace: workspace,
		Unattended: r.Created.Unattended, Limits: &limits, ReplayOf: r.RunID}
}
