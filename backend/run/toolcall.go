package run

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/llm"
	"steward/backend/policy"
	"steward/backend/tool"
	"steward/backend/tools/interact"
	"steward/backend/workspace"
)

// callTool runs the next tool call: checks, policy, approval, a last safe
// point, then the call itself. The result goes to the model through the
// node's node.finished. An error means the run must end.
func (s *Service) callTool(ctx context.Context, a *active) error {
	start := time.Now()
	a.mu.Lock()
	act := a.st.next()
	call, ts := act.call, act.tool
	spec, known := a.st.registry.Lookup(call.Name)
	if ts == nil {
		s.startToolLocked(a, call, "")
		ts = a.st.tools[call.ID]
		// The other calls of the turn get their nodes now too, so that
		// their approvals open together and can be decided together.
		for _, c := range a.st.calls[1:] {
			if a.st.tools[c.ID] == nil {
				s.startToolLocked(a, c, "")
			}
		}
	}
	// After a restart: the node that was opened before it. A retry's node
	// was opened by the person's retry command, and the log keeps it.
	node, retry := ts.node, ts.retry
	a.mu.Unlock()

	end := func(status event.NodeStatus, res tool.Result) error {
		for _, art := range res.Artifacts {
			a.emit(event.ArtifactCreated, node, artifactData(art))
		}
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
	if !retry { // a retry is the person's decision: no checks or approval again
		a.mu.Lock()
		tools := a.st.agent.Tools
		a.mu.Unlock()
		if !known || !tool.Uses(tools, call.Name) {
			return end(event.NodeFailed, tool.Errorf(tool.CodeUnknownTool, fmt.Sprintf("unknown tool %q; this agent can use: %v", call.Name, tools)))
		}
		if res, ok := a.st.registry.Validate(call.Name, call.Arguments); !ok {
			return end(event.NodeFailed, res)
		}
		err := s.screen(ctx, a)
		if err == nil {
			if res, refused := s.refusedAnyway(ctx, a, ts, call); refused {
				return end(event.NodeFailed, res)
			}
		}
		var dec decision
		if err == nil {
			dec, err = s.decide(ctx, a, ts, call, spec)
		}
		switch {
		case ctx.Err() != nil && errors.Is(context.Cause(ctx), errShutdown):
			return nil // the call never ran: it stays open, its approval too, and resumes after the restart
		case ctx.Err() != nil:
			return end(event.NodeCancelled, tool.Errorf(tool.CodeCancelled, "cancelled while waiting for approval"))
		case err != nil:
			return broken(err)
		case dec.Decision != event.DecisionApprove:
			return end(event.NodeDenied, tool.Errorf(dec.Code, dec.Feedback))
		}
		// A pause asked while the approval was open takes effect here,
		// before the approved call runs.
		if ok, err := s.safePoint(ctx, a, action{kind: actTool, call: call, tool: ts}); err != nil {
			return broken(err)
		} else if !ok {
			return notStarted(ctx)
		}
	}
	if ctx.Err() != nil {
		return notStarted(ctx)
	}
	if call.Name == interact.AskUser {
		res, answer, err := s.askUser(ctx, a, ts, call)
		switch {
		case ctx.Err() != nil && errors.Is(context.Cause(ctx), errShutdown):
			return nil // the question stays open and is taken up after the restart
		case ctx.Err() != nil:
			return end(event.NodeCancelled, tool.Errorf(tool.CodeCancelled, "cancelled while waiting for an answer"))
		case err != nil:
			return broken(err)
		case res.IsError:
			return end(event.NodeFailed, res)
		}
		end(event.NodeSucceeded, res)
		a.mu.Lock()
		u := a.st.newNode()
		a.emitLocked(event.NodeStarted, u, event.NodeStartedData{Kind: event.KindUser, Parent: a.st.root, After: []string{node},
			Label: "answer", Text: answer, AnswerTo: node})
		a.emitLocked(event.NodeFinished, u, event.NodeFinishedData{Status: event.NodeSucceeded})
		a.mu.Unlock()
		return nil
	}
	rules, err := s.rules(ctx, a) // for what the call may show (tool.Env.Withheld)
	switch {
	case ctx.Err() != nil:
		return notStarted(ctx)
	case err != nil:
		return broken(err)
	}
	a.mu.Lock()
	env, args := a.st.env, call.Arguments
	edited := len(ts.edited) > 0
	if edited {
		args = ts.edited // edit, then approve: the person's arguments run
	}
	touched, decidedOn := ts.touched, ts.touches
	a.mu.Unlock()
	if !edited && touched {
		// The decision holds for the files it was made on. A call of the
		// same turn (a command), or anything else meanwhile, may have made
		// a name lead elsewhere since: then the call does not run. (A
		// person's edited arguments run as approved; a decision logged
		// without its touches, by an older Steward, has nothing to compare.)
		if now, ok := a.st.registry.Touches(call.Name, env, args); ok && !sameTouches(now, decidedOn) {
			return end(event.NodeFailed, tool.Errorf(CodeStaleDecision, fmt.Sprintf(
				"%s was not run: it was decided on %s, and now it would open %s; the files changed since. Call it again to have it decided anew.",
				call.Name, touchList(decidedOn), touchList(eventTouches(now)))))
		}
	}
	if len(rules) > 0 {
		env.Withheld = func(t tool.Touch) bool { return policy.Withheld(policy.Input{Tool: call.Name, Rules: rules}, t) }
	}
	a.mu.Lock()
	env.Files = a.toolFiles()
	env.NodeID, env.Domains, env.Sandbox = node, a.st.agent.Domains, a.st.agent.SandboxSettings()
	exec := spec.Risk == tool.RiskExec && a.files != nil
	if exec {
		a.files.exec = node // what the watcher sees meanwhile is this command's doing
	} else if a.files != nil {
		a.files.calling = true
	}
	a.mu.Unlock()
	// The call is a side effect: everything before it, and the mark that it
	// starts, must be durable first. After a crash a marked call with no end
	// is interrupted, never silently run again.
	a.emit(event.ToolExecuting, node, event.ToolExecutingData{})
	if err := a.sync(); err != nil {
		return broken(fmt.Errorf("record before %s: %w", call.Name, err))
	}
	servers := &serverNotes{a: a, node: node}
	progress := newProgressNotes(a, node)
	asks := newElicitations(s, a, node, call.Name, args)
	env.Server, env.Progress, env.Elicit = servers.note, progress.note, asks.ask
	res, err := a.st.registry.Call(ctx, env, call.Name, args)
	asks.end(ctx)
	servers.end()
	progress.end() // the last report heard, before the node ends
	if exec {
		a.files.watcher.Flush() // the command's last writes are reported as its own
	}
	a.mu.Lock()
	a.recordToolChangesLocked(node)
	var deferred []workspace.Changed
	if a.files != nil {
		a.files.exec, a.files.calling = "", false
		deferred, a.files.deferred = a.files.deferred, nil
	}
	a.mu.Unlock()
	if len(deferred) > 0 {
		s.observe(a, deferred) // what changed meanwhile that the tool did not do
	}
	if err == nil && string(args) != string(call.Arguments) {
		res.Output = editedNote + string(args) + "\n" + res.Output
	}
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
	if call.Name == interact.UpdatePlan {
		if steps, err := interact.ParsePlan(args); err == nil {
			a.emit(event.RunPlan, node, event.RunPlanData{Steps: steps})
		}
	}
	return end(event.NodeSucceeded, res)
}

// serverNotes records what a call's tool reports of the servers it
// reaches (tool.Env.Server) as mcp.server events on the call's node,
// through emit like the engine's own: redacted, folded and committed with
// the call's other events. Only until the call returns: a tool the
// deadline left behind must not write to the log after its node ended.
type serverNotes struct {
	a    *active
	node string

	mu    sync.Mutex
	ended bool
}

func (n *serverNotes) note(d event.MCPServerData) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ended {
		return
	}
	// Handed to the store at once: a call may wait out a server's backoff,
	// and the person sees why meanwhile.
	n.a.mu.Lock()
	n.a.emitLocked(event.MCPServer, n.node, d)
	n.a.flushLocked()
	n.a.mu.Unlock()
}

func (n *serverNotes) end() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.ended = true
}

// editedNote starts the output of a call that ran with a person's edit of
// its arguments, which follow it on the note's line: the model is told.
const editedNote = "Note: the user edited your arguments before approving; the call ran with "

// ToolOutput is what the tool itself answered of a call whose node.finished
// recorded output: output without the note the engine put before it when
// the call ran with a person's edit of its arguments (edited). A replay
// answers a recorded call with it; the engine then adds the note again, as
// it did when it recorded the call.
func ToolOutput(output string, edited bool) string {
	if !edited || !strings.HasPrefix(output, editedNote) {
		return output
	}
	// The arguments are compact JSON, so the note is one line.
	_, rest, _ := strings.Cut(output, "\n")
	return rest
}

// CodeStaleDecision is the code of a call that was not run because the
// files it opens are not those the policy decided on.
const CodeStaleDecision = "decision_stale"

// sameTouches reports whether a call touches now what it was decided on.
func sameTouches(now []tool.Touch, decided []event.Touch) bool {
	return slices.Equal(eventTouches(now), decided)
}

// touchList names touches for a message: "a.txt (write)", or "no file".
func touchList(ts []event.Touch) string {
	if len(ts) == 0 {
		return "no file"
	}
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = tool.Touch{Path: t.Path, Via: t.Via}.String() + " (" + string(t.Access) + ")"
	}
	return strings.Join(parts, ", ")
}

// startToolLocked opens the node of a tool call and returns it; mu must be
// held.
func (s *Service) startToolLocked(a *active, call llm.ToolCall, retryOf string) string {
	spec, _ := a.st.registry.Lookup(call.Name)
	node := a.st.newNode()
	a.emitLocked(event.NodeStarted, node, event.NodeStartedData{
		Kind: event.KindTool, Parent: a.st.lastLLM, After: []string{a.st.lastLLM}, Label: call.Name,
		Tool: call.Name, CallID: call.ID, Arguments: validJSON(call.Arguments), Risk: spec.Risk, RetryOf: retryOf,
	})
	return node
}

// offered returns the specs of the agent's tools the model is offered in its
// mode: plan mode offers read tools only. An agent's tools may name all of
// an MCP server's (mcp__github__*), which lists the server the first time.
// No names offers no tools (the registry's Specs would return them all).
func offered(reg Tools, ag agent.Agent) []llm.ToolSpec {
	if len(ag.Tools) == 0 {
		return nil
	}
	var out []llm.ToolSpec
	for _, sp := range reg.Specs(ag.Tools...) {
		if policy.Offered(ag.Mode, sp.Risk) {
			out = append(out, llm.ToolSpec{Name: sp.Name, Description: sp.Description, Schema: sp.Schema})
		}
	}
	return out
}

func artifactData(a tool.Artifact) event.ArtifactCreatedData {
	return event.ArtifactCreatedData{Name: a.Name, Kind: a.Kind, Mime: a.Mime, Size: a.Size, Description: a.Description}
}

// refusedAnyway reports the refusal of a call the policy asks about that
// its tool would refuse as things are now: the model gets it at once, and
// a person is not asked to approve what cannot run. An approval opened
// before (the turn's calls are asked about together, and an earlier one
// may have changed the files since) is withdrawn.
func (s *Service) refusedAnyway(ctx context.Context, a *active, ts *toolState, call llm.ToolCall) (tool.Result, bool) {
	a.mu.Lock()
	ask, decided, interaction := ts.effect == string(policy.Ask), ts.decision != "", ts.interaction
	a.mu.Unlock()
	if !ask || decided {
		return tool.Result{}, false
	}
	res, refused := s.precheck(ctx, a, call)
	if !refused {
		return tool.Result{}, false
	}
	if interaction != "" {
		s.withdraw(ctx, a.st.id, []string{interaction}, call.Name+" would be refused: "+res.Output)
	}
	return res, true
}
