package run

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/llm"
	"steward/backend/policy"
	"steward/backend/tool"
)

// callTool runs the next tool call: checks, policy, approval, a last safe
// point, then the call itself. The result goes to the model through the
// node's node.finished. An error means the run must end.
func (s *Service) callTool(ctx context.Context, a *active) error {
	start := time.Now()
	a.mu.Lock()
	act := a.st.next()
	call, ts := act.call, act.tool
	resolve := a.resolve
	a.resolve = ""
	spec, known := s.cfg.Tools.Lookup(call.Name)
	node := ""
	if ts == nil || resolve != "" {
		// A new node: the first try, or the person's retry or skip of an
		// interrupted call.
		retryOf := ""
		if ts != nil {
			retryOf = ts.node
		}
		node = a.st.newNode()
		a.emitLocked(event.NodeStarted, node, event.NodeStartedData{
			Kind: event.KindTool, Parent: a.st.lastLLM, After: []string{a.st.lastLLM}, Label: call.Name,
			Tool: call.Name, CallID: call.ID, Arguments: validJSON(call.Arguments), Risk: string(spec.Risk), RetryOf: retryOf,
		})
		ts = a.st.tools[call.ID]
	} else {
		node = ts.node // resumed after a restart, before it executed
	}
	a.mu.Unlock()

	end := func(status string, res tool.Result) error {
		a.emit(event.NodeFinished, node, event.NodeFinishedData{
			Status: status, Output: res.Output, IsError: res.IsError, Code: res.Code, DurationMS: time.Since(start).Milliseconds(),
		})
		return nil
	}
	// notStarted ends a call that ctx stopped before it ran: cancelled, or
	// left open for the restart after a shutdown.
	notStarted := func(ctx context.Context) error {
		if errors.Is(context.Cause(ctx), errShutdown) {
			return nil
		}
		return end(event.NodeCancelled, tool.Errorf(tool.CodeCancelled, call.Name+" was not started: the run was cancelled"))
	}
	broken := func(err error) error { // a system failure: the node ends, and so does the run
		a.emit(event.NodeFinished, node, event.NodeFinishedData{Status: event.NodeFailed, Error: err.Error(), DurationMS: time.Since(start).Milliseconds()})
		return err
	}
	if resolve == CmdSkip {
		return end(event.NodeFailed, tool.Errorf(event.NodeInterrupted,
			"the call was interrupted by a restart and the user chose to skip it: its outcome is unknown; check before relying on it"))
	}
	if resolve != CmdRetry { // a retry is the person's decision: no checks or approval again
		a.mu.Lock()
		tools := a.st.agent.Tools
		pol := policy.Input{Mode: a.st.agent.Mode, Rules: a.st.agent.Rules, Unattended: a.st.unattended, Workspace: a.st.env.Workspace}
		a.mu.Unlock()
		if !known || !slices.Contains(tools, call.Name) {
			return end(event.NodeFailed, tool.Errorf(tool.CodeUnknownTool, fmt.Sprintf("unknown tool %q; this agent can use: %v", call.Name, tools)))
		}
		if res, ok := s.cfg.Tools.Validate(call.Name, call.Arguments); !ok {
			return end(event.NodeFailed, res)
		}
		dec, err := s.decide(ctx, a, node, ts, call, spec, pol)
		switch {
		case ctx.Err() != nil && errors.Is(context.Cause(ctx), errShutdown):
			return nil // the call never ran: it stays open, its approval too, and resumes after the restart
		case ctx.Err() != nil:
			return end(event.NodeCancelled, tool.Errorf(tool.CodeCancelled, "cancelled while waiting for approval"))
		case err != nil:
			return broken(err)
		case dec.Decision != "approve":
			return end(event.NodeDenied, tool.Errorf("denied", dec.Feedback))
		}
		// A pause asked while the approval was open takes effect here,
		// before the approved call runs.
		if !s.safePoint(ctx, a, action{kind: actTool, call: call, tool: ts}) {
			return notStarted(ctx)
		}
	}
	// The call is a side effect: everything before it, and the mark that it
	// starts, must be durable first. After a crash a marked call with no end
	// is interrupted, never silently run again.
	if ctx.Err() != nil {
		return notStarted(ctx)
	}
	a.emit(event.ToolExecuting, node, event.ToolExecutingData{})
	if err := a.sync(); err != nil {
		return broken(fmt.Errorf("record before %s: %w", call.Name, err))
	}
	a.mu.Lock()
	env := a.st.env
	a.mu.Unlock()
	res, err := s.cfg.Tools.Call(ctx, env, call.Name, call.Arguments)
	switch {
	case ctx.Err() != nil && (err != nil || res.IsError):
		// Stopped by cancel or shutdown. A call that succeeded anyway made
		// its effect and is recorded as a success below.
		return end(interruptedBy(ctx), tool.Errorf(tool.CodeCancelled, call.Name+" was stopped: "+context.Cause(ctx).Error()))
	case err != nil:
		s.cfg.Logf("run %s: tool %s: %v", a.st.id, call.Name, err)
		return end(event.NodeFailed, tool.Errorf("internal", fmt.Sprintf("%s failed inside Steward: %v", call.Name, err)))
	case res.IsError:
		return end(event.NodeFailed, res)
	}
	return end(event.NodeSucceeded, res)
}

// decision is the outcome of policy and approval for one call.
type decision struct{ Decision, Feedback string }

// decide applies the policy (pol, completed with the call) to a call and, when it asks, opens an approval
// (or, after a restart, takes up the one already open or answered) and waits
// for the answer, moving the run to waiting and back.
func (s *Service) decide(ctx context.Context, a *active, node string, ts *toolState, call llm.ToolCall, spec tool.Spec, pol policy.Input) (decision, error) {
	a.mu.Lock()
	interaction, prior, feedback := ts.interaction, ts.decision, ts.feedback
	a.mu.Unlock()
	switch {
	case prior != "":
		return denial(prior, feedback, "user"), nil
	case interaction == "":
		pol.Tool, pol.Risk, pol.Args = call.Name, spec.Risk, call.Arguments
		if s.cfg.Grants != nil {
			a.mu.Lock()
			runID, agentID := a.st.id, a.st.agent.ID
			a.mu.Unlock()
			grants, err := s.cfg.Grants.Grants(ctx, runID, agentID)
			if err != nil {
				return decision{}, fmt.Errorf("look up grants: %w", err)
			}
			pol.Rules = append(slices.Clip(pol.Rules), grants...)
		}
		d := policy.Decide(pol)
		a.emit(event.PolicyDecided, node, event.PolicyDecidedData{Effect: string(d.Effect), Reason: d.Reason})
		switch d.Effect {
		case policy.Allow:
			return decision{Decision: "approve"}, nil
		case policy.Deny:
			return decision{Decision: "deny", Feedback: "denied by policy: " + d.Reason}, nil
		}
		if err := a.sync(); err != nil { // the node must exist before its approval
			return decision{}, err
		}
		id, err := s.cfg.Approver.Open(context.WithoutCancel(ctx), inbox.Request{
			RunID: a.st.id, NodeID: node, Tool: call.Name, Arguments: call.Arguments, Risk: string(spec.Risk), Reason: d.Reason,
		})
		if err != nil {
			return decision{}, err
		}
		interaction = id
		a.mu.Lock()
		ts.interaction = id // the store wrote approval.requested; keep the fold in step
		a.mu.Unlock()
	}
	a.mu.Lock()
	if a.st.status == Running || a.st.status == Paused {
		a.setStatusLocked(Waiting, "approval of "+call.Name, "", nil)
	}
	a.flushLocked()
	a.mu.Unlock()
	d, err := s.cfg.Approver.Wait(ctx, interaction)
	if err != nil {
		return decision{}, err
	}
	a.mu.Lock()
	ts.decision, ts.feedback = d.Decision, d.Feedback
	if a.st.status == Waiting {
		a.setStatusLocked(Running, "", "", nil)
	}
	a.mu.Unlock()
	return denial(d.Decision, d.Feedback, d.Source), nil
}

// denial turns an answer into the decision and the message the model reads
// when it was a denial.
func denial(dec, feedback, source string) decision {
	if dec == "approve" {
		return decision{Decision: dec}
	}
	msg := "The user denied this call."
	if feedback != "" {
		msg += " Their feedback: " + feedback
	}
	return decision{Decision: "deny", Feedback: msg}
}

// offered returns the specs of the agent's tools the model is offered in its
// mode: plan mode offers read tools only. No names offers no tools (the
// registry's Specs would return them all).
func (s *Service) offered(ag agent.Agent) []llm.ToolSpec {
	out := make([]string, 0, len(ag.Tools))
	for _, name := range ag.Tools {
		if spec, ok := s.cfg.Tools.Lookup(name); ok && policy.Offered(ag.Mode, spec.Risk) {
			out = append(out, name)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return s.toolSpecs(out)
}
