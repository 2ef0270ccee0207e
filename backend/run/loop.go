package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/llm"
	"steward/backend/policy"
	"steward/backend/store"
	"steward/backend/tool"
)

// runState is what the driving goroutine knows of its run: a fold of the
// events it wrote.
type runState struct {
	id         string
	agent      agent.Agent
	model      Model
	env        tool.Env
	unattended bool

	root     string
	nodes    int
	step     int
	messages []llm.Message
	buf      []event.Event    // emitted, not yet handed to the store
	pending  []*store.Pending // handed to the store, commit not yet seen
}

func (r *runState) newNode() string {
	r.nodes++
	return "n" + strconv.Itoa(r.nodes)
}

// emit records an event. It is handed to the store at the next flush,
// together with its neighbours, so that the events of a step commit in one
// group rather than one by one.
func (s *Service) emit(r *runState, typ event.Type, node string, data any) {
	r.buf = append(r.buf, event.New(r.id, typ, node, data))
}

// flush hands the emitted events to the store without waiting for their
// commit. The loop flushes before anything that may take a while (a model
// call, a wait for a person), so watchers see each event as it happens.
func (s *Service) flush(r *runState) {
	if len(r.buf) > 0 {
		r.pending = append(r.pending, s.cfg.Store.SubmitAll(r.buf))
		r.buf = nil
	}
}

// sync flushes and waits until every emitted event has committed.
func (s *Service) sync(r *runState) error {
	s.flush(r)
	var first error
	for _, p := range r.pending {
		if _, err := p.Wait(); err != nil && first == nil {
			first = err
		}
	}
	r.pending = r.pending[:0]
	return first
}

// drive runs the step loop until the run ends.
func (s *Service) drive(ctx context.Context, r *runState) {
	s.emit(r, event.RunStatus, "", event.RunStatusData{Status: string(Running)})
	r.root = r.newNode()
	s.emit(r, event.NodeStarted, r.root, event.NodeStartedData{Kind: event.KindAgent, Label: r.agent.Name})
	user := r.newNode()
	s.emit(r, event.NodeStarted, user, event.NodeStartedData{Kind: event.KindUser, Parent: r.root, Label: "instructions", Text: r.messages[0].Text})
	// Every node is closed by exactly one node.finished; a user message is
	// complete as soon as it is recorded.
	s.emit(r, event.NodeFinished, user, event.NodeFinishedData{Status: event.NodeSucceeded})
	prev := []string{user}
	for {
		if err := ctx.Err(); err != nil {
			s.finish(ctx, r, nil)
			return
		}
		if r.step >= r.agent.MaxSteps {
			s.finish(ctx, r, fmt.Errorf("reached max_steps (%d) before the model finished", r.agent.MaxSteps))
			return
		}
		r.step++
		llmNode := r.newNode()
		resp, err := s.callModel(ctx, r, llmNode, prev)
		if err != nil {
			s.finish(ctx, r, err)
			return
		}
		r.messages = append(r.messages, llm.Message{Role: llm.RoleAssistant, Text: resp.Text, ToolCalls: resp.ToolCalls})
		if len(resp.ToolCalls) == 0 {
			s.finish(ctx, r, nil)
			return
		}
		prev = prev[:0]
		for _, call := range resp.ToolCalls {
			toolNode := r.newNode()
			res, err := s.callTool(ctx, r, llmNode, toolNode, call)
			if err != nil {
				s.finish(ctx, r, err)
				return
			}
			r.messages = append(r.messages, llm.Message{Role: llm.RoleTool, ToolCallID: call.ID, Text: modelText(res), IsError: res.IsError})
			prev = append(prev, toolNode)
		}
	}
}

// finish records the end of the run: cancelled when ctx ended, failed when
// cause is set, completed otherwise.
func (s *Service) finish(ctx context.Context, r *runState, cause error) {
	st, reason, msg := Completed, "", ""
	rootStatus := event.NodeSucceeded
	switch {
	case ctx.Err() != nil && errors.Is(context.Cause(ctx), errShutdown):
		st, reason, msg, rootStatus = Failed, "shutdown", "Steward stopped during the run", event.NodeCancelled
	case ctx.Err() != nil:
		st, reason, rootStatus = Cancelled, "cancelled by the user", event.NodeCancelled
	case cause != nil:
		st, msg, rootStatus = Failed, cause.Error(), event.NodeFailed
	}
	s.emit(r, event.NodeFinished, r.root, event.NodeFinishedData{Status: rootStatus, Error: msg})
	s.emit(r, event.RunStatus, "", event.RunStatusData{Status: string(st), Reason: reason, Error: msg})
	if err := s.sync(r); err != nil {
		s.cfg.Logf("run %s: record end: %v", r.id, err)
	}
}

// callModel makes one model call as node, streaming its text into llm.delta
// events. A cancelled context ends the node as cancelled and returns
// ctx.Err(); any other failure ends it as failed.
func (s *Service) callModel(ctx context.Context, r *runState, node string, after []string) (*llm.Response, error) {
	start := time.Now()
	s.emit(r, event.NodeStarted, node, event.NodeStartedData{
		Kind: event.KindLLM, Parent: r.root, After: slices.Clone(after),
		Label: "model call " + strconv.Itoa(r.step), Step: r.step, Model: r.model.Model,
	})
	specs := s.cfg.Tools.Specs(r.agent.Tools...)
	tools := make([]llm.ToolSpec, len(specs))
	for i, sp := range specs {
		tools[i] = llm.ToolSpec{Name: sp.Name, Description: sp.Description, Schema: sp.Schema}
	}
	s.flush(r) // the node is visible while the model thinks
	var buf []byte
	lastFlush := start
	flush := func() {
		if len(buf) > 0 {
			s.emit(r, event.LLMDelta, node, event.LLMDeltaData{Text: string(buf)})
			buf = buf[:0]
			s.flush(r)
		}
		lastFlush = time.Now()
	}
	resp, err := r.model.Provider.Stream(ctx, llm.Request{
		Model: r.model.Model, System: r.agent.SystemPrompt, Messages: r.messages, Tools: tools,
	}, func(d llm.Delta) {
		if d.Kind != llm.DeltaText {
			return
		}
		// Coalesce tokens: one event per flush interval keeps the log small
		// and the stream still looks live.
		buf = append(buf, d.Text...)
		if time.Since(lastFlush) >= s.cfg.DeltaFlush || len(buf) >= 4096 {
			flush()
		}
	})
	flush()
	dur := time.Since(start).Milliseconds()
	if err != nil {
		status := event.NodeFailed
		if ctx.Err() != nil {
			status, err = event.NodeCancelled, ctx.Err()
		} else {
			err = fmt.Errorf("model call failed: %w", err)
		}
		s.emit(r, event.NodeFinished, node, event.NodeFinishedData{Status: status, Error: err.Error(), DurationMS: dur})
		return nil, err
	}
	calls := make([]event.ToolCall, len(resp.ToolCalls))
	for i, c := range resp.ToolCalls {
		calls[i] = event.ToolCall{ID: c.ID, Name: c.Name, Arguments: validJSON(c.Arguments)}
	}
	s.emit(r, event.NodeFinished, node, event.NodeFinishedData{
		Status: event.NodeSucceeded, Text: resp.Text, ToolCalls: calls, StopReason: resp.StopReason, DurationMS: dur,
		Usage: &event.Usage{InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens, CachedTokens: resp.Usage.CachedTokens},
	})
	return resp, nil
}

// callTool runs one tool call as node: checks, policy, approval, the call.
// The returned result is what the model sees. An error means the run must
// end (cancelled, or the log could not be written).
func (s *Service) callTool(ctx context.Context, r *runState, parent, node string, call llm.ToolCall) (tool.Result, error) {
	start := time.Now()
	spec, known := s.cfg.Tools.Lookup(call.Name)
	s.emit(r, event.NodeStarted, node, event.NodeStartedData{
		Kind: event.KindTool, Parent: parent, After: []string{parent}, Label: call.Name,
		Tool: call.Name, CallID: call.ID, Arguments: validJSON(call.Arguments), Risk: string(spec.Risk),
	})
	end := func(status string, res tool.Result) (tool.Result, error) {
		s.emit(r, event.NodeFinished, node, event.NodeFinishedData{
			Status: status, Output: res.Output, IsError: res.IsError, Code: res.Code, DurationMS: time.Since(start).Milliseconds(),
		})
		if status == event.NodeCancelled {
			return res, ctx.Err()
		}
		return res, nil
	}
	// broken ends the node on a system failure that ends the run, so that
	// the node does not stay open in the graph.
	broken := func(err error) (tool.Result, error) {
		s.emit(r, event.NodeFinished, node, event.NodeFinishedData{
			Status: event.NodeFailed, Error: err.Error(), DurationMS: time.Since(start).Milliseconds(),
		})
		return tool.Result{}, err
	}
	if !known || !slices.Contains(r.agent.Tools, call.Name) {
		return end(event.NodeFailed, tool.Errorf(tool.CodeUnknownTool,
			fmt.Sprintf("unknown tool %q; this agent can use: %v", call.Name, r.agent.Tools)))
	}
	if res, ok := s.cfg.Tools.Validate(call.Name, call.Arguments); !ok {
		return end(event.NodeFailed, res)
	}
	d := policy.Decide(policy.Input{Mode: r.agent.Mode, Tool: call.Name, Risk: spec.Risk, Unattended: r.unattended})
	s.emit(r, event.PolicyDecided, node, event.PolicyDecidedData{Effect: string(d.Effect), Reason: d.Reason})
	switch d.Effect {
	case policy.Deny:
		return end(event.NodeDenied, tool.Errorf("denied", "denied by policy: "+d.Reason))
	case policy.Ask:
		dec, err := s.ask(ctx, r, node, call, spec, d.Reason)
		if err != nil {
			if ctx.Err() != nil {
				return end(event.NodeCancelled, tool.Errorf(tool.CodeCancelled, "cancelled while waiting for approval"))
			}
			return broken(err)
		}
		if dec.Decision != "approve" {
			msg := "The user denied this call."
			if dec.Feedback != "" {
				msg += " Their feedback: " + dec.Feedback
			}
			return end(event.NodeDenied, tool.Errorf("denied", msg))
		}
	}
	// The call is a side effect: everything before it must be durable.
	if err := s.sync(r); err != nil {
		return broken(fmt.Errorf("record before %s: %w", call.Name, err))
	}
	// A safe point: once the run is cancelled no tool call may start, not
	// even one approved a moment before.
	if ctx.Err() != nil {
		return end(event.NodeCancelled, tool.Errorf(tool.CodeCancelled, call.Name+" was not started: the run was cancelled"))
	}
	res, err := s.cfg.Tools.Call(ctx, r.env, call.Name, call.Arguments)
	// A call that succeeded although the run was cancelled meanwhile made its
	// effect: it is recorded as a success, and the run stops at the next safe
	// point.
	switch {
	case ctx.Err() != nil && (err != nil || res.IsError):
		return end(event.NodeCancelled, tool.Errorf(tool.CodeCancelled, call.Name+" was cancelled"))
	case err != nil:
		s.cfg.Logf("run %s: tool %s: %v", r.id, call.Name, err)
		return end(event.NodeFailed, tool.Errorf("internal", fmt.Sprintf("%s failed inside Steward: %v", call.Name, err)))
	case res.IsError:
		return end(event.NodeFailed, res)
	}
	return end(event.NodeSucceeded, res)
}

// ask opens an approval and waits for it, moving the run to waiting and back.
func (s *Service) ask(ctx context.Context, r *runState, node string, call llm.ToolCall, spec tool.Spec, reason string) (inbox.Decision, error) {
	if err := s.sync(r); err != nil {
		return inbox.Decision{}, err
	}
	id, err := s.cfg.Approver.Open(context.WithoutCancel(ctx), inbox.Request{
		RunID: r.id, NodeID: node, Tool: call.Name, Arguments: call.Arguments, Risk: string(spec.Risk), Reason: reason,
	})
	if err != nil {
		return inbox.Decision{}, err
	}
	s.emit(r, event.RunStatus, "", event.RunStatusData{Status: string(Waiting), Reason: "approval of " + call.Name})
	s.flush(r)
	dec, err := s.cfg.Approver.Wait(ctx, id)
	if err != nil {
		return inbox.Decision{}, err
	}
	s.emit(r, event.RunStatus, "", event.RunStatusData{Status: string(Running)})
	return dec, nil
}

// validJSON keeps a model's malformed arguments visible in the log without
// breaking the event's own JSON.
func validJSON(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("{}")
	}
	if json.Valid(b) {
		return b
	}
	q, _ := json.Marshal(string(b))
	return q
}

// modelText is what the model reads of a result: a failure carries its
// diagnostic code, so a model can tell bad arguments from a missing file.
func modelText(res tool.Result) string {
	if res.IsError && res.Code != "" {
		return "error " + res.Code + ": " + res.Output
	}
	return res.Output
}
