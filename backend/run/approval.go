package run

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/llm"
	"steward/backend/policy"
	"steward/backend/tool"
	"steward/backend/tools/interact"
)

// decision is the outcome of policy and approval for one call; Feedback and
// Code are what the model reads when it was denied.
type decision struct{ Decision, Feedback, Code string }

// screen applies the policy to every call of the turn that has a node and
// no decision yet, and opens the approvals of those that ask together, as
// one group: a person sees the turn's parallel calls side by side and can
// decide them together. Calls that are unknown or invalid are left alone;
// callTool refuses them when their turn comes.
func (s *Service) screen(ctx context.Context, a *active) error {
	type screened struct {
		call      llm.ToolCall
		ts        *toolState
		risk      tool.Risk
		riskNote  string
		sandboxed bool // the tool's program runs in the OS sandbox
		// settled: no call before it in the turn may change what it
		// finds, so its precheck now is its precheck when it runs.
		settled bool
	}
	a.mu.Lock()
	ag := a.st.agent
	var todo []screened
	settled := true
	for _, c := range a.st.calls {
		t := a.st.tools[c.ID]
		spec, ok := a.st.registry.Lookup(c.Name)
		before := settled
		if t == nil || !t.finished {
			settled = settled && ok && spec.Risk == tool.RiskRead
		}
		if t == nil || t.effect != "" || t.decision != "" || t.finished || t.interrupted {
			continue
		}
		if !ok || !tool.Uses(ag.Tools, c.Name) {
			continue
		}
		if _, valid := a.st.registry.Validate(c.Name, c.Arguments); !valid {
			continue
		}
		todo = append(todo, screened{call: c, ts: t, risk: spec.Risk, riskNote: spec.RiskNote, sandboxed: spec.Sandboxed, settled: before})
	}
	pol := policy.Input{Mode: ag.Mode, Unattended: a.st.unattended, Workspace: a.st.env.Workspace}
	group, env := a.st.lastLLM, a.st.env
	a.mu.Unlock()
	if len(todo) == 0 {
		return nil
	}
	rules, err := s.rules(ctx, a)
	if err != nil {
		return err
	}
	pol.Rules = rules
	box := sandboxPolicy(s.sandboxState(ag))
	var asks []screened
	for _, c := range todo {
		in := pol
		in.Tool, in.Risk, in.RiskNote, in.Args = c.call.Name, c.risk, c.riskNote, c.call.Arguments
		if c.sandboxed {
			in.Sandbox = box
		}
		if key, ok := a.st.registry.Key(c.call.Name, env, c.call.Arguments); ok {
			in.Key = &key
		}
		in.Touches, in.Touched = a.st.registry.Touches(c.call.Name, env, c.call.Arguments)
		d := policy.Decide(in)
		data := event.PolicyDecidedData{Effect: d.Effect, Reason: d.Reason, Touched: in.Touched, Touches: eventTouches(in.Touches)}
		if d.Risk != c.risk {
			data.Risk = d.Risk
		}
		a.emit(event.PolicyDecided, c.ts.node, data)
		if d.Effect != policy.Ask {
			continue
		}
		// A call its tool would refuse anyway is not put to a person:
		// callTool gives the model the refusal when its turn comes.
		if c.settled {
			if _, refused := s.precheck(ctx, a, c.call); refused {
				continue
			}
		}
		c.risk = d.Risk
		asks = append(asks, c)
	}
	if len(asks) == 0 {
		return nil
	}
	if err := a.sync(); err != nil { // the nodes must exist before their approvals
		return err
	}
	for _, c := range asks {
		if err := s.openApproval(ctx, a, c.ts, c.call, c.risk, group, len(asks)); err != nil {
			return err
		}
	}
	return nil
}

// rules returns the rules a call of the run is decided by: the agent's (its
// run's and the global ones included) and the saved grants that apply.
func (s *Service) rules(ctx context.Context, a *active) ([]policy.Rule, error) {
	a.mu.Lock()
	rules, runID, agentID, noGrants := a.st.agent.Rules, a.st.id, a.st.agent.ID, a.st.noGrants
	a.mu.Unlock()
	if s.cfg.Grants == nil || noGrants {
		return rules, nil
	}
	grants, err := s.cfg.Grants.Grants(ctx, runID, agentID)
	if err != nil {
		return nil, fmt.Errorf("look up grants: %w", err)
	}
	return append(slices.Clip(rules), grants...), nil
}

// eventTouches is touches as a policy.decided records them.
func eventTouches(touches []tool.Touch) []event.Touch {
	var out []event.Touch
	for _, t := range touches {
		out = append(out, event.Touch{Path: t.Path, Via: t.Via, Access: t.Access})
	}
	return out
}

// openApproval opens the approval of one call that the policy asks about,
// with the risk the policy weighed (exec for a write that runs programs).
func (s *Service) openApproval(ctx context.Context, a *active, ts *toolState, call llm.ToolCall, risk tool.Risk, group string, size int) error {
	a.mu.Lock()
	runID, reason, env := a.st.id, ts.reason, a.st.env
	if ts.risk != "" {
		risk = tool.Risk(ts.risk)
	}
	timeout, def := approvalTimeout(a.st.agent)
	a.mu.Unlock()
	var key *string // the tool's own key, as the policy matched it
	if k, ok := a.st.registry.Key(call.Name, env, call.Arguments); ok {
		key = &k
	}
	// What the call would change, as the person sees the files now; a call
	// of the same turn approved before it may change them again.
	var preview *event.Preview
	if p, ok := a.st.registry.Preview(ctx, call.Name, s.toolEnv(a), call.Arguments); ok {
		preview = &p
	}
	// The schema the call is checked against, for the person's edit form.
	var schema json.RawMessage
	if spec, ok := a.st.registry.Lookup(call.Name); ok && json.Valid(spec.Schema) {
		schema = spec.Schema
	}
	id, err := a.st.approver.Open(context.WithoutCancel(ctx), inbox.Request{
		RunID: runID, NodeID: ts.node, CallID: call.ID, Key: key, Tool: call.Name, Arguments: call.Arguments, Risk: string(risk), Reason: reason,
		Group: group, GroupSize: size, Timeout: timeout, DefaultDecision: def, Preview: preview, Schema: schema,
	})
	if err != nil {
		return err
	}
	return a.opened(ctx, ts, id)
}

// opened folds the approval.requested the inbox wrote for ts, which
// opened the interaction id (follow).
func (a *active) opened(ctx context.Context, ts *toolState, id string) error {
	if err := a.follow(ctx); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if ts.interaction != id {
		return fmt.Errorf("the inbox opened %s for node %s, and the run's log does not say so", id, ts.node)
	}
	return nil
}

// approvalTimeout is the agent's approval timeout and default decision.
// Agents are validated when saved; a bad value here means no timeout.
func approvalTimeout(ag agent.Agent) (time.Duration, string) {
	d, err := time.ParseDuration(ag.ApprovalTimeout)
	if err != nil || d <= 0 {
		return 0, ""
	}
	return d, string(ag.ApprovalDefault)
}

// decide returns the decision on a screened call: the policy's, or for a
// call it asks about, the person's answer, waited for with the run in
// waiting. After a restart it takes up the approval already open or
// answered.
func (s *Service) decide(ctx context.Context, a *active, ts *toolState, call llm.ToolCall, spec tool.Spec) (decision, error) {
	a.mu.Lock()
	effect, reason, interaction := ts.effect, ts.reason, ts.interaction
	prior, feedback, source := ts.decision, ts.feedback, ts.source
	group := a.st.lastLLM
	a.mu.Unlock()
	switch {
	case prior != "":
		return denial(prior, feedback, source), nil
	case effect == string(policy.Allow):
		return decision{Decision: event.DecisionApprove}, nil
	case effect == string(policy.Deny):
		return decision{Decision: event.DecisionDeny, Feedback: "denied by policy: " + reason, Code: "denied"}, nil
	case effect != string(policy.Ask):
		return decision{}, fmt.Errorf("%s: no policy decision was recorded for node %s", call.Name, ts.node)
	}
	if interaction == "" { // a restart came between the decision and its approval
		if err := a.sync(); err != nil {
			return decision{}, err
		}
		if err := s.openApproval(ctx, a, ts, call, spec.Risk, group, 1); err != nil {
			return decision{}, err
		}
	}
	if err := s.await(ctx, a, ts, "approval of "+call.Name); err != nil {
		return decision{}, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return denial(ts.decision, ts.feedback, ts.source), nil
}

// await waits for the answer to the call's interaction, with the run in
// waiting (unless the answer is already there), and folds the
// approval.decided the inbox wrote (follow).
func (s *Service) await(ctx context.Context, a *active, ts *toolState, why string) error {
	a.mu.Lock()
	id := ts.interaction
	a.mu.Unlock()
	answered, err := a.st.approver.Answered(ctx, id)
	if err != nil {
		return err
	}
	if !answered {
		a.mu.Lock()
		if a.st.status == Running || a.st.status == Paused {
			a.setStatusLocked(Waiting, why, "", nil)
		}
		a.flushLocked()
		a.mu.Unlock()
	}
	if _, err := a.st.approver.Wait(ctx, id); err != nil {
		return err
	}
	if err := a.follow(ctx); err != nil {
		return err
	}
	// The run acts again under its command lock: a restore of its files
	// that found it waiting finishes first (see runLocks).
	unlock := s.locks.lock(a.st.id)
	defer unlock()
	a.mu.Lock()
	defer a.mu.Unlock()
	if ts.decision == "" {
		return fmt.Errorf("%s was answered, and the run's log does not say so", id)
	}
	if a.st.status == Waiting {
		a.setStatusLocked(Running, "", "", nil)
	}
	return nil
}

// denial turns an answer into the decision and the message the model reads
// when it was a denial.
func denial(dec, feedback, source string) decision {
	if dec == event.DecisionApprove {
		return decision{Decision: dec}
	}
	msg := "The user denied this call."
	if source == inbox.SourceTimeout {
		msg = "Nobody answered the approval in time:"
	}
	if feedback != "" {
		if source == inbox.SourceTimeout {
			msg += " " + feedback
		} else {
			msg += " Their feedback: " + feedback
		}
	}
	return decision{Decision: event.DecisionDeny, Feedback: msg, Code: "denied"}
}

// askUser carries out an ask_user call: it opens the question in the inbox
// (or takes up the one opened before a restart) and waits for the answer.
// It returns the call's result and, when the person answered, the answer as
// the model reads it.
func (s *Service) askUser(ctx context.Context, a *active, ts *toolState, call llm.ToolCall) (tool.Result, string, error) {
	q, err := interact.ParseQuestion(call.Arguments)
	if err != nil {
		return tool.Errorf(tool.CodeInvalidArguments, err.Error()), "", nil
	}
	a.mu.Lock()
	unattended, interaction, runID := a.st.unattended, ts.interaction, a.st.id
	timeout, _ := approvalTimeout(a.st.agent)
	a.mu.Unlock()
	if unattended && interaction == "" {
		return tool.Errorf("unattended", "Nobody is there to answer: this run is unattended. Go on with your best judgement and say what you assumed."), "", nil
	}
	if interaction == "" {
		if err := a.sync(); err != nil {
			return tool.Result{}, "", err
		}
		// A question left unanswered is declined: there is no default answer.
		id, err := a.st.approver.Open(context.WithoutCancel(ctx), inbox.Request{
			RunID: runID, NodeID: ts.node, CallID: call.ID, Tool: call.Name, Arguments: call.Arguments, Risk: string(tool.RiskRead),
			Reason: "the agent asks", Question: &q, Timeout: timeout, DefaultDecision: event.DecisionDeny,
		})
		if err != nil {
			return tool.Result{}, "", err
		}
		if err := a.opened(ctx, ts, id); err != nil {
			return tool.Result{}, "", err
		}
	}
	a.mu.Lock()
	answered := ts.decision != ""
	a.mu.Unlock()
	if !answered {
		if err := s.await(ctx, a, ts, "question: "+truncate(q.Text, 80)); err != nil {
			return tool.Result{}, "", err
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case ts.decision == event.DecisionAnswer:
		return tool.Result{Output: ts.answer}, ts.answer, nil
	case ts.source == inbox.SourceTimeout:
		return tool.Errorf("timeout", "Nobody answered: "+ts.feedback), "", nil
	}
	msg := "The user declined to answer."
	if ts.feedback != "" {
		msg += " Their feedback: " + ts.feedback
	}
	return tool.Errorf("declined", msg), "", nil
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// precheck asks the call's tool whether it would refuse the call as the
// run's files are now (tool.Prechecker).
func (s *Service) precheck(ctx context.Context, a *active, call llm.ToolCall) (tool.Result, bool) {
	a.mu.Lock()
	reg := a.st.registry
	a.mu.Unlock()
	return reg.Precheck(ctx, call.Name, s.toolEnv(a), call.Arguments)
}

// toolEnv is the env a precheck or a preview runs a call's tool in: the
// run's, with its record of the files read.
func (s *Service) toolEnv(a *active) tool.Env {
	a.mu.Lock()
	defer a.mu.Unlock()
	env := a.st.env
	env.Files = a.toolFiles()
	return env
}
